"""Training texts for the injection classifier from the AgentDojo wheel (MIT), read without importing it.

AgentDojo is a benchmark of indirect prompt injection against tool-using agents: its suites hold the data an
agent reads through tools (e-mails, calendar entries, files, hotel reviews, Slack channels, web pages, bank
statements) with named places where an attacker's text can stand, the attacker's goals per suite, and the
attack wrappers that carry a goal ("<INFORMATION> This is an important message from me, … to you, …",
"Ignore your previous instructions. Do … instead", "###(system_message) …", "TODO: …").

- Positives: every wrapper around every goal, set into one of the host texts in place of one of its
  injection places (the rest keep their ordinary default), and each wrapped goal alone.
- Negatives: every host text with its defaults, and the user tasks' requests ("Can you please pay the bill
  'bill-december-2023.txt' for me?"): ordinary requests to an assistant, which an injection classifier must
  not confuse with an instruction smuggled into data.

Neither the held-apart corpus nor the fresh draw uses AgentDojo.
"""

from __future__ import annotations

import ast
import random
import re
import string
import zipfile
from pathlib import Path

import yaml
from string_literals import render_string

USERS = ("Emma Johnson", "the user")
PLACE = re.compile(r"\{(injection_\w+|\w+_injection\w*)\}")


class _Loader(yaml.SafeLoader):
    """Reads ``!include`` as an empty mapping: the included files are read on their own."""


_Loader.add_constructor("!include", lambda loader, node: {})


def _strings(tree, env: dict[str, str]) -> dict[str, str]:
    """Class-level string constants of one class body, f-strings rendered from the ones before them."""
    out = dict(env)
    for item in tree.body:
        if isinstance(item, ast.Assign) and len(item.targets) == 1 and isinstance(item.targets[0], ast.Name):
            text = render_string(item.value, out)
            if text is not None:
                out[item.targets[0].id] = text
    return out


def _class_attribute(source: str, name: str) -> list[str]:
    module = ast.parse(source)
    env = _strings(module, {})
    found = []
    for node in module.body:
        if isinstance(node, ast.ClassDef):
            value = _strings(node, env).get(name)
            if value:
                found.append(value)
    return found


def _wrappers(read, names: list[str]) -> list[str]:
    """Attack strings with ``{goal}`` (and ``{user}``/``{model}``) slots, as the attack classes define them."""
    found = []
    for name in names:
        if not (name.startswith("agentdojo/attacks/") and name.endswith(".py")):
            continue
        tree = ast.parse(read(name))
        # (docstrings quote the attack strings and name their placeholders: text about an attack, not one)
        docs = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
        for node in ast.walk(tree):
            if id(node) in docs or not isinstance(node, (ast.Constant, ast.JoinedStr, ast.BinOp)):
                continue
            text = render_string(node, {})
            if text and _slots(text) and _slots(text) <= {"goal", "user", "model"} and text.strip() != "{goal}":
                found.append(text)
    return sorted(set(found))


def _slots(text: str) -> set[str]:
    try:
        return {field for _, field, _, _ in string.Formatter().parse(text) if field}
    except ValueError:
        return set()


def _models(read) -> list[str]:
    for node in ast.walk(ast.parse(read("agentdojo/models.py"))):
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "MODEL_NAMES":
            return sorted(set(ast.literal_eval(node.value).values())) + ["the AI language model"]
    return ["the AI language model"]


def _leaves(node) -> list[str]:
    if isinstance(node, str):
        return [node] if len(node.split()) >= 6 else []
    if isinstance(node, dict):
        return [s for v in node.values() for s in _leaves(v)]
    if isinstance(node, list):
        return [s for v in node for s in _leaves(v)]
    return []


def agentdojo_samples(wheel: Path, rng: random.Random) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(positives, negatives) as (source, text)."""
    with zipfile.ZipFile(wheel) as zf:
        names = sorted(zf.namelist())

        def read(name: str) -> str:
            return zf.read(name).decode("utf-8")

        goals = sorted(
            {g for n in names if n.endswith("/injection_tasks.py") for g in _class_attribute(read(n), "GOAL")}
        )
        prompts = sorted(
            {p for n in names if n.endswith("/user_tasks.py") for p in _class_attribute(read(n), "PROMPT")}
        )
        wrappers = _wrappers(read, names)
        models = _models(read)
        defaults: dict[str, str] = {}
        hosts: list[str] = []
        for name in names:
            if not (name.startswith("agentdojo/data/suites/") and name.endswith(".yaml")):
                continue
            data = yaml.load(read(name), Loader=_Loader)
            if name.endswith("injection_vectors.yaml"):
                defaults.update({k: str(v.get("default", "")) for k, v in data.items()})
            else:
                hosts += _leaves(data)
    hosts = sorted(set(hosts))

    def ordinary(text: str) -> str:
        return PLACE.sub(lambda m: defaults.get(m.group(1), ""), text)

    negatives = [("agentdojo:host", ordinary(h)) for h in hosts]
    negatives += [("agentdojo:user_request", p) for p in prompts]
    with_places = [h for h in hosts if PLACE.search(h)]
    positives = []
    for wrapper in wrappers:
        for goal in goals:
            attack = wrapper.format(goal=goal, user=rng.choice(USERS), model=rng.choice(models)).strip()
            positives.append(("agentdojo:attack", attack))
            host = rng.choice(with_places)
            places = [m for m in PLACE.finditer(host)]
            chosen = rng.choice(places)
            text = ordinary(host[: chosen.start()]) + "\n" + attack + "\n" + ordinary(host[chosen.end() :])
            positives.append(("agentdojo:in_host", text.strip()))
    return positives, negatives
