"""What a simulated agent sends: the load run's three calls, shared by the locust file and ``route_cost.py``.

Plain data (path, JSON body) so a caller without locust (and its gevent patching) can send the same requests.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime

QUESTIONS = [
    "disk latency alerts on {host} during backups",
    "why did {service} degrade last week",
    "is ReplicaLag on {host} known to be benign?",
    "which plays worked for accounts like {acct}",
    "deploys of {service} that were rolled back",
    "support conversations about SSO",
]
HOSTS = [f"db-{n:02d}" for n in range(1, 18)] + [f"web-{n:02d}" for n in range(1, 18)]
SERVICES = ["checkout", "billing", "search", "auth", "payments"]
ACCOUNTS = ["acme-corp", "globex-labs", "initech-group", "hooli-retail"]

RETAIN = "retain (10 items)"
RECALL = "recall (budget 512)"
BELIEFS = "beliefs (list)"
# How often an agent makes each call, relative to the others.
MIX = {RETAIN: 2, RECALL: 5, BELIEFS: 3}


def retain_call(rng: random.Random, bank: str, agent: str) -> tuple[str, dict]:
    now = datetime.now(UTC).isoformat()
    items = [
        {
            "content": f"{agent} observed {rng.choice(SERVICES)} on {rng.choice(HOSTS)}: "
            f"latency {rng.randint(50, 900)} ms (note {rng.random():.6f}).",
            "occurred_at": now,
            "source": "agent",
            "provenance": "agent",
        }
        for _ in range(10)
    ]
    return f"/api/v1/banks/{bank}/retain", {"items": items}


def recall_call(rng: random.Random, bank: str) -> tuple[str, dict]:
    question = rng.choice(QUESTIONS).format(
        host=rng.choice(HOSTS), service=rng.choice(SERVICES), acct=rng.choice(ACCOUNTS)
    )
    return f"/api/v1/banks/{bank}/recall", {"query": question, "budget_tokens": 512}


def beliefs_path(bank: str) -> str:
    return f"/api/v1/banks/{bank}/beliefs/?limit=20"
