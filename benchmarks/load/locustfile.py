"""Agents using MemoryHub: retain batches of 10, recall under a 512-token budget, read beliefs.

Run by ``benchmarks/load/run_load.py`` (``make load``), which starts the deployment, seeds
the banks and passes ``MEMORYHUB_LOAD_TARGETS`` (bank slug and API key pairs). Each
simulated agent works in one bank. ``MEMORYHUB_LOAD_RATE`` (requests per second per
agent) paces agents for the step sweep, each starting at a random point of its cycle;
without it they think 0.5–1.5 s between calls.

Paced agents keep a cycle of their own: each starts at a random point of its cycle and then
calls once per cycle from there. Locust's ``constant_throughput`` cannot do this: it measures
the first cycle from when the agent was created, so a phase slept in ``on_start`` is taken back
by a shorter first wait and every agent calls in the same instant from the second cycle on
(40 agents at 4 requests/s: 40 concurrent requests every 10 s and nothing in between).
"""

from __future__ import annotations

import itertools
import json
import os
import random
import sys
import time
from pathlib import Path

import gevent
from locust import HttpUser, between, task

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agent_calls import BELIEFS, MIX, RECALL, RETAIN, beliefs_path, recall_call, retain_call  # noqa: E402

TARGETS = json.loads(os.environ.get("MEMORYHUB_LOAD_TARGETS", "[]"))
RATE = float(os.environ.get("MEMORYHUB_LOAD_RATE", "0"))
_counter = itertools.count()

_think = between(0.5, 1.5)


class Agent(HttpUser):
    def wait_time(self) -> float:
        if not RATE:
            return _think(self)
        # The next call is due one cycle after the previous one was due, or now if that call ran over its cycle.
        now = time.perf_counter()
        self._due = max(self._due + 1 / RATE, now)
        return self._due - now

    def on_start(self):
        number = next(_counter)
        self.bank, key = TARGETS[number % len(TARGETS)]
        self.client.headers.update({"Authorization": f"Bearer {key}"})
        self.agent = f"agent-{number}"
        self.rng = random.Random(number)
        if RATE:
            # Paced agents all start together; without an offset every agent would call in the same instant once
            # per cycle ("1 request/s" from 40 agents: a burst of 40 concurrent requests every 40 s). A random
            # phase spreads them over the cycle, and the cycle is counted from the first call.
            gevent.sleep(self.rng.uniform(0, 1 / RATE))
            self._due = time.perf_counter()

    @task(MIX[RETAIN])
    def retain(self):
        path, body = retain_call(self.rng, self.bank, self.agent)
        self.client.post(path, json=body, name=RETAIN)

    @task(MIX[RECALL])
    def recall(self):
        path, body = recall_call(self.rng, self.bank)
        self.client.post(path, json=body, name=RECALL)

    @task(MIX[BELIEFS])
    def beliefs(self):
        self.client.get(beliefs_path(self.bank), name=BELIEFS)
