"""Engine results → API payloads (plain dicts, matching the output serializers)."""

from __future__ import annotations

from beliefs.engine.rendering import known_flags, render_prompt
from beliefs.engine.types import PackedItem, RecallResult
from beliefs.services.retain import RetainResult
from memoryhub.tokens import count_tokens


def retain_payload(result: RetainResult) -> dict:
    return {
        "batch_id": result.batch_id,
        "created": result.created,
        "duplicates": result.duplicates,
        "replayed": result.replayed,
        "items": [{"episode_id": o.episode_id, "status": o.status} for o in result.outcomes],
        "usage": {"tokens": result.tokens, "items": len(result.outcomes), "elapsed_ms": round(result.elapsed_ms, 2)},
        "redacted": result.redacted,
    }


def _item(item: PackedItem, explain: bool) -> dict:
    payload = {
        "id": f"{item.kind}:{item.item_id}",
        "kind": item.kind,
        "text": item.text,
        "tokens": item.tokens,
        "score": round(item.score, 6),
        "channels": list(item.channels),
        "untrusted": True,
        # Only known injection families leave the server (a stored column may hold anything an old import put there).
        "flags": known_flags(list(item.flags)),
        "trimmed": item.trimmed,
        "provenance": {
            "episode_ids": list(item.episode_ids) if item.kind != "episode" else [item.item_id, *item.duplicates],
            "occurred_at": item.occurred_at,
            "recorded_at": item.recorded_at,
            "source": item.source,
            "subject": item.subject,
            "provenance": item.provenance,
            "metadata": item.metadata,
        },
    }
    if explain:
        payload["explain"] = {
            "channels": {
                channel: {"rank": rank, "score": round(item.channel_scores.get(channel, 0.0), 6)}
                for channel, rank in sorted(item.channel_ranks.items())
            },
            "rerank": item.features,
            "duplicates": list(item.duplicates),
        }
    return payload


def recall_payload(result: RecallResult, *, explain: bool = False, render: str = "items") -> dict:
    payload = {
        "items": [_item(item, explain) for item in result.items],
        "budget_tokens": result.budget_tokens,
        "tokens_used": result.tokens_used,
        "candidates": result.candidates,
        "dropped_by_budget": result.dropped_by_budget,
        "trimmed": result.trimmed,
        "usage": {
            "tokens": result.tokens_used + result.query_tokens,
            "items": len(result.items),
            "elapsed_ms": round(result.elapsed_ms, 2),
            "query_tokens": result.query_tokens,
            "channels": result.channel_counts,
        },
    }
    if render == "prompt":
        prompt, tokens, included = render_prompt(
            payload["items"], budget_tokens=result.budget_tokens, count_tokens=count_tokens
        )
        payload["prompt"] = {"text": prompt, "tokens": tokens, "items": included}
    if explain:
        payload["explain"] = {
            "reference_time": result.reference_time,
            "time_ranges": [{"start": start, "end": end, "text": text} for start, end, text in result.time_ranges],
            "channel_ms": result.channel_ms,
        }
    return payload
