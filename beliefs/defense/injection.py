"""Prompt-injection markers in retained text (no model can judge this offline; these are heuristics).

Each rule names a reason. A flagged episode is still stored and recallable — it is the
agent's memory — but its facts are quarantined from belief formation until someone
releases it, and recall shows the reasons next to the text.
"""

from __future__ import annotations

import re

_HIDDEN = re.compile("[\u200b-\u200f\u2060-\u2064\ufeff\u202a-\u202e\u2066-\u2069\U000e0000-\U000e007f]")
RULES: list[tuple[str, re.Pattern]] = [
    (
        "override_instructions",
        re.compile(
            r"\b(?:ignore|disregard|forget|override|bypass|skip)\b[^.\n]{0,40}?\b(?:previous|prior|above|earlier|all|any|"
            r"your|the|system|original)\b[^.\n]{0,20}?\b(?:instructions?|rules|prompts?|guidelines|directions|context|"
            r"guardrails|polic(?:y|ies))\b",
            re.I,
        ),
    ),
    (
        "role_reassignment",
        re.compile(
            r"\b(?:you are now (?:an?|the|in|my) |you are now (?-i:[A-Z]{2,})\b|from now on,? you\b|"
            r"act as (?:an? )?(?:unrestricted|unfiltered|jailbroken|evil|dan\b)|pretend (?:to be|you are)\b|"
            r"new (?:system )?instructions?:|developer mode\b|this is a jailbreak|jailbroken|jailbreak mode|"
            r"do anything now\b)",
            re.I,
        ),
    ),
    (
        "fake_role_marker",
        re.compile(
            r"(?:^|\n)\s*(?:system|assistant|developer)\s*:\s|<\|(?:im_start|im_end|system|endoftext)\|>|\[/?INST\]|"
            r"<<SYS>>|</?system>|^#{2,}\s*(?:system|instruction)s?\b",
            re.I | re.M,
        ),
    ),
    (
        "tool_call_syntax",
        re.compile(
            r"<\/?(?:tool_call|function_call|tool_use|invoke)\b|\"(?:tool_calls?|function_call)\"\s*:|"
            r"<function=|```(?:tool|function)_?call|\bcall the \w+ tool\b",
            re.I,
        ),
    ),
    (
        "secret_exfiltration",
        re.compile(
            r"\b(?:reveal|print|output|repeat|show|leak|send|tell me)\b[^.\n]{0,30}\b(?:system prompt|instructions|"
            r"api[ _-]?keys?|passwords?|secrets?|credentials|tokens?)\b",
            re.I,
        ),
    ),
    (
        "exfiltration_url",
        re.compile(
            r"!\[[^\]]*\]\(https?://[^)\s]+\?[^)\s]*=|https?://[^\s]*(?:webhook\.site|requestbin|ngrok|pipedream|"
            r"burpcollaborator|interact\.sh)[^\s]*|https?://[^\s]+[?&](?:data|q|payload|secret|token|leak)=\{?\{",
            re.I,
        ),
    ),
]


def injection_reasons(text: str) -> list[str]:
    """Why ``text`` looks like an attempt to instruct the model that reads it (empty when it does not)."""
    reasons = [name for name, pattern in RULES if pattern.search(text)]
    if _HIDDEN.search(text):
        reasons.append("hidden_unicode")
    return reasons


def strip_hidden(text: str) -> str:
    return _HIDDEN.sub("", text)
