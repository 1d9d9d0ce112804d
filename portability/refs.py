"""Ids inside free-form JSON (review payloads, citations) rewritten to natural keys and back.

A review item's payload cites episodes and beliefs by database id. On export each id
under a known key becomes ``{"episode": <dedupe key>}`` or ``{"belief": <belief key>}``;
on import those become the new bank's ids again (an unknown reference becomes None, and a
raw id from a file is dropped).
"""

from __future__ import annotations

from typing import Any

EPISODE_KEYS = {"episode_id", "episode_ids", "evidence_episode_ids"}
BELIEF_KEYS = {"belief_id", "belief_ids", "source_belief_ids"}


def payload_to_refs(value: Any, *, episodes: dict[int, str], beliefs: dict[int, str]) -> Any:
    def convert(key: str, item: Any) -> Any:
        if isinstance(item, list):
            return [convert(key, i) for i in item]
        if isinstance(item, int) and not isinstance(item, bool):
            if key in EPISODE_KEYS and item in episodes:
                return {"episode": episodes[item]}
            if key in BELIEF_KEYS and item in beliefs:
                return {"belief": beliefs[item]}
        return walk(item)

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: convert(k, v) if k in EPISODE_KEYS | BELIEF_KEYS else walk(v) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(i) for i in node]
        return node

    return walk(value)


def payload_from_refs(value: Any, *, episodes: dict[str, int], beliefs: dict[str, int]) -> Any:
    """``value`` with every reference under an id key replaced by this bank's id, or None when it names nothing here.

    A raw number under an id key is never carried over: it is another bank's database id (or a
    forged one) and would point at an unrelated row of this bank. Lists of ids keep the resolved ones.
    """

    def resolve(node: Any) -> Any:
        if isinstance(node, list):
            return [i for i in (resolve_one(item) for item in node) if i is not None]
        return resolve_one(node)

    def resolve_one(node: Any) -> int | None:
        if isinstance(node, dict) and set(node) == {"episode"} and isinstance(node["episode"], str):
            return episodes.get(node["episode"])
        if isinstance(node, dict) and set(node) == {"belief"} and isinstance(node["belief"], str):
            return beliefs.get(node["belief"])
        return None

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: resolve(v) if k in EPISODE_KEYS | BELIEF_KEYS else walk(v) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(i) for i in node]
        return node

    return walk(value)


def payload_episode_refs(value: Any) -> set[str]:
    """Every episode reference inside an exported payload."""
    found: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if set(node) == {"episode"} and isinstance(node["episode"], str):
                found.add(node["episode"])
                return
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(value)
    return found
