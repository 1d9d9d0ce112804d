"""The load benchmark's paced agents call at their own phase of the cycle, not all in the same instant.

Locust monkey-patches the standard library with gevent when imported, so the locust file runs in a
subprocess of its own.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = r"""
import json, time
from types import SimpleNamespace
import locustfile

agents = []
for _ in range(6):
    agent = SimpleNamespace(client=SimpleNamespace(headers={}))
    started = time.perf_counter()
    locustfile.Agent.on_start(agent)            # sleeps this agent's random phase
    phase = time.perf_counter() - started
    time.sleep(0.02)                            # its first call
    wait = locustfile.Agent.wait_time(agent)
    next_call = time.perf_counter() + wait - started
    agents.append({"phase": phase, "next_call": next_call})
late = SimpleNamespace(_due=time.perf_counter() - 5)  # a call that ran 5 s over its cycle
agents.append({"late_wait": locustfile.Agent.wait_time(late)})
print(json.dumps(agents))
"""


def test_a_paced_agent_keeps_its_phase_after_the_first_call():
    env = {
        **os.environ,
        "MEMORYHUB_LOAD_RATE": "2",  # one call every 0.5 s per agent
        "MEMORYHUB_LOAD_TARGETS": json.dumps([["bank", "key"]]),
        "PYTHONPATH": str(ROOT / "benchmarks" / "load"),
    }
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, check=True, timeout=120
    ).stdout
    *agents, late = json.loads(out.strip().splitlines()[-1])
    phases = [a["phase"] for a in agents]
    assert max(phases) - min(phases) > 0.1, phases  # the agents start at different points of the cycle
    for agent in agents:
        # The second call comes one cycle after the first, which came after the phase: the phase is kept.
        # (Counting the cycle from the agent's creation would put every second call at 0.5 s.)
        assert abs(agent["next_call"] - (agent["phase"] + 0.5)) < 0.05, agent
    assert late["late_wait"] == 0  # an overrun call is followed at once, not by a catch-up burst later
