"""Template helpers for the dashboard: bank-relative URLs, durations, percentages, highlighted quotes.

Everything that builds markup escapes the stored text first: memory content is untrusted.
"""

from __future__ import annotations

from django import template
from django.urls import reverse
from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe

register = template.Library()


@register.simple_tag(takes_context=True)
def bank_url(context, url_name: str, **kwargs) -> str:
    """``{% bank_url "beliefs_web:belief-detail" belief_id=b.pk %}``: a URL in the current tenant and bank."""
    page = context["page"]
    return reverse(url_name, kwargs={"tenant_slug": page.tenant.slug, "bank_slug": page.bank.slug, **kwargs})


@register.simple_tag(takes_context=True)
def query_with(context, **changes) -> str:
    """The current query string with ``changes`` applied (``None`` removes a key); for sorting and paging links.

    A fragment rendered for an htmx request says which page it lands on with ``query`` (that page's parameters).
    """
    params = (context.get("query") or context["request"].GET).copy()
    for key, value in changes.items():
        if value is None or value == "":
            params.pop(key, None)
        else:
            params[key] = value
    encoded = params.urlencode()
    return f"?{encoded}" if encoded else "?"


@register.filter
def duration(seconds) -> str:
    """``95`` → ``1 min 35 s``; ``0`` → ``none``."""
    seconds = float(seconds or 0)
    if seconds < 1:
        return "none"
    if seconds < 60:
        return f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{int(seconds // 60)} min {int(seconds % 60)} s"
    if seconds < 86400:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} days"


@register.filter
def ago(moment) -> str:
    """``just now``, ``5 minutes ago``, ``3 days ago``."""
    from django.utils import timezone
    from django.utils.timesince import timesince

    if moment is None:
        return ""
    if (timezone.now() - moment).total_seconds() < 60:
        return "just now"
    return f"{timesince(moment).split(',')[0]} ago"


@register.filter
def percent(value, digits: int = 0) -> str:
    if value is None or value == "":
        return "–"
    return f"{float(value) * 100:.{int(digits)}f}%"


@register.filter
def as_json(value) -> str:
    """Pretty JSON for metadata blocks (escaped by the template like any other text)."""
    import json

    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True, default=str)


@register.filter
def as_json_compact(value, limit: int = 300) -> str:
    """One-line JSON, cut at ``limit`` characters (audit details in a table cell)."""
    import json

    text = json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(", ", ": "), default=str)
    return text if len(text) <= int(limit) else text[: int(limit) - 1] + "…"


SORT_LABELS = {
    "confidence": "confidence",
    "proofs": "proof count",
    "confirmed": "last confirmation",
    "subject": "subject",
}


@register.filter
def sort_label(sort: str) -> str:
    """``-proofs`` → ``proof count, highest first``."""
    if not sort:
        return "confidence, highest first"
    name = SORT_LABELS.get(sort.lstrip("-"), sort.lstrip("-"))
    return f"{name}, {'highest or newest first' if sort.startswith('-') else 'lowest or oldest first'}"


@register.filter
def get_item(mapping, key):
    return (mapping or {}).get(key)


@register.filter
def row_id(value) -> int | None:
    """``value`` when it can be a database id (a positive int), else None: stored JSON may hold anything."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def highlight_spans(text: str, spans) -> SafeString:
    """``text`` escaped, each ``(start, end, css_class[, element_id])`` span wrapped in ``<mark>``.

    Overlapping spans are cut where the earlier one ends (an id still lands on an empty anchor).
    """
    out: list[str] = []
    cursor = 0
    for span in sorted(spans, key=lambda s: (s[0], s[1])):
        start, end, css = span[0], span[1], span[2]
        element_id = span[3] if len(span) > 3 else ""
        start, end = max(int(start), cursor), min(int(end), len(text))
        if end <= start:
            if element_id:
                out.append(format_html('<span id="{}"></span>', element_id))
            continue
        out.append(escape(text[cursor:start]))
        if element_id:
            out.append(format_html('<mark class="{}" id="{}">{}</mark>', css, element_id, text[start:end]))
        else:
            out.append(format_html('<mark class="{}">{}</mark>', css, text[start:end]))
        cursor = end
    out.append(escape(text[cursor:]))
    return mark_safe("".join(out))  # noqa: S308 - every piece above is escaped


@register.simple_tag
def highlight(text: str, start: int, end: int, css: str = "quote") -> SafeString:
    """One quote highlighted inside its episode's text."""
    return highlight_spans(text or "", [(int(start), int(end), css)])


@register.simple_tag
def highlight_all(text: str, spans) -> SafeString:
    """Several quotes (``(start, end, css, id)``) highlighted inside one episode's text."""
    return highlight_spans(text or "", spans)


@register.filter
def flag_label(flag) -> str:
    """An injection flag as stored (a reason string, or a dict with a family or kind)."""
    if isinstance(flag, dict):
        return str(flag.get("family") or flag.get("kind") or flag.get("reason") or "flag")
    return str(flag)


@register.inclusion_tag("components/status.html")
def status_badge(status: str):
    return {"status": status}
