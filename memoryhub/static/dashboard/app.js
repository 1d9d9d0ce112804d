/* MemoryHub dashboard behaviour. Loaded as a file (the CSP allows no inline script).
 * Pages work without it; it adds keyboard shortcuts to the review queue and small conveniences. */
(function () {
  "use strict";

  function typing(target) {
    return target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
  }

  /* <select data-autosubmit> submits its form on change (filters, tenant pickers). */
  document.addEventListener("change", function (event) {
    var el = event.target;
    if (el.matches && el.matches("[data-autosubmit]") && el.form) el.form.requestSubmit();
  });

  /* <form data-confirm="question"> asks before submitting (deletes, refreshes). */
  document.addEventListener("submit", function (event) {
    var form = event.target;
    var question = form.getAttribute && form.getAttribute("data-confirm");
    if (question && !window.confirm(question)) event.preventDefault();
  }, true);

  /* <button data-copy="element-id"> copies that element's text (a new API key, a first password). */
  document.addEventListener("click", function (event) {
    var trigger = event.target.closest && event.target.closest("[data-copy]");
    if (!trigger) return;
    var source = document.getElementById(trigger.getAttribute("data-copy"));
    if (!source) return;
    var done = function () { trigger.textContent = "Copied"; };
    var select = function () {
      var range = document.createRange();
      range.selectNodeContents(source);
      var selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      trigger.textContent = "Selected: press Ctrl+C";
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(source.textContent.trim()).then(done, select);
    } else {
      select();
    }
  });

  /* ---- Review queue: j/k move, x select, a accept, r reject, o overturn, A accept selected, ? help ---- */
  function queueItems() {
    return Array.prototype.slice.call(document.querySelectorAll(".queue-item[data-item-id]"));
  }
  function current() { return document.querySelector(".queue-item.current"); }
  function setCurrent(item) {
    queueItems().forEach(function (el) { el.classList.remove("current"); el.removeAttribute("aria-current"); });
    if (!item) return;
    item.classList.add("current");
    item.setAttribute("aria-current", "true");
    item.focus({ preventScroll: true });
    item.scrollIntoView({ block: "nearest" });
  }
  function move(step) {
    var items = queueItems();
    if (!items.length) return;
    var index = items.indexOf(current());
    var next = index < 0 ? 0 : Math.min(items.length - 1, Math.max(0, index + step));
    setCurrent(items[next]);
  }
  function button(item, decision) {
    return item && item.querySelector('button[name="decision"][value="' + decision + '"]:not([disabled])');
  }
  function askComment(item, decision) {
    var input = item.querySelector("input[name=comment], textarea[name=comment]");
    if (!input) return;
    input.dataset.decision = decision;
    input.placeholder = decision === "reject" ? "Reason for rejecting (required), then Enter" : "Comment for the overturn, then Enter";
    input.focus();
  }

  document.addEventListener("keydown", function (event) {
    var target = event.target;
    if (target && target.name === "comment" && target.dataset.decision) {
      if (event.key === "Enter" && !event.shiftKey) {
        event.preventDefault();
        var item = target.closest(".queue-item");
        var b = button(item, target.dataset.decision);
        if (b) b.click();
      } else if (event.key === "Escape") {
        delete target.dataset.decision;
        target.blur();
        setCurrent(target.closest(".queue-item"));
      }
      return;
    }
    if (typing(target) || event.ctrlKey || event.metaKey || event.altKey) return;
    if (!document.querySelector("[data-queue]")) return;
    var item = current();
    switch (event.key) {
      case "j": move(1); break;
      case "k": move(-1); break;
      case "x":
        if (item) { var box = item.querySelector("input.select"); if (box) box.checked = !box.checked; }
        break;
      case "a": if (button(item, "accept")) button(item, "accept").click(); break;
      case "r": if (item && button(item, "reject")) askComment(item, "reject"); break;
      case "o": if (item && button(item, "overturn")) askComment(item, "overturn"); break;
      case "A": {
        var bulk = document.getElementById("bulk-accept");
        if (bulk) bulk.click();
        break;
      }
      case "?": {
        var help = document.getElementById("shortcut-help");
        if (help) help.hidden = !help.hidden;
        break;
      }
      default: return;
    }
    event.preventDefault();
  });

  /* Bulk accept: the selected checkboxes live in the items; copy their ids into the bulk form. */
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (form.id !== "bulk-form") return;
    form.querySelectorAll("input[name=item]").forEach(function (el) { el.remove(); });
    document.querySelectorAll(".queue-item input.select:checked").forEach(function (box) {
      var hidden = document.createElement("input");
      hidden.type = "hidden"; hidden.name = "item"; hidden.value = box.value;
      form.appendChild(hidden);
    });
  }, true);

  /* After htmx swaps a decided item in, keep the keyboard position on the next pending one. */
  document.addEventListener("htmx:afterSwap", function (event) {
    var swapped = event.detail && event.detail.target;
    if (!swapped || !document.querySelector("[data-queue]")) return;
    var items = queueItems();
    var decided = document.getElementById(swapped.id);
    var index = decided ? items.indexOf(decided) : -1;
    var next = items.slice(index + 1).find(function (el) { return !el.classList.contains("decided"); });
    if (next) setCurrent(next);
  });

  document.addEventListener("DOMContentLoaded", function () {
    if (document.querySelector("[data-queue]")) {
      var first = document.querySelector(".queue-item[data-item-id]:not(.decided)") || queueItems()[0];
      var fromHash = location.hash && document.querySelector(location.hash + ".queue-item");
      if (fromHash || first) setCurrent(fromHash || first);
    }
  });
})();
