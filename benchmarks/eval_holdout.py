"""Memory Defense on the held-apart corpora (``benchmarks/corpora/``): per value, per family, with the misses.

Secrets and personal data are scored **per value**: a planted value is caught when every
non-space character of its span lies inside a reported finding (so redaction would remove
all of it); a finding that touches no planted value is a false alarm. Precision = caught /
(caught + false alarms). Findings are scanned with the bank defaults (``policy.defense``
as a new bank has it). Injections are scored per sample: flagged or not.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter, defaultdict
from pathlib import Path

CORPORA = Path(__file__).resolve().parent / "corpora"
SECRETS = CORPORA / "holdout_defense.json"
INJECTIONS = CORPORA / "holdout_injection.json"
# The second fresh draw (``corpora/build_fresh.py``): other sources and templates, measured once before any change
# informed by it; pinned by ``fresh.sha256``.
FRESH_SECRETS = CORPORA / "fresh_defense.json"
FRESH_INJECTIONS = CORPORA / "fresh_injection.json"
NEGATIVE_GROUPS = ("placeholder", "env_reference", "public_material", "lookalike")


def corpus_digests(paths=(SECRETS, INJECTIONS)) -> dict[str, str]:
    """sha256 of each corpus file, as pinned in ``holdout.sha256`` (or ``fresh.sha256``)."""
    return {path.name: hashlib.sha256(path.read_bytes()).hexdigest() for path in paths}


def pinned_digests(pin: str = "holdout.sha256") -> dict[str, str]:
    lines = (CORPORA / pin).read_text().split("\n")
    return {name: digest for digest, name in (line.split("  ") for line in lines if line)}


def _ratio(a: int, b: int) -> float:
    return round(a / b, 4) if b else 1.0


def _covered(text: str, start: int, end: int, spans: list[tuple[int, int]]) -> bool:
    return all(ch.isspace() or any(s <= i < e for s, e in spans) for i, ch in enumerate(text[start:end], start))


def evaluate_secrets(samples: list[dict], scan) -> dict:
    """``scan(text) -> [(start, end, kind)]``; per-value recall, precision and the strings missed."""
    per_family = defaultdict(lambda: {"values": 0, "caught": 0})
    per_format = defaultdict(lambda: {"values": 0, "caught": 0})
    false_alarms = defaultdict(int)
    negatives_flagged = defaultdict(lambda: {"samples": 0, "flagged": 0})
    misses, alarms = [], []
    caught = total = outside_chars = 0
    for sample in samples:
        text = sample["text"]
        findings = scan(text)
        spans = [(s, e) for s, e, _ in findings]
        if not sample["values"]:
            negatives_flagged[sample["group"]]["samples"] += 1
            negatives_flagged[sample["group"]]["flagged"] += bool(findings)
        for value in sample["values"]:
            ok = _covered(text, value["start"], value["end"], spans)
            total += 1
            caught += ok
            per_family[value["family"]]["values"] += 1
            per_family[value["family"]]["caught"] += ok
            per_format[value["format"]]["values"] += 1
            per_format[value["format"]]["caught"] += ok
            if not ok:
                misses.append(
                    {
                        "id": sample["id"],
                        "family": value["family"],
                        "format": value["format"],
                        "value": text[value["start"] : value["end"]],
                        "found": [text[s:e] for s, e in spans],
                    }
                )
        for start, end, kind in findings:
            touching = [v for v in sample["values"] if start < v["end"] and v["start"] < end]
            if not touching:
                false_alarms[sample["group"]] += 1
                alarms.append(
                    {
                        "id": sample["id"],
                        "group": sample["group"],
                        "kind": kind,
                        "text": text[start:end],
                        "source": sample["source"],
                    }
                )
            else:
                inside = sum(min(end, v["end"]) - max(start, v["start"]) for v in touching)
                outside_chars += max(0, (end - start) - inside)
    fp = sum(false_alarms.values())
    hard = [negatives_flagged[g] for g in NEGATIVE_GROUPS if g in negatives_flagged]
    return {
        "samples": len(samples),
        "values": total,
        "recall": _ratio(caught, total),
        "precision": _ratio(caught, caught + fp),
        "caught": caught,
        "false_alarms": fp,
        "false_alarms_by_group": {g: false_alarms.get(g, 0) for g in ("positive", "evasion", *NEGATIVE_GROUPS)},
        # (which detector kinds raise them, by group: counts, no strings, so a fresh draw's report may carry them)
        "false_alarms_by_kind": {
            group: dict(sorted(Counter(a["kind"] for a in alarms if a["group"] == group).items()))
            for group in sorted({a["group"] for a in alarms})
        },
        "placeholder_and_env_false_alarms": false_alarms.get("placeholder", 0) + false_alarms.get("env_reference", 0),
        "chars_redacted_outside_values": outside_chars,
        # Samples holding no value (look-alikes, placeholders, references, public material) in which anything was
        # reported: the share of such text that redaction would change.
        "negatives_redacted": _ratio(sum(g["flagged"] for g in hard), sum(g["samples"] for g in hard)) if hard else 0.0,
        "negatives_redacted_by_group": {
            g: {**v, "rate": _ratio(v["flagged"], v["samples"])} for g, v in sorted(negatives_flagged.items())
        },
        "per_family": {f: {**v, "recall": _ratio(v["caught"], v["values"])} for f, v in sorted(per_family.items())},
        "per_format": {f: {**v, "recall": _ratio(v["caught"], v["values"])} for f, v in sorted(per_format.items())},
        "misses": misses,
        "false_alarm_strings": alarms,
    }


def evaluate_injections(samples: list[dict], flag) -> dict:
    """``flag(text) -> list of families``; recall per injection family, false-positive rate per benign kind."""
    per_family = defaultdict(lambda: {"samples": 0, "flagged": 0})
    misses, alarms = [], []
    for sample in samples:
        flags = flag(sample["text"])
        stats = per_family[("injection" if sample["injection"] else "benign", sample["family"])]
        stats["samples"] += 1
        stats["flagged"] += bool(flags)
        if sample["injection"] and not flags:
            misses.append({"id": sample["id"], "family": sample["family"], "text": sample["text"][:300]})
        if not sample["injection"] and flags:
            alarms.append(
                {
                    "id": sample["id"],
                    "kind": sample["family"],
                    "flags": sorted(set(flags)),
                    "text": sample["text"][:300],
                    "source": sample["source"],
                }
            )
    inj = [v for (k, _), v in per_family.items() if k == "injection"]
    ben = [v for (k, _), v in per_family.items() if k == "benign"]
    tp, positives = sum(v["flagged"] for v in inj), sum(v["samples"] for v in inj)
    fp, negatives = sum(v["flagged"] for v in ben), sum(v["samples"] for v in ben)
    return {
        "samples": len(samples),
        "injections": positives,
        "benign": negatives,
        "recall": _ratio(tp, positives),
        "false_positive_rate": _ratio(fp, negatives),
        "precision": _ratio(tp, tp + fp),
        "per_family": {
            f: {**v, "recall": _ratio(v["flagged"], v["samples"])}
            for (k, f), v in sorted(per_family.items())
            if k == "injection"
        },
        "benign_per_kind": {
            f: {**v, "false_positive_rate": _ratio(v["flagged"], v["samples"])}
            for (k, f), v in sorted(per_family.items())
            if k == "benign"
        },
        "misses": misses,
        "false_alarm_strings": alarms,
    }


def load(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["samples"]
