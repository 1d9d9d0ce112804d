"""The Python client against the real service: every resource, typed answers, idempotent retain, errors."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from asgiref.sync import async_to_sync
from memoryhub_client import errors, models

from tests.helpers.callers import make_caller
from tests.helpers.consolidation import T0, days, dismissal, remember


def test_retain_recall_reflect_round_trip_with_typed_answers(hub, caller):
    retained = hub.retain(
        caller.bank.slug,
        [
            {"content": "Alert DiskLatencyHigh fired on db-01 during the nightly backup.", "source": "alert",
             "subject": "host:db-01", "occurred_at": datetime(2026, 11, 20, 2, 11, tzinfo=UTC)},
            "The checkout-api deploy on Friday raised error rates for ten minutes.",
        ],
    )  # fmt: skip
    assert isinstance(retained, models.Retain)
    assert [item.status for item in retained.items] == ["created", "created"] and retained.created == 2
    answer = hub.recall(caller.bank.slug, "disk latency on db-01 during backups?", budget_tokens=60)
    assert isinstance(answer, models.Recall) and answer.tokens_used <= answer.budget_tokens == 60
    top = answer.items[0]
    assert "DiskLatencyHigh" in top.text and top.untrusted is True
    assert top.provenance.episode_ids == [retained.items[0].episode_id] and top.provenance.subject == "host:db-01"
    prompt = hub.recall(caller.bank.slug, "checkout-api deploy", budget_tokens=200, render="prompt")
    assert "checkout-api" in prompt.prompt["text"] and prompt.prompt["tokens"] <= 200
    reflected = hub.reflect(caller.bank.slug, "what happened to checkout-api?", budget_tokens=200)
    assert isinstance(reflected, models.Reflect) and "checkout-api" in reflected.answer


def test_retain_sends_an_idempotency_key_so_a_retry_never_stores_twice(hub, caller):
    first = hub.retain(caller.bank.slug, ["one note"], idempotency_key="import-7")
    again = hub.retain(caller.bank.slug, ["one note"], idempotency_key="import-7")
    assert first.created == 1 and again.replayed is True and again.items[0].episode_id == first.items[0].episode_id
    with pytest.raises(errors.IdempotencyKeyReused) as conflict:
        hub.retain(caller.bank.slug, ["another note"], idempotency_key="import-7")
    assert conflict.value.status_code == 409 and isinstance(conflict.value, errors.ConflictError)
    # Without a key the client makes one per call: two calls are two requests, each replayable.
    call = hub._core.retain_call(caller.bank.slug, ["x"])
    assert call.headers["Idempotency-Key"].startswith("client-") and call.repeatable
    assert caller.bank.episodes.count() == 1


def test_episodes_facts_beliefs_and_mental_models(hub, caller):
    remember(caller.bank, [dismissal("DiskLatencyHigh", "db-1", T0 + days(n)) for n in range(3)])
    bank = caller.bank.slug
    episodes = hub.episodes.list(bank, limit=2)
    assert isinstance(episodes, models.PaginatedEpisodeList) and episodes.count == 3 and len(episodes.results) == 2
    assert len(list(hub.paginate(hub.episodes.list, bank, page_size=2))) == 3
    episode = hub.episodes.get(bank, episodes.results[0].id)
    assert "DiskLatencyHigh" in episode.content
    facts = hub.facts.list(bank)
    assert facts.count == 3 and all(f.predicate for f in facts.results)
    assert hub.facts.get(bank, facts.results[0].id).quote in episode.content or facts.results[0].quote
    beliefs = hub.beliefs.list(bank, status="active")
    [belief] = beliefs.results
    detail = hub.beliefs.get(bank, belief.id)
    assert isinstance(detail, models.BeliefDetail) and detail.proof_count == 3 and len(detail.evidence) == 3
    assert detail.versions[0].cause == "formed"
    assert hub.beliefs.as_of(bank, T0 - days(1))["results"] == []
    created = hub.mental_models.create(bank, "benign", "which alerts are benign?")
    assert created.name == "benign"
    refreshed = hub.mental_models.refresh(bank, "benign")
    assert refreshed.status == "answered" and refreshed.source_belief_ids == [belief.id]
    assert [m.name for m in hub.mental_models.list(bank).results] == ["benign"]
    assert hub.mental_models.get(bank, "benign").answer == refreshed.answer
    hub.mental_models.delete(bank, "benign")
    with pytest.raises(errors.MentalModelNotFound):
        hub.mental_models.get(bank, "benign")
    hub.episodes.delete(bank, episode.id)
    with pytest.raises(errors.EpisodeNotFound) as missing:
        hub.episodes.get(bank, episode.id)
    assert isinstance(missing.value, errors.NotFoundError) and missing.value.status_code == 404
    status = hub.background.status(bank)
    assert status.beliefs == 1


def test_banks_keys_review_items_and_erasure(hub, hub_for, caller):
    bank = hub.banks.create("support", name="Support desk", policy={"disposition": {"skepticism": 0.5}})
    assert bank.slug == "support" and bank.tenant == caller.tenant.slug
    assert {b.slug for b in hub.banks.list().results} == {caller.bank.slug, "support"}
    assert hub.banks.update("support", description="tickets").description == "tickets"
    with pytest.raises(errors.BankSlugTaken):
        hub.banks.create("support")
    issued = hub.api_keys.issue("reader", bank="support", scopes=["read"])
    assert issued.key.startswith("mh_") and issued.bank == "support" and issued.scopes == ["read"]
    reader = hub_for(issued.key)
    assert reader.banks.get("support").name == "Support desk"
    with pytest.raises(errors.PermissionDenied):
        reader.retain("support", ["not allowed"])
    with pytest.raises(errors.BankNotFound):
        reader.banks.get(caller.bank.slug)  # a bank-scoped key sees one bank
    assert issued.prefix in [k.prefix for k in hub.api_keys.list().results]
    hub.api_keys.revoke(issued.prefix)
    with pytest.raises(errors.AuthenticationFailed):
        reader.banks.get("support")

    lessons = hub._transport.execute(
        __import__("memoryhub_client._transport", fromlist=["Call"]).Call(
            "POST", "/api/v1/banks/support/lessons",
            json={"lessons": [{"text": "Exec reviews save accounts", "play": "exec-review", "segment": "SMB"}]},
        )
    )  # fmt: skip
    item_id = lessons["review_items"][0]["id"]
    items = hub.review_items.list("support", status="pending")
    assert [i.id for i in items.results] == [item_id] and items.results[0].kind == "distillation"
    accepted = hub.review_items.accept("support", item_id, comment="agreed")
    assert accepted.status == "accepted" and hub.review_items.get("support", item_id).comment == "agreed"
    with pytest.raises(errors.ReviewItemAlreadyDecided):
        hub.review_items.reject("support", item_id, comment="no")

    hub.retain("support", [{"content": "Ticket from Dana about billing", "subject": "user:dana"}])
    erasure = hub.erasure_requests.create("user:dana", bank="support")
    assert erasure.bank == "support" and erasure.scope == "bank"
    assert hub.erasure_requests.get(erasure.id).id == erasure.id
    assert erasure.id in [e.id for e in hub.erasure_requests.list().results]
    receipt = hub.banks.delete("support")
    assert receipt["bank"] == "support" and receipt["removed"]["episodes"] == 1  # Dana's ticket
    with pytest.raises(errors.BankNotFound):
        hub.banks.get("support")


def test_errors_carry_code_detail_and_fields(hub, hub_for, caller):
    with pytest.raises(errors.ValidationError) as bad:
        hub.recall(caller.bank.slug, "x", budget_tokens=10**9)
    assert bad.value.code == "validation_error" and "budget_tokens" in bad.value.extra["fields"]
    with pytest.raises(errors.AuthenticationFailed):
        hub_for("mh_nonsense").banks.list()
    with pytest.raises(errors.BankNotFound) as missing:
        hub.recall("no-such-bank", "x", budget_tokens=10)
    assert str(missing.value) == "404 bank_not_found: No such bank."
    other = make_caller()
    with pytest.raises(errors.BankNotFound):
        hub.episodes.list(other.bank.slug)  # another tenant's bank does not exist for us


def test_async_client_retains_waits_for_a_queued_batch_and_recalls(
    async_hub, caller, eager_tasks, django_capture_on_commit_callbacks
):
    bank = caller.bank.slug
    with django_capture_on_commit_callbacks(execute=True):  # the worker's part runs when the block ends
        queued = async_to_sync(async_hub.retain)(bank, ["Queued note about the payments outage"], run_async=True)
    assert isinstance(queued, models.RetainBatch) and queued.status == "pending"

    async def scenario():
        batch = await async_hub.wait_for_batch(bank, queued.batch_id, timeout=5)
        answer = await async_hub.recall(bank, "payments outage", budget_tokens=50)
        banks = await async_hub.banks.list()
        rows = [row async for row in async_hub.paginate(async_hub.episodes.list, bank)]
        await async_hub.aclose()
        return batch, answer, banks, rows

    batch, answer, banks, rows = async_to_sync(scenario)()
    assert batch.status == "done" and batch.created_count == 1
    assert answer.items[0].text == "Queued note about the payments outage"
    assert [b.slug for b in banks.results] == [bank] and [r.id for r in rows] == [batch.items[0]["episode_id"]]
