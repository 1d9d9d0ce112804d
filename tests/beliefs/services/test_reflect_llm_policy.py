"""``reflect`` sends bank memory to the LLM only when the bank allows it and is under its cap (review M1).

The LLM is a local fake OpenAI-compatible server that records every request it gets.
"""

from __future__ import annotations

import json

import pytest

from beliefs.models import BankUsage
from beliefs.services.llm_usage import usage_period
from tests.helpers.callers import make_caller, retain_texts
from tests.helpers.fake_openai import FakeOpenAI

pytestmark = pytest.mark.django_db

QUESTION = {"question": "everything about customer acme", "budget_tokens": 65536}
MEMORY = [
    "Customer acme renewed their contract in March for three years.",
    "Customer acme asked for a discount on the analytics add-on.",
]


def _answer(body: dict) -> str:
    return json.dumps({"answer": "Acme renewed for three years [1].", "cited": [1]})


@pytest.fixture
def llm(settings):
    with FakeOpenAI(reply=_answer) as fake:
        settings.MEMORYHUB = {
            **settings.MEMORYHUB,
            "LLM_BASE_URL": fake.url,
            "LLM_API_KEY": "test-key",
            "LLM_MODEL": "fake-model",
            "LLM_TIMEOUT_SECONDS": 2,
            "LLM_RETRIES": 0,
        }
        yield fake


def _reader(policy: dict | None = None):
    """A read-only key on a bank holding memory about acme (the review's reproduction uses a read key)."""
    owner = make_caller()
    if policy is not None:
        owner.bank.policy = policy
        owner.bank.save()
    retain_texts(owner.bank, MEMORY)
    return make_caller(bank=owner.bank, bank_scoped=True, scopes=("read",))


def _reflect(reader) -> dict:
    response = reader.client.post(reader.url("reflect"), QUESTION, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def test_reflect_with_the_default_policy_sends_nothing_to_the_llm(llm):
    reader = _reader()
    body = _reflect(reader)
    assert llm.requests == [] and body["llm_used"] is False
    assert body["supported"] is True and body["answer"].startswith("Based on the bank's memory")
    assert "acme renewed their contract" in body["answer"].lower()  # there was memory to send: none of it went
    assert not BankUsage.objects.filter(bank=reader.bank).exists()


def test_llm_extract_alone_does_not_let_reflect_use_the_llm(llm):
    reader = _reader({"llm": {"extract": True}})
    assert _reflect(reader)["llm_used"] is False and llm.requests == []


def test_reflect_allowed_by_policy_records_its_usage(llm):
    reader = _reader({"llm": {"reflect": True}})
    body = _reflect(reader)
    assert body["llm_used"] is True and body["answer"] == "Acme renewed for three years [1]."
    [request] = llm.requests
    assert "acme renewed their contract" in request["messages"][1]["content"].lower()
    usage = BankUsage.objects.get(bank=reader.bank, period=usage_period())
    sent = " ".join(m["content"] for m in request["messages"])
    assert (usage.llm_calls, usage.llm_failures) == (1, 0)
    assert (usage.llm_tokens_in, usage.llm_tokens_out) == (len(sent) // 4, 6)  # what the fake billed


def test_reflect_stops_at_the_monthly_token_cap(llm):
    reader = _reader({"llm": {"reflect": True, "monthly_token_cap": 50}})
    assert _reflect(reader)["llm_used"] is True and len(llm.requests) == 1  # spends more than 50 tokens

    body = _reflect(reader)
    assert len(llm.requests) == 1 and body["llm_used"] is False
    assert body["notes"] == ["LLM not used: the bank reached its monthly token cap; structured summary returned"]
    assert BankUsage.objects.get(bank=reader.bank).llm_calls == 1


def test_a_failed_reflect_call_counts_as_a_call_and_a_failure(llm):
    llm.reply = lambda body: "not json"
    reader = _reader({"llm": {"reflect": True}})
    body = _reflect(reader)
    assert body["llm_used"] is False and len(llm.requests) == 1
    usage = BankUsage.objects.get(bank=reader.bank)
    assert (usage.llm_calls, usage.llm_failures) == (1, 1)


@pytest.mark.parametrize("value", ["yes", 1, None])
def test_llm_reflect_takes_only_true_or_false(value):
    owner = make_caller()
    response = owner.client.patch(owner.url(), {"policy": {"llm": {"reflect": value}}}, format="json")
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_policy" and response.json()["extra"]["field"] == "llm.reflect"
