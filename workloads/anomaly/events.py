"""Anomaly events (alerts, analyst verdicts, causes, baselines, runbook outcomes) and what a pattern is keyed on.

A **pattern** is a signature on a target. The bank's ``anomaly.key`` says what the target is:
``host``, ``service``, or ``both`` (the default: the host and the service together, written
``host/service``); an alert that names only one of them is keyed on that one. Changing the
key starts patterns afresh — beliefs keyed the old way stay, but no longer match.

Analyst events (``dismissal``, ``incident``, ``contest``) carry the analyst's own words in
``reason``. The stored episode reads "Analyst closed S on T as benign: <reason>", and its
metadata names ``reason`` as the quote field, so every evidence quote cut from it is exactly
the analyst's text (with its character span), never the line MemoryHub wrote around it.
"""

from __future__ import annotations

from datetime import datetime

from audit.services import audit_record
from banks.models import Bank
from banks.policy import BankPolicy, bank_policy
from beliefs.extractors.structured import QUOTE_FIELD, VERDICT_EVENTS
from workloads.events import record_event

EVENT_TEMPLATES = {
    "alert": "ALERT {signature} on {target}: value {value}",
    "dismissal": "Analyst closed {signature} on {target} as benign: {reason}",
    "incident": "Confirmed incident: {signature} on {target} was genuine: {reason}",
    "contest": "Analyst contested that {signature} on {target} is benign: {reason}",
    "cause": "{signature} on {target} was caused by {cause}",
    "baseline": "Baseline of {metric} on {target}: {value}",
    "runbook": "Runbook step {step} for {signature} {outcome}",
}
ANALYST_EVENTS = VERDICT_EVENTS  # these need the analyst's reason, and the review scope (a person's word)


def pattern_target(*, policy: BankPolicy, host: str | None, service: str | None) -> str:
    """The target part of a pattern under the bank's ``anomaly.key`` (see the module docstring)."""
    host, service = (host or "").strip(), (service or "").strip()
    if policy.anomaly_key == "host":
        return host or service
    if policy.anomaly_key == "service":
        return service or host
    return "/".join(part for part in (host, service) if part)


def anomaly_event_record(
    *, bank: Bank, event: dict, occurred_at: datetime, fold_now: bool = False, actor: str | None = None
) -> int | None:
    """Store an alert, verdict, contest, cause, baseline or runbook outcome as a typed episode; returns its id.

    Audited when recorded for ``actor``.
    """
    kind = event["type"]
    target = pattern_target(policy=bank_policy(bank), host=event.get("host"), service=event.get("service"))
    target = target or event.get("target") or ""
    reason = (event.get("reason") or "").strip()
    fields = {
        "signature": event.get("signature", ""),
        "target": target,
        "value": event.get("value", ""),
        "reason": reason,
        "cause": event.get("cause", ""),
        "metric": event.get("metric", ""),
        "step": event.get("step", ""),
        "outcome": "produced signal" if event.get("produced_signal", True) else "showed nothing",
    }
    content = EVENT_TEMPLATES[kind].format(**fields).rstrip()  # the reason comes last and is already stripped
    if not reason:
        content = content.rstrip(":")
    metadata = {k: v for k, v in event.items() if k != "type" and v not in (None, "")}
    metadata["event"] = kind
    if target:
        metadata["target"] = target
    if reason:
        metadata["reason"] = reason
        metadata[QUOTE_FIELD] = "reason"
    episode_id = record_event(
        bank=bank,
        content=content,
        metadata=metadata,
        occurred_at=occurred_at,
        source="monitoring" if kind in {"alert", "baseline"} else "analyst",
        provenance="tool" if kind in {"alert", "baseline"} else "user",
        fold_now=fold_now,
    )
    if actor:
        audit_record(tenant=bank.tenant_id, bank=bank, action="anomaly.event",
                     target=f"episode:{episode_id}", actor=actor)  # fmt: skip
    return episode_id
