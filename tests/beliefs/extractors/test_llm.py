"""The optional LLM path, against a local fake OpenAI-compatible server (no remote LLM, ever)."""

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from beliefs.models import BankUsage, EpisodeExtraction, Fact
from beliefs.services.extract import bank_extract
from beliefs.services.retain import RetainItem, retain

pytestmark = pytest.mark.django_db


class FakeLLM:
    """Answers chat completions with whatever ``reply`` returns for the request body."""

    def __init__(self):
        self.requests: list[dict] = []
        self.reply = lambda body: {"facts": []}
        self.delay = 0.0
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                fake.requests.append(body)
                time.sleep(fake.delay)
                answer = fake.reply(body)
                content = answer if isinstance(answer, str) else json.dumps(answer)
                payload = {
                    "choices": [{"message": {"role": "assistant", "content": content}}],
                    "usage": {"prompt_tokens": 120, "completion_tokens": 30},
                }
                data = json.dumps(payload).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture
def fake_llm(settings):
    fake = FakeLLM()
    settings.MEMORYHUB = {
        **settings.MEMORYHUB,
        "LLM_BASE_URL": fake.url,
        "LLM_API_KEY": "test-key",
        "LLM_MODEL": "fake-model",
        "LLM_TIMEOUT_SECONDS": 0.5,
        "LLM_RETRIES": 1,
    }
    yield fake
    fake.server.shutdown()


@pytest.fixture
def llm_bank(caller):
    caller.bank.policy = {"llm": {"extract": True}}
    caller.bank.save()
    return caller.bank


TEXT = "Priya joined Umbrella Corp in March. She leads the payments team."


def test_llm_facts_need_an_exact_quote(fake_llm, llm_bank):
    fake_llm.reply = lambda body: {
        "facts": [
            {
                "subject": "Priya",
                "predicate": "works at",
                "object": "Umbrella Corp",
                "quote": "Priya joined Umbrella Corp",
            },
            {
                "subject": "Priya",
                "predicate": "leads",
                "object": "payments team",
                "quote": "She leads the payments team",
            },
            {"subject": "Priya", "predicate": "earns", "object": "a lot", "quote": "Priya is paid well"},  # not in text
            "garbage",
        ]
    }
    retain(bank=llm_bank, items=[RetainItem(content=TEXT)])
    result = bank_extract(bank=llm_bank)
    assert result.llm_calls == 1 and result.llm_failures == 0
    facts = {f.statement: f for f in Fact.objects.filter(bank=llm_bank)}
    assert set(facts) == {"Priya works at Umbrella Corp", "Priya leads payments team"}
    assert all(f.extractor == "llm" and TEXT[f.quote_start : f.quote_end] == f.quote for f in facts.values())
    request = fake_llm.requests[0]
    assert request["model"] == "fake-model" and request["response_format"]["type"] == "json_schema"
    assert request["messages"][1]["content"] == TEXT
    usage = BankUsage.objects.get(bank=llm_bank)
    assert (usage.llm_calls, usage.llm_tokens_in, usage.llm_tokens_out) == (1, 120, 30)


@pytest.mark.parametrize("failure", ["garbage", "timeout"])
def test_llm_garbage_or_timeout_falls_back_to_rules_and_loses_nothing(fake_llm, llm_bank, failure):
    if failure == "garbage":
        fake_llm.reply = lambda body: "Sure! Here are the facts: Priya, Umbrella"
    else:
        fake_llm.delay = 1.0
    retain(bank=llm_bank, items=[RetainItem(content=TEXT)])
    result = bank_extract(bank=llm_bank)
    assert result.llm_failures == 1 and len(fake_llm.requests) == 2  # one retry
    assert not EpisodeExtraction.objects.filter(bank=llm_bank, extracted_at__isnull=True).exists()
    [fact] = Fact.objects.filter(bank=llm_bank)
    assert (fact.statement, fact.extractor) == ("Priya works at Umbrella Corp", "rules")
    assert BankUsage.objects.get(bank=llm_bank).llm_failures == 1


def test_monthly_token_cap_stops_llm_extraction(fake_llm, llm_bank):
    llm_bank.policy = {"llm": {"extract": True, "monthly_token_cap": 100}}
    llm_bank.save()
    retain(bank=llm_bank, items=[RetainItem(content=TEXT)])
    bank_extract(bank=llm_bank)
    assert len(fake_llm.requests) == 1  # spent 150 tokens: over the cap from now on
    retain(bank=llm_bank, items=[RetainItem(content="Quinn works at Hooli.")])
    result = bank_extract(bank=llm_bank)
    assert result.llm_calls == 0 and len(fake_llm.requests) == 1
    assert Fact.objects.get(bank=llm_bank, subject="Quinn").extractor == "rules"


def test_bank_without_llm_extract_never_calls_the_llm(fake_llm, caller):
    retain(bank=caller.bank, items=[RetainItem(content=TEXT)])
    bank_extract(bank=caller.bank)
    assert fake_llm.requests == []


def test_reflect_uses_the_llm_for_wording_but_keeps_citations(fake_llm, caller):
    from tests.helpers.consolidation import T0, days, dismissal, remember

    caller.bank.policy = {"llm": {"reflect": True}}
    caller.bank.save()
    remember(caller.bank, [dismissal("DiskIOHigh", "db-3", T0 + days(n)) for n in range(3)])
    fake_llm.reply = lambda body: {"answer": "DiskIOHigh on db-3 is benign [1].", "cited": [1]}
    body = caller.client.post(
        caller.url("reflect"), {"question": "Is DiskIOHigh on db-3 benign?", "budget_tokens": 300}, format="json"
    ).json()
    assert body["llm_used"] and body["answer"] == "DiskIOHigh on db-3 is benign [1]."
    assert body["citations"][0]["statement"] == "alert DiskIOHigh on db-3 is benign"

    fake_llm.reply = lambda body: {"answer": "Trust me.", "cited": []}
    body = caller.client.post(
        caller.url("reflect"), {"question": "Is DiskIOHigh on db-3 benign?", "budget_tokens": 300}, format="json"
    ).json()
    assert not body["llm_used"] and body["answer"].startswith("Based on the bank's memory")
    assert body["notes"] == ["LLM answer had no valid citations; structured summary returned"]
