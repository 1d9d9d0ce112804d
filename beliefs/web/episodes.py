"""The episode explorer, the episode page and the recall playground."""

from __future__ import annotations

import re

from django import forms
from django.conf import settings
from django.http import Http404

from banks.web.access import BankPageView
from banks.web.pagination import paginate
from beliefs.api.presenters import recall_payload
from beliefs.engine.types import RecallFilters
from beliefs.filtersets import EpisodeBrowserFilterSet
from beliefs.models import Evidence, Provenance
from beliefs.selectors.episodes import episode_evidence, episode_facts, episode_get, episode_list
from beliefs.services.recall import CHANNELS, KINDS, RecallOptions, recall
from memoryhub.charts import meter

REDACTION = re.compile(r"\[REDACTED:([a-z0-9_-]+)\]", re.I)


class EpisodeListPage(BankPageView):
    def get(self, request, tenant_slug: str, bank_slug: str):
        filterset = EpisodeBrowserFilterSet(request.GET or None, queryset=episode_list(bank=self.bank))
        queryset = filterset.qs if filterset.is_bound and filterset.is_valid() else episode_list(bank=self.bank)
        page = paginate(
            request,
            queryset.only(
                "id", "content", "occurred_at", "source", "subject", "thread", "provenance", "injection_flags"
            ),
        )
        return self.render(
            "beliefs/episode_list.html",
            {"filterset": filterset, "episodes": page, "provenances": Provenance.choices},
        )


def defense_findings(content: str, flags: list) -> list[dict]:
    """Memory Defense traces on an episode: redactions left in its text and injection markers found at retain."""
    findings: dict[str, dict] = {}
    for match in REDACTION.finditer(content):
        entry = findings.setdefault(f"redacted:{match.group(1)}", {"what": "redacted", "kind": match.group(1), "n": 0})
        entry["n"] += 1
    for flag in flags or []:
        kind = flag if isinstance(flag, str) else (flag.get("family") or flag.get("kind") or flag.get("reason") or "")
        entry = findings.setdefault(f"flag:{kind}", {"what": "injection marker", "kind": str(kind), "n": 0})
        entry["n"] += 1
    return list(findings.values())


class EpisodeDetailPage(BankPageView):
    def get(self, request, tenant_slug: str, bank_slug: str, episode_id: int):
        episode = episode_get(bank=self.bank, episode_id=episode_id)
        if episode is None:
            raise Http404("No such episode in this bank.")
        evidence = episode_evidence(bank=self.bank, episode=episode)
        facts = episode_facts(bank=self.bank, episode=episode)
        css = {Evidence.Stance.SUPPORTS: "quote", Evidence.Stance.CONTRADICTS: "quote-contra"}
        spans = [(e.quote_start, e.quote_end, css[e.stance], f"quote-{e.pk}") for e in evidence]
        return self.render(
            "beliefs/episode_detail.html",
            {
                "episode": episode,
                "spans": spans,
                "evidence": evidence,
                "facts": facts,
                "findings": defense_findings(episode.content, episode.injection_flags),
            },
        )


class RecallForm(forms.Form):
    query = forms.CharField(max_length=settings.MEMORYHUB["MAX_QUERY_CHARS"], widget=forms.Textarea(attrs={"rows": 2}))
    budget_tokens = forms.IntegerField(min_value=1, max_value=settings.MEMORYHUB["MAX_BUDGET_TOKENS"], initial=512)
    channels = forms.MultipleChoiceField(
        choices=[(c, c) for c in CHANNELS], initial=list(CHANNELS), widget=forms.CheckboxSelectMultiple
    )
    kinds = forms.MultipleChoiceField(
        choices=[(k, k) for k in KINDS], initial=list(KINDS), widget=forms.CheckboxSelectMultiple
    )
    source = forms.CharField(max_length=64, required=False)
    subject = forms.CharField(max_length=255, required=False)


class RecallPlaygroundPage(BankPageView):
    """A query and a budget in, the same recall the API runs out, with channels, scores and timings."""

    def get(self, request, tenant_slug: str, bank_slug: str):
        form = RecallForm(request.GET if "query" in request.GET else None)
        context = {"form": form}
        if form.is_bound and form.is_valid():
            data = form.cleaned_data
            filters = RecallFilters(
                sources=(data["source"],) if data["source"] else (),
                subjects=(data["subject"],) if data["subject"] else (),
            )
            result = recall(
                bank=self.bank,
                query=data["query"],
                budget_tokens=data["budget_tokens"],
                filters=filters,
                options=RecallOptions(channels=data["channels"], kinds=data["kinds"]),
            )
            payload = recall_payload(result, explain=True)
            context.update(
                result=payload,
                budget_bar=meter(
                    result.tokens_used,
                    result.budget_tokens,
                    label=f"{result.tokens_used} of {result.budget_tokens} tokens used",
                ),
            )
        return self.render("beliefs/recall.html", context)
