"""A bank's policy, read in one place with documented defaults.

``Bank.policy`` is a JSON object; every key is optional. This module turns it into a
typed, validated ``BankPolicy`` so services never read raw JSON:

- ``disposition.skepticism`` (0–1, default 0.25): how much evidence a belief needs
  before it forms (``1 + round(4 × skepticism)`` distinct supporting episodes) and how
  slowly confidence moves (the prior ``k = 0.5 + 2 × skepticism`` in the confidence rule).
- ``disposition.literalism`` (0–1, default 0.5): how much hedged statements ("probably",
  "I think") count — each weighs ``1 − literalism`` of a plain statement.
- ``decay.horizon_days`` (default 90) and ``decay.half_life_days`` (default 30): a belief
  not reconfirmed within the horizon turns stale and its confidence halves every
  half-life after it.
- ``background.paused`` (default false) and ``background.max_episodes_per_run`` (default
  2000): stop or throttle extraction and consolidation for this bank.
- ``llm.extract`` (default false), ``llm.reflect`` (default false) and ``llm.monthly_token_cap``
  (default none): send episode text to the configured LLM for extraction, send the question
  and the memory lines it cites to it for ``reflect``'s wording, and stop both once the bank
  spent the cap this month. With both off no bank memory leaves for the LLM provider.
- ``defense.mode`` (``off``, ``redact`` — the default — or ``block``) and
  ``defense.ip_addresses`` (``off``, ``public`` — the default — or ``all``; ``true``/``false`` mean
  ``all``/``off``): Memory Defense at retain. By default globally routable addresses, which can
  identify a person's connection, are treated as personal data, while private, loopback,
  link-local and documentation addresses (the hosts an operations memory talks about) are kept.
- ``anomaly.suppress_threshold`` (default 3 distinct proofs), ``anomaly.min_confidence`` (0.6),
  ``anomaly.review`` (``all`` or ``sample`` at ``anomaly.review_sample_rate``, 0.2) and
  ``anomaly.value_tolerance`` (0.1: how far above the dismissed values an alert may be),
  ``anomaly.key`` (what a pattern is: ``host``, ``service`` or — the default — ``both``; an alert
  naming only one of them is keyed on that one) and ``anomaly.contest_days`` (30: no suppression
  for this long after an analyst contested the pattern or confirmed it genuine; 0 turns it off).
- ``churn.horizon_days`` (30–180, default 75: the horizon of a play not in the bank's catalogue),
  ``churn.outcome_grace_days`` (0–365, default 30: how long after a horizon closes an outcome is
  still attributed to it) and ``distillation.auto_accept_min_outcomes`` (default none: every
  lesson waits for a person).
- ``trust.user``, ``trust.tool``, ``trust.agent``, ``trust.imported`` (each ``trusted``, ``standard`` — the
  default for all four — or ``recall_only``): what text from each provenance may support. ``standard``: its
  facts are evidence for beliefs (and so for mental-model answers, suppressions and lessons) unless the text is
  instruction-shaped — an order or a rule, or an instruction about what the memory should hold from now on
  (``beliefs.defense.directives``) —; such text is kept and recalled, fenced, but supports nothing.
  ``trusted``: its facts are evidence even when phrased as instructions (a bank's own configuration tool, say).
  ``recall_only``: nothing from it is evidence. Text with prompt-injection markers supports nothing whatever the
  tier until an admin releases it.
- ``channel_weights``/``rerank_weights``: recall tuning (see ``beliefs.services.recall``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from memoryhub.exceptions import InvalidPolicy

PROVENANCES = ("user", "tool", "agent", "imported")
TRUST_TIERS = ("trusted", "standard", "recall_only")


@dataclass(frozen=True)
class BankPolicy:
    skepticism: float = 0.25
    literalism: float = 0.5
    decay_horizon_days: float = 90.0
    decay_half_life_days: float = 30.0
    background_paused: bool = False
    max_episodes_per_run: int = 2000
    llm_extract: bool = False
    llm_reflect: bool = False
    llm_monthly_token_cap: int | None = None
    defense_mode: str = "redact"
    defense_ip_addresses: str = "public"
    suppress_threshold: int = 3
    suppress_min_confidence: float = 0.6
    suppression_review: str = "all"
    suppression_review_sample_rate: float = 0.2
    value_tolerance: float = 0.1
    anomaly_key: str = "both"
    contest_days: float = 30.0
    churn_horizon_days: int = 75
    outcome_grace_days: int = 30
    auto_accept_min_outcomes: int | None = None
    trust: dict = field(default_factory=lambda: dict.fromkeys(PROVENANCES, "standard"))

    def trust_tier(self, provenance: str) -> str:
        """The tier of a provenance (``trusted``, ``standard`` or ``recall_only``); unknown ones are ``standard``."""
        return self.trust.get(provenance, "standard")

    @property
    def min_support(self) -> int:
        """Distinct supporting episodes a belief needs before it forms."""
        return 1 + round(4 * self.skepticism)

    @property
    def prior_strength(self) -> float:
        """The ``k`` in ``support / (support + contradiction + k)``: larger moves slower."""
        return 0.5 + 2 * self.skepticism

    @property
    def hedged_weight(self) -> float:
        return 1.0 - self.literalism


_SHAPE = {
    "disposition": {"skepticism": (float, 0.0, 1.0), "literalism": (float, 0.0, 1.0)},
    "decay": {"horizon_days": (float, 1.0, 3650.0), "half_life_days": (float, 1.0, 3650.0)},
    "background": {"paused": (bool, None, None), "max_episodes_per_run": (int, 10, 100000)},
    "llm": {"extract": (bool, None, None), "reflect": (bool, None, None), "monthly_token_cap": (int, 0, 10**12)},
    "defense": {
        "mode": (str, None, ("off", "redact", "block")),
        "ip_addresses": ("ip", None, ("off", "public", "all")),
    },
    "anomaly": {
        "suppress_threshold": (int, 1, 1000),
        "min_confidence": (float, 0.0, 1.0),
        "review": (str, None, ("all", "sample")),
        "review_sample_rate": (float, 0.0, 1.0),
        "value_tolerance": (float, 0.0, 10.0),
        "key": (str, None, ("host", "service", "both")),
        "contest_days": (float, 0.0, 365.0),
    },
    "churn": {"horizon_days": (int, 30, 180), "outcome_grace_days": (int, 0, 365)},
    "distillation": {"auto_accept_min_outcomes": (int, 1, 100000)},
    "trust": dict.fromkeys(PROVENANCES, (str, None, TRUST_TIERS)),
}
_OPEN_KEYS = {"channel_weights", "rerank_weights"}


def validate_policy(policy: dict) -> dict:
    """Check a policy document's shape and ranges; raise ``InvalidPolicy`` naming the first bad key."""
    if not isinstance(policy, dict):
        raise InvalidPolicy(extra={"field": "policy", "reason": "must be an object"})
    for section, value in policy.items():
        if section in _OPEN_KEYS:
            continue
        if section not in _SHAPE:
            raise InvalidPolicy(extra={"field": section, "reason": "unknown policy section"})
        if not isinstance(value, dict):
            raise InvalidPolicy(extra={"field": section, "reason": "must be an object"})
        for key, item in value.items():
            if key not in _SHAPE[section]:
                raise InvalidPolicy(extra={"field": f"{section}.{key}", "reason": "unknown key"})
            kind, low, high = _SHAPE[section][key]
            _check(f"{section}.{key}", item, kind, low, high)
    return policy


def _check(name: str, value, kind, low, high) -> None:
    if kind == "ip":
        if not isinstance(value, bool) and value not in high:
            raise InvalidPolicy(extra={"field": name, "reason": "must be true, false, off, public or all"})
        return
    if kind is str:
        if value not in high:
            raise InvalidPolicy(extra={"field": name, "reason": f"must be one of {', '.join(high)}"})
        return
    if kind is bool:
        if not isinstance(value, bool):
            raise InvalidPolicy(extra={"field": name, "reason": "must be true or false"})
        return
    if value is None and name in {"llm.monthly_token_cap", "distillation.auto_accept_min_outcomes"}:
        return
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or (kind is int and not float(value).is_integer())
    ):
        raise InvalidPolicy(extra={"field": name, "reason": f"must be a{'n integer' if kind is int else ' number'}"})
    if not low <= value <= high:
        raise InvalidPolicy(extra={"field": name, "reason": f"must be between {low} and {high}"})


def bank_policy(bank) -> BankPolicy:
    """The bank's policy with defaults filled in (invalid stored values fall back to defaults)."""
    raw = bank.policy if isinstance(bank.policy, dict) else {}
    disposition = raw.get("disposition") or {}
    decay = raw.get("decay") or {}
    background = raw.get("background") or {}
    llm = raw.get("llm") or {}
    defense = raw.get("defense") or {}
    anomaly = raw.get("anomaly") or {}
    churn = raw.get("churn") or {}
    distillation = raw.get("distillation") or {}
    trust = raw.get("trust") or {}
    defaults = BankPolicy()
    try:
        validate_policy({k: v for k, v in raw.items() if k in _SHAPE})
    except InvalidPolicy:
        return defaults
    return BankPolicy(
        skepticism=float(disposition.get("skepticism", defaults.skepticism)),
        literalism=float(disposition.get("literalism", defaults.literalism)),
        decay_horizon_days=float(decay.get("horizon_days", defaults.decay_horizon_days)),
        decay_half_life_days=float(decay.get("half_life_days", defaults.decay_half_life_days)),
        background_paused=bool(background.get("paused", defaults.background_paused)),
        max_episodes_per_run=int(background.get("max_episodes_per_run", defaults.max_episodes_per_run)),
        llm_extract=bool(llm.get("extract", defaults.llm_extract)),
        llm_reflect=bool(llm.get("reflect", defaults.llm_reflect)),
        llm_monthly_token_cap=llm.get("monthly_token_cap", defaults.llm_monthly_token_cap),
        defense_mode=defense.get("mode", defaults.defense_mode),
        defense_ip_addresses=_ip_mode(defense.get("ip_addresses", defaults.defense_ip_addresses)),
        suppress_threshold=int(anomaly.get("suppress_threshold", defaults.suppress_threshold)),
        suppress_min_confidence=float(anomaly.get("min_confidence", defaults.suppress_min_confidence)),
        suppression_review=anomaly.get("review", defaults.suppression_review),
        suppression_review_sample_rate=float(
            anomaly.get("review_sample_rate", defaults.suppression_review_sample_rate)
        ),
        value_tolerance=float(anomaly.get("value_tolerance", defaults.value_tolerance)),
        anomaly_key=anomaly.get("key", defaults.anomaly_key),
        contest_days=float(anomaly.get("contest_days", defaults.contest_days)),
        churn_horizon_days=int(churn.get("horizon_days", defaults.churn_horizon_days)),
        outcome_grace_days=int(churn.get("outcome_grace_days", defaults.outcome_grace_days)),
        auto_accept_min_outcomes=distillation.get("auto_accept_min_outcomes"),
        trust={provenance: trust.get(provenance, "standard") for provenance in PROVENANCES},
    )


def _ip_mode(value) -> str:
    return "all" if value is True else "off" if value is False else value


_IP_COVERAGE = {"off": 0, "public": 1, "all": 2}


def trust_changed(before: BankPolicy, after: BankPolicy) -> bool:
    """Whether a provenance moved to another trust tier (what its stored facts may support must be re-assessed)."""
    return before.trust != after.trust


def defense_tightened(before: BankPolicy, after: BankPolicy) -> bool:
    """Whether stored data must be re-scanned: defense switched on, or more IP addresses covered."""
    switched_on = before.defense_mode == "off" and after.defense_mode != "off"
    ips_added = after.defense_mode != "off" and (
        _IP_COVERAGE[after.defense_ip_addresses] > _IP_COVERAGE[before.defense_ip_addresses]
    )
    return switched_on or ips_added
