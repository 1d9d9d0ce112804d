"""Review queue pages: pending items by kind, decisions through the same service as the API.

A decision posted from the page goes through ``review_item_decide`` exactly like
``POST …/review-items/{id}/{decision}``, so both leave identical rows. With htmx the
decided item is swapped in place (``templates/reviews/partials/item.html``); without
JavaScript the form posts and the page reloads.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django.contrib import messages
from django.http import Http404, QueryDict
from django.shortcuts import redirect
from django.urls import reverse

from audit.services import actor_of
from banks.permissions import Role
from banks.web.access import BankPageView
from banks.web.pagination import paginate
from memoryhub.exceptions import MemoryHubError
from reviews.handlers import item_support, queue_panels
from reviews.models import ReviewItem
from reviews.selectors import review_counts, review_item_get, review_items
from reviews.services.decisions import review_item_decide

KINDS = [("", "All"), *ReviewItem.Kind.choices]


class ReviewQueuePage(BankPageView):
    def get(self, request, tenant_slug: str, bank_slug: str):
        kind = request.GET.get("kind", "")
        kind = kind if kind in ReviewItem.Kind.values else ""
        decided = request.GET.get("view") == "decided"
        page = paginate(request, review_items(bank=self.bank, kind=kind or None, decided=decided))
        items = list(page)
        return self.render(
            "reviews/queue.html",
            {
                "items": items,
                "page_obj": page,
                "kind": kind,
                "kinds": KINDS,
                "decided_view": decided,
                "counts": review_counts(bank=self.bank),
                "support": item_support(bank=self.bank, items=items),
                **(queue_panels(bank=self.bank) if not decided and not kind else {}),
            },
        )


class ReviewDecidePage(BankPageView):
    """POST accept / reject / overturn for one item (reviewers)."""

    roles = {"POST": Role.REVIEWER}

    def post(self, request, tenant_slug: str, bank_slug: str, item_id: int):
        if review_item_get(bank=self.bank, item_id=item_id) is None:
            raise Http404("No such review item in this bank.")
        decision, comment = request.POST.get("decision", ""), request.POST.get("comment", "").strip()
        error = ""
        try:
            review_item_decide(
                bank=self.bank, item_id=item_id, decision=decision, comment=comment, actor=actor_of(request)
            )
        except MemoryHubError as exc:  # shown next to the item; nothing was changed
            error = str(exc.detail)
        if request.headers.get("HX-Request"):
            item = review_item_get(bank=self.bank, item_id=item_id)
            query = QueryDict(urlsplit(request.headers.get("HX-Current-URL", "")).query)
            kind = query.get("kind", "")
            return self.render(
                "reviews/partials/decided.html",
                {
                    "item": item,
                    "error": error,
                    "support": item_support(bank=self.bank, items=[item]),
                    "counts": review_counts(bank=self.bank),
                    "kinds": KINDS,
                    "kind": kind if kind in ReviewItem.Kind.values else "",
                    "decided_view": query.get("view") == "decided",
                    "query": query,
                },
            )
        if error:
            messages.error(request, f"Review item {item_id}: {error}")
        else:
            messages.success(request, f"Review item {item_id}: {decision} recorded.")
        return redirect(f"{reverse('reviews_web:queue', kwargs=self.kwargs_for_queue())}#item-{item_id}")

    def kwargs_for_queue(self) -> dict:
        return {"tenant_slug": self.tenant.slug, "bank_slug": self.bank.slug}


class ReviewBulkAcceptPage(BankPageView):
    """POST ``item`` ids: accept each pending one (already decided ones are skipped and reported)."""

    roles = {"POST": Role.REVIEWER}

    def post(self, request, tenant_slug: str, bank_slug: str):
        ids = [int(value) for value in request.POST.getlist("item") if value.isdigit()][:200]
        accepted, skipped = 0, []
        for item_id in ids:
            try:
                review_item_decide(bank=self.bank, item_id=item_id, decision="accept", actor=actor_of(request))
                accepted += 1
            except MemoryHubError:
                skipped.append(str(item_id))
        if not ids:
            messages.error(request, "Select items first (x on the keyboard), then accept them together.")
        else:
            note = f" Skipped {len(skipped)} already decided or unknown: {', '.join(skipped)}." if skipped else ""
            messages.success(request, f"Accepted {accepted} item{'s' if accepted != 1 else ''}.{note}")
        return redirect("reviews_web:queue", tenant_slug=tenant_slug, bank_slug=bank_slug)
