"""The bank policy as a form: one field per key of ``banks.policy``, checked by the API's own validation.

Fields are built from the policy's declared shape (``banks.policy._SHAPE``), so a key added
there appears here with the right input. Django fields only parse the text a browser sends
(a number, a choice, a checkbox); ranges and choices are checked by ``validate_policy``,
key by key, so the page shows every error the API would give, next to its field.

Saving writes the values that differ from the defaults and keeps everything the form does
not show (recall weights), so ``PATCH banks/{bank}/`` with the resulting policy leaves the
same row.
"""

from __future__ import annotations

import copy

from django import forms

from banks.models import Bank
from banks.policy import _SHAPE, BankPolicy, validate_policy
from memoryhub.exceptions import InvalidPolicy

# Section titles, in page order, with one line on what the section governs.
SECTIONS: dict[str, tuple[str, str]] = {
    "disposition": ("Disposition", "How readily evidence becomes belief."),
    "decay": ("Decay", "What happens to beliefs nothing reconfirms."),
    "defense": ("Memory Defense", "Secrets and personal data found at retain. Tightening re-scans what is stored."),
    "trust": (
        "Trust by provenance",
        "What text from each source may support. standard: facts are evidence unless the text is an instruction "
        "(an order, a rule, or what the memory should hold from now on); trusted: instructions count too; "
        "recall_only: nothing from it is evidence. Changing a tier re-assesses what is stored.",
    ),
    "anomaly": ("Anomaly triage", "When an alert may be suppressed on a proven-benign belief."),
    "churn": ("Churn plays", "Horizons and attribution of intervention outcomes."),
    "distillation": ("Distillation", "Whether lessons may be accepted without a person."),
    "background": ("Background work", "Extraction and consolidation for this bank."),
    "llm": ("Language model", "Optional LLM extraction and reflect answers (need MEMORYHUB_LLM_* settings)."),
}

# "section.key" -> (label, help, BankPolicy attribute holding the default)
FIELDS: dict[str, tuple[str, str, str]] = {
    "disposition.skepticism": (
        "Skepticism", "0–1. Episodes a belief needs: 1 + round(4 × skepticism); higher also moves confidence slower.",
        "skepticism"),
    "disposition.literalism": (
        "Literalism", "0–1. A hedged statement (“probably”) weighs 1 − literalism of a plain one.", "literalism"),
    "decay.horizon_days": (
        "Decay horizon (days)", "A belief not reconfirmed for this long turns stale.", "decay_horizon_days"),
    "decay.half_life_days": (
        "Half-life after the horizon (days)", "Confidence halves every this many days past the horizon.",
        "decay_half_life_days"),
    "defense.mode": (
        "Mode", "redact replaces each finding with [REDACTED:kind]; block refuses the retain; off stores as sent.",
        "defense_mode"),
    "defense.ip_addresses": (
        "IP addresses", "public: globally routable addresses are personal data, private and documentation ones "
        "are kept; all: every address; off: none.", "defense_ip_addresses"),
    "trust.user": ("User", "Text an end user or an analyst wrote (the default provenance).", "trust.user"),
    "trust.tool": ("Tool", "Output of tools and monitoring.", "trust.tool"),
    "trust.agent": ("Agent", "What the agent itself wrote.", "trust.agent"),
    "trust.imported": ("Imported", "Text brought in by an import.", "trust.imported"),
    "anomaly.suppress_threshold": (
        "Proofs needed to suppress", "Distinct supporting episodes the benign belief needs.", "suppress_threshold"),
    "anomaly.min_confidence": ("Minimum confidence", "0–1.", "suppress_min_confidence"),
    "anomaly.review": ("Review suppressions", "all, or a random sample of them.", "suppression_review"),
    "anomaly.review_sample_rate": ("Sample rate", "0–1, with review = sample.", "suppression_review_sample_rate"),
    "anomaly.value_tolerance": (
        "Value tolerance", "How far above the dismissed values an alert may be (0.1 = 10%).", "value_tolerance"),
    "anomaly.key": ("Pattern key", "What an alert's target is: host, service or both.", "anomaly_key"),
    "anomaly.contest_days": (
        "Days without suppression after a contest", "0 turns it off.", "contest_days"),
    "churn.horizon_days": (
        "Default horizon (days)", "30–180, for plays not in the catalogue.", "churn_horizon_days"),
    "churn.outcome_grace_days": (
        "Outcome grace (days)", "How long after a horizon closes an outcome still counts for it.",
        "outcome_grace_days"),
    "distillation.auto_accept_min_outcomes": (
        "Auto-accept with this many scored outcomes", "Empty: every lesson waits for a person.",
        "auto_accept_min_outcomes"),
    "background.paused": ("Paused", "Stop extraction and consolidation; the backlog is kept.", "background_paused"),
    "background.max_episodes_per_run": (
        "Episodes per run", "The throttle for one extraction run.", "max_episodes_per_run"),
    "llm.extract": ("Extract with the LLM", "Free text goes to the configured model.", "llm_extract"),
    "llm.reflect": (
        "Answer reflect with the LLM", "The question and the memory lines it cites go to the configured model.",
        "llm_reflect"),
    "llm.monthly_token_cap": (
        "Monthly token cap", "Empty: no cap. Past it extraction falls back to rules and reflect to a cited summary.",
        "llm_monthly_token_cap"),
}  # fmt: skip

NULLABLE = {"llm.monthly_token_cap", "distillation.auto_accept_min_outcomes"}


def field_name(dotted: str) -> str:
    return dotted.replace(".", "__")


def _default(dotted: str):
    attribute = FIELDS[dotted][2]
    if attribute.startswith("trust."):
        return BankPolicy().trust_tier(attribute.removeprefix("trust."))
    return getattr(BankPolicy(), attribute)


def _form_field(dotted: str) -> forms.Field:
    section, key = dotted.split(".")
    kind, low, high = _SHAPE[section][key]
    label, help_text, _ = FIELDS.get(dotted, (key.replace("_", " ").capitalize(), "", ""))
    common = {"label": label, "help_text": help_text}
    if kind is bool:
        return forms.BooleanField(required=False, **common)
    if isinstance(high, tuple):  # a choice ("str", or defense's "ip" that also takes true/false)
        return forms.ChoiceField(choices=[(c, c) for c in high], **common)
    attrs = {"min": low, "max": high, "step": "1" if kind is int else "any", "inputmode": "decimal"}
    field_class = forms.IntegerField if kind is int else forms.FloatField
    return field_class(required=dotted not in NULLABLE, widget=forms.NumberInput(attrs=attrs), **common)


def _stored(policy: dict, dotted: str):
    """The value the form starts from: the stored one, else the default; 90 rather than 90.0."""
    section, key = dotted.split(".")
    value = (policy.get(section) or {}).get(key)
    if value is None:
        value = _default(dotted) if dotted in FIELDS else None
    if _SHAPE[section][key][0] == "ip" and isinstance(value, bool):  # legacy true/false for IP addresses
        return "all" if value else "off"
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def policy_keys() -> list[str]:
    """Every policy key the form shows, grouped by section in page order."""
    ordered = [s for s in SECTIONS if s in _SHAPE] + [s for s in _SHAPE if s not in SECTIONS]
    return [f"{section}.{key}" for section in ordered for key in _SHAPE[section]]


class BankSettingsForm(forms.Form):
    """Name, description, background and every policy key of one bank."""

    name = forms.CharField(max_length=200)
    description = forms.CharField(max_length=10000, required=False, widget=forms.Textarea(attrs={"rows": 2}))
    background = forms.CharField(
        max_length=20000,
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="Standing context about what this bank holds.",
    )

    def __init__(self, *args, bank: Bank, **kwargs):
        self.bank = bank
        stored = bank.policy if isinstance(bank.policy, dict) else {}
        initial = {"name": bank.name, "description": bank.description, "background": bank.background}
        for dotted in policy_keys():
            initial[field_name(dotted)] = _stored(stored, dotted)
        super().__init__(*args, initial=initial, **kwargs)
        for dotted in policy_keys():
            self.fields[field_name(dotted)] = _form_field(dotted)

    def sections(self) -> list[dict]:
        """``[{"key", "title", "help", "fields": [bound fields]}]`` for the template."""
        groups: dict[str, dict] = {}
        for dotted in policy_keys():
            section = dotted.split(".")[0]
            title, help_text = SECTIONS.get(section, (section.capitalize(), ""))
            group = groups.setdefault(section, {"key": section, "title": title, "help": help_text, "fields": []})
            group["fields"].append(self[field_name(dotted)])
        return list(groups.values())

    def clean(self):
        data = super().clean()
        for dotted in policy_keys():
            name = field_name(dotted)
            if name not in data or (data[name] is None and dotted in NULLABLE):
                continue
            section, key = dotted.split(".")
            try:  # the API's validation, one key at a time, so every bad field gets its own message
                validate_policy({section: {key: data[name]}})
            except InvalidPolicy as exc:
                self.add_error(name, f"{dotted} {exc.extra.get('reason', 'is not valid')}.")
        if not self.errors:
            try:
                validate_policy(self.policy())
            except InvalidPolicy as exc:
                raise forms.ValidationError(f"{exc.extra.get('field')}: {exc.extra.get('reason')}.") from exc
        return data

    def policy(self) -> dict:
        """The bank's policy document with the form's values: defaults left out, unknown keys kept."""
        document = copy.deepcopy(self.bank.policy if isinstance(self.bank.policy, dict) else {})
        for dotted in policy_keys():
            section, key = dotted.split(".")
            value = self.cleaned_data.get(field_name(dotted))
            target = document.setdefault(section, {})
            if value is None or (dotted in FIELDS and value == _default(dotted) and key not in target):
                target.pop(key, None)
            else:
                target[key] = value
            if not target:
                document.pop(section)
        return document

    def changes(self) -> dict:
        """Only what differs from the stored bank, as ``bank_settings_change`` takes it."""
        changed = {}
        for name in ("name", "description", "background"):
            if self.cleaned_data[name] != getattr(self.bank, name):
                changed[name] = self.cleaned_data[name]
        policy = self.policy()
        if policy != (self.bank.policy or {}):
            changed["policy"] = policy
        return changed
