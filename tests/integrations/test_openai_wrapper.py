"""``wrap_openai`` with the real openai SDK against a local fake OpenAI-compatible server and the real service."""

from __future__ import annotations

import openai
import pytest
from asgiref.sync import async_to_sync
from memoryhub_client import wrap_openai

from beliefs.models import Episode
from tests.integrations.fake_openai import FakeOpenAI


@pytest.fixture
def llm():
    with FakeOpenAI() as server:
        yield server


def test_two_lines_give_a_chat_client_memory_across_conversations(hub, caller, llm):
    client = wrap_openai(openai.OpenAI(base_url=llm.url, api_key="test"), bank=caller.bank.slug, budget_tokens=120,
                         hub=hub, thread="conv-1")  # fmt: skip
    first = client.chat.completions.create(
        model="fake", messages=[{"role": "user", "content": "I moved to Berlin last spring and love it."}]
    )
    assert first.choices[0].message.content == "You live in Berlin."  # the model saw the user's own turn
    [call] = client.memory.calls
    assert call.tokens_added == 0 and call.items == 0 and len(call.retained_episode_ids) == 2
    turns = Episode.objects.filter(bank=caller.bank).order_by("id")
    assert [(e.provenance, e.thread) for e in turns] == [("user", "conv-1"), ("agent", "conv-1")]

    # A new conversation, same bank: the question alone names no city; memory supplies it.
    later = wrap_openai(openai.OpenAI(base_url=llm.url, api_key="test"), bank=caller.bank.slug, budget_tokens=120,
                        hub=hub, thread="conv-2")  # fmt: skip
    answer = later.chat.completions.create(model="fake", messages=[{"role": "user", "content": "Where do I live?"}])
    assert answer.choices[0].message.content == "You live in Berlin."
    sent = llm.requests[-1]["messages"]
    assert sent[0]["role"] == "system" and "untrusted" in sent[0]["content"] and "Berlin" in sent[0]["content"]
    assert sent[-1] == {"role": "user", "content": "Where do I live?"}
    [call] = later.memory.calls
    assert 0 < call.tokens_added <= 120 and call.items >= 1 and later.memory.tokens_added == call.tokens_added
    assert Episode.objects.filter(bank=caller.bank, thread="conv-2").count() == 2


def test_memory_outage_does_not_break_the_chat_call(hub_for, caller, llm):
    broken = hub_for("mh_not_a_key")
    client = wrap_openai(openai.OpenAI(base_url=llm.url, api_key="test"), bank=caller.bank.slug, hub=broken)
    answer = client.chat.completions.create(model="fake", messages=[{"role": "user", "content": "Where do I live?"}])
    assert answer.choices[0].message.content == "I do not know where you live."
    assert client.memory.calls[0].error.startswith("AuthenticationFailed") and client.models is not None
    strict = wrap_openai(openai.OpenAI(base_url=llm.url, api_key="test"), bank=caller.bank.slug, hub=broken,
                         fail_open=False)  # fmt: skip
    with pytest.raises(Exception, match="authentication_failed"):
        strict.chat.completions.create(model="fake", messages=[{"role": "user", "content": "hi"}])


def test_async_client_is_wrapped_the_same_way(async_hub, caller, llm):
    client = wrap_openai(openai.AsyncOpenAI(base_url=llm.url, api_key="test"), bank=caller.bank.slug, hub=async_hub)

    async def chat(text):
        return await client.chat.completions.create(model="fake", messages=[{"role": "user", "content": text}])

    async_to_sync(chat)("My home is in Lisbon now.")
    answer = async_to_sync(chat)("Where is home?")
    assert answer.choices[0].message.content == "You live in Lisbon."
    assert client.memory.calls[1].tokens_added > 0
