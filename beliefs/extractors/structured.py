"""Typed events in ``metadata['event']`` and explicit ``metadata['facts']`` become facts directly.

An alert stream is the main case: every alert supports "alert S fires on H", and every
analyst dismissal or confirmed incident sets the one-value verdict of "alert S on H".
``EVENT_FIELDS`` lists each event type's required fields; retain rejects an event that
lacks them, and the extractor skips (never guesses) anything malformed that got stored.

When ``metadata[QUOTE_FIELD]`` names a field (``"reason"``) whose text appears in the
content, a verdict's quote is exactly that text — the author's own words inside a line
the service wrote around them — instead of the whole line.
"""

from __future__ import annotations

from collections.abc import Callable

from beliefs.extractors import MAX_OBJECT_CHARS, FactDraft, line_span

EVENT_FIELDS: dict[str, tuple[str, ...]] = {
    "alert": ("signature",),
    "dismissal": ("signature",),
    "incident": ("signature",),
    "contest": ("signature",),
    "cause": ("signature", "cause"),
    "baseline": ("metric", "value"),
    "runbook": ("signature", "step"),
    "intervention": ("account", "play"),
    "outcome": ("account", "result"),
    "play_outcome": ("play", "segment", "result"),
}
# An analyst's verdict on an alert pattern: what triage suppresses or investigates on. A person's word, so
# storing one needs the review scope or the reviewer role (banks.scoping), whichever route it comes by.
VERDICT_EVENTS = ("dismissal", "incident", "contest")
# Alerts, dismissals, incidents and causes name where they fired with one of these fields; an explicit
# ``target`` (the anomaly routes write the pattern's key there) wins.
TARGET_FIELDS = ("target", "host", "service")
QUOTE_FIELD = "quote_field"
EXPLICIT_FACT_FIELDS = ("subject", "predicate", "object")


def carries_verdict_event(payload) -> bool:
    """Whether a retain body holds an analyst verdict (``metadata.event`` in ``VERDICT_EVENTS``)."""
    items = payload.get("items") if isinstance(payload, dict) else None
    if not isinstance(items, list):
        return False
    return any(
        isinstance(item, dict) and isinstance(item.get("metadata"), dict)
        and item["metadata"].get("event") in VERDICT_EVENTS
        for item in items
    )  # fmt: skip


def event_problems(metadata: dict) -> list[str]:
    """What is wrong with the typed event and explicit facts in ``metadata`` (empty when fine)."""
    problems = []
    event = metadata.get("event")
    if event is not None:
        if event not in EVENT_FIELDS:
            problems.append(f"unknown event type {str(event)[:40]!r}; known: {', '.join(sorted(EVENT_FIELDS))}")
        else:
            for name in EVENT_FIELDS[event]:
                if not _text(metadata.get(name)):
                    problems.append(f"event {event!r} needs a non-empty text field {name!r}")
    facts = metadata.get("facts")
    if facts is not None:
        if not isinstance(facts, list):
            problems.append("'facts' must be a list of objects")
        else:
            for index, fact in enumerate(facts):
                if not isinstance(fact, dict) or not all(_text(fact.get(k)) for k in EXPLICIT_FACT_FIELDS):
                    problems.append(f"facts[{index}] needs text fields subject, predicate and object")
    return problems


def extract(content: str, metadata: dict) -> list[FactDraft]:
    """Facts stated by the episode's typed event and explicit facts."""
    if not isinstance(metadata, dict):
        return []
    drafts: list[FactDraft] = []
    event = metadata.get("event")
    handler = _HANDLERS.get(event) if isinstance(event, str) else None
    if handler is not None and all(_text(metadata.get(name)) for name in EVENT_FIELDS[event]):
        drafts.extend(handler(content, metadata))
    facts = metadata.get("facts")
    if isinstance(facts, list):
        for fact in facts[:50]:
            if isinstance(fact, dict) and all(_text(fact.get(k)) for k in EXPLICIT_FACT_FIELDS):
                start, end = line_span(content, _text(fact.get("quote")) or _text(fact["object"]))
                drafts.append(
                    FactDraft(
                        subject=_text(fact["subject"]),
                        predicate=_text(fact["predicate"]).lower()[:64],
                        object=_text(fact["object"]),
                        quote_start=start,
                        quote_end=end,
                        extractor="structured",
                        negated=bool(fact.get("negated", False)),
                        functional=bool(fact.get("functional", False)),
                    )
                )
    return drafts


def _text(value) -> str:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)
    return value.strip()[:MAX_OBJECT_CHARS] if isinstance(value, str) else ""


def _target(metadata: dict) -> str:
    return next((_text(metadata.get(name)) for name in TARGET_FIELDS if _text(metadata.get(name))), "")


def _alert_subject(metadata: dict) -> str:
    target = _target(metadata)
    signature = _text(metadata["signature"])
    return f"alert {signature} on {target}" if target else f"alert {signature}"


def _draft(content: str, needle: str, **fields) -> FactDraft:
    start, end = line_span(content, needle)
    return FactDraft(quote_start=start, quote_end=end, extractor="structured", **fields)


def _alert(content, metadata):
    target = _target(metadata)
    signature = _text(metadata["signature"])
    if not target:
        return [_draft(content, signature, subject=f"alert {signature}", predicate="fires", object="repeatedly")]
    return [_draft(content, signature, subject=f"alert {signature}", predicate="fires on", object=target)]


def _verdict(value: str, *, negated: bool = False) -> Callable:
    def handler(content, metadata):
        subject = _alert_subject(metadata)
        authored = _authored_span(content, metadata)
        if authored is not None:
            start, end = authored
            return [
                FactDraft(
                    subject=subject,
                    predicate="is",
                    object=value,
                    quote_start=start,
                    quote_end=end,
                    extractor="structured",
                    negated=negated,
                    functional=True,
                )
            ]
        needle = _text(metadata.get("reason")) or _text(metadata["signature"])
        return [
            _draft(content, needle, subject=subject, predicate="is", object=value, functional=True, negated=negated)
        ]

    return handler


def _authored_span(content: str, metadata: dict) -> tuple[int, int] | None:
    """The exact span of the author's own words (``metadata[QUOTE_FIELD]``) in ``content``, capped at 400 chars."""
    field = metadata.get(QUOTE_FIELD)
    text = metadata.get(field) if isinstance(field, str) else None
    if not isinstance(text, str) or not text.strip():
        return None
    text = text.strip()
    start = content.rfind(text)  # the service writes the author's words last
    if start < 0:
        return None
    return start, start + min(len(text), 400)


def _cause(content, metadata):
    cause = _text(metadata["cause"])
    return [_draft(content, cause, subject=_alert_subject(metadata), predicate="is caused by", object=cause)]


def _baseline(content, metadata):
    metric = _text(metadata["metric"])
    target = _target(metadata)
    subject = f"metric {metric} on {target}" if target else f"metric {metric}"
    value = _text(metadata["value"])
    return [_draft(content, metric, subject=subject, predicate="has baseline", object=value, functional=True)]


def _runbook(content, metadata):
    step = _text(metadata["step"])
    found_signal = metadata.get("produced_signal", metadata.get("signal", True))
    return [
        _draft(
            content,
            step,
            subject=f"runbook step {step} for alert {_text(metadata['signature'])}",
            predicate="produces",
            object="signal",
            negated=found_signal is False,
        )
    ]


def _intervention(content, metadata):
    play = _text(metadata["play"])
    return [_draft(content, play, subject=f"account {_text(metadata['account'])}", predicate="received", object=play)]


def _outcome(content, metadata):
    result = _text(metadata["result"]).lower()
    subject = f"account {_text(metadata['account'])}"
    return [_draft(content, result, subject=subject, predicate="outcome", object=result, functional=True)]


def _play_outcome(content, metadata):
    result = _text(metadata["result"]).lower()
    if result not in {"retained", "churned"}:
        return []  # an unknown outcome is no evidence either way
    play, segment = _text(metadata["play"]), _text(metadata["segment"])
    subject = f"play {play} in segment {segment}"
    return [_draft(content, play, subject=subject, predicate="retains", object="accounts", negated=result == "churned")]


_HANDLERS: dict[str, Callable] = {
    "alert": _alert,
    "dismissal": _verdict("benign"),
    "incident": _verdict("genuine"),
    "contest": _verdict("benign", negated=True),  # an analyst disputes that the pattern is benign
    "cause": _cause,
    "baseline": _baseline,
    "runbook": _runbook,
    "intervention": _intervention,
    "outcome": _outcome,
    "play_outcome": _play_outcome,
}
