"""Erasure that stays done (review M8, L12): every spelling of an erased subject stays out, in one batch too,
after a ``SECRET_KEY`` rotation and after a tombstone-key rotation; aliases too short to erase safely are refused."""

from __future__ import annotations

import json

import psycopg
import pytest
from django.core.management import call_command

from beliefs.models import Episode, ErasureRequest, Tombstone
from beliefs.services.forget.tombstones import _legacy_hash, subject_folded, subject_hash, tombstone_key_rotate
from beliefs.services.retain import RetainItem, retain
from tests.governance.test_rls import request_role_connection
from tests.helpers.callers import make_caller

# The review's reproduction plus Unicode variants: fullwidth letters, a zero-width space, a no-break space.
SPELLINGS = ["alice", "Alice", " ALICE", "ａｌｉｃｅ", "ali\u200bce", "Alice\u00a0", "ALICE \t"]


def _erase(caller, subject: str, **fields) -> ErasureRequest:
    response = caller.client.post(
        "/api/v1/erasure-requests/", {"subject": subject, "bank": caller.bank.slug, **fields}, format="json"
    )
    assert response.status_code == 202, response.content
    erasure = ErasureRequest.objects.get(pk=response.json()["id"])
    assert erasure.status == "done"
    return erasure


def _retain_statuses(caller, subjects: list[str]) -> list[str]:
    items = [{"content": f"{subject.strip()} ssn {n}", "subject": subject} for n, subject in enumerate(subjects)]
    response = caller.client.post(caller.url("retain"), {"items": items}, format="json")
    assert response.status_code in (200, 201), response.content
    return [item["status"] for item in response.json()["items"]]


def test_subject_folding_joins_case_unicode_and_whitespace_variants():
    assert {subject_folded(s) for s in SPELLINGS} == {"alice"}
    assert subject_folded("Straße  Nord") == subject_folded("STRASSE nord") == "strasse nord"
    assert subject_folded("alice") != subject_folded("alicia")


@pytest.mark.django_db(transaction=True)
def test_every_spelling_of_an_erased_subject_is_suppressed_in_one_batch(eager_tasks):
    caller = make_caller()
    _erase(caller, "alice")
    # The review's request: two case variants in one batch; one of them used to come back "created".
    assert _retain_statuses(caller, ["alice", "Alice"]) == ["suppressed", "suppressed"]
    assert _retain_statuses(caller, SPELLINGS) == ["suppressed"] * len(SPELLINGS)
    assert _retain_statuses(caller, ["alicia", "bob"]) == ["created", "created"]
    assert sorted(Episode.objects.filter(bank=caller.bank).values_list("subject", flat=True)) == ["alicia", "bob"]


@pytest.mark.django_db(transaction=True)
def test_an_import_cannot_bring_back_a_spelling_of_an_erased_subject(eager_tasks):
    caller = make_caller()
    _erase(caller, "alice")
    lines = [
        {"content": f"imported note {n}", "subject": subject} for n, subject in enumerate(["Alice ", "ＡＬＩＣＥ"])
    ]
    response = caller.client.post(
        caller.url("import") + "?source_format=jsonl",
        "\n".join(json.dumps(line) for line in lines),
        content_type="application/x-ndjson",
    )
    assert response.status_code == 200, response.content
    assert not Episode.objects.filter(bank=caller.bank).exists()


@pytest.mark.django_db(transaction=True)
def test_erasure_deletes_episodes_filed_under_any_spelling(eager_tasks):
    caller = make_caller()
    retain(bank=caller.bank, items=[RetainItem(content=f"note {n}", subject=s) for n, s in enumerate(SPELLINGS)])
    retain(bank=caller.bank, items=[RetainItem(content="unrelated", subject="alicia")])
    erasure = _erase(caller, "Alice")
    assert erasure.receipt["episodes_deleted"] == len(SPELLINGS)
    assert list(Episode.objects.filter(bank=caller.bank).values_list("subject", flat=True)) == ["alicia"]


@pytest.mark.django_db(transaction=True)
def test_tombstones_survive_a_secret_key_rotation(eager_tasks, settings):
    caller = make_caller()
    erasure = _erase(caller, "alice")
    tombstone = Tombstone.objects.get(erasure=erasure)
    assert tombstone.subject_hash != _legacy_hash(caller.tenant.pk, "alice")  # not keyed on SECRET_KEY
    settings.SECRET_KEY = "rotated-" + "x" * 50
    assert _retain_statuses(caller, ["alice", "ALICE"]) == ["suppressed", "suppressed"]


@pytest.mark.django_db(transaction=True)
def test_tombstones_survive_a_tombstone_key_rotation_and_new_ones_use_the_new_key(eager_tasks):
    caller = make_caller()
    before = _erase(caller, "alice")
    tombstone_key_rotate()
    assert subject_hash(tenant_id=caller.tenant.pk, subject="alice") != before.subject_hash
    assert _retain_statuses(caller, ["Alice"]) == ["suppressed"]
    after = _erase(caller, "bob")
    assert after.subject_hash == subject_hash(tenant_id=caller.tenant.pk, subject="bob")
    assert _retain_statuses(caller, ["BOB", "alice", "carol"]) == ["suppressed", "suppressed", "created"]


@pytest.mark.django_db(transaction=True)
def test_a_legacy_secret_key_tombstone_is_still_honoured(eager_tasks):
    caller = make_caller()
    Tombstone.objects.create(tenant=caller.tenant, bank=caller.bank, subject_hash=_legacy_hash(caller.tenant.pk, "eve"))
    assert _retain_statuses(caller, ["Eve", "eve"]) == ["suppressed", "suppressed"]


@pytest.mark.django_db(transaction=True)
def test_aliases_are_tombstoned_with_the_subject(eager_tasks):
    caller = make_caller()
    retain(bank=caller.bank, items=[RetainItem(content="ticket from zora", subject="zora@example.com")])
    erasure = _erase(caller, "customer:zora", aliases=["zora@example.com"])
    assert erasure.receipt["episodes_deleted"] == 1
    assert Tombstone.objects.filter(erasure=erasure).count() == 2
    assert _retain_statuses(caller, ["Zora@Example.com", "customer:ZORA"]) == ["suppressed", "suppressed"]


@pytest.mark.django_db(transaction=True)
def test_a_two_character_alias_is_refused_and_nothing_is_redacted(eager_tasks):
    caller = make_caller()
    retain(bank=caller.bank, items=[RetainItem(content="it is ok to restart web-1", subject="customer:bob")])
    for aliases, refused in [(["is"], [0]), (["zora@example.com", "o k", "ok!"], [1, 2])]:
        response = caller.client.post(
            "/api/v1/erasure-requests/",
            {"subject": "customer:zora", "bank": caller.bank.slug, "aliases": aliases},
            format="json",
        )
        assert response.status_code == 400
        body = response.json()
        assert body["code"] == "erasure_alias_too_short" and body["extra"] == {"aliases": refused}
    assert not ErasureRequest.objects.exists()
    assert Episode.objects.get(bank=caller.bank).content == "it is ok to restart web-1"
    # Long enough: four letters, or a phone number.
    _erase(caller, "customer:zora", aliases=["zora", "+1 415 555 0100"])


@pytest.mark.django_db
def test_the_request_role_gets_tombstone_hashes_but_never_the_key():
    expected = subject_hash(tenant_id=7, subject="alice")
    with request_role_connection() as raw:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            raw.execute("SELECT inner_pad FROM memoryhub_private.tombstone_key").fetchall()
    with request_role_connection() as raw:
        rows = raw.execute(
            "SELECT subject_hash FROM public.memoryhub_tombstone_hashes(%s) WHERE newest",
            [["memoryhub-tombstone:7\x1falice"]],
        ).fetchall()
    assert rows == [(expected,)]


@pytest.mark.django_db(transaction=True)
def test_tombstones_outlive_a_migration_round_trip(eager_tasks):
    caller = make_caller()
    _erase(caller, "alice")
    call_command("migrate", "beliefs", "0021_workload_models_to_workloads_app", verbosity=0)
    call_command("migrate", "beliefs", verbosity=0)
    assert _retain_statuses(caller, ["Alice"]) == ["suppressed"]
