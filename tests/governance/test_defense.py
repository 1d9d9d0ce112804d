"""Memory Defense: the labelled corpus floors, redact and block at retain, and nowhere a raw value."""

import json
import logging
import sys
from pathlib import Path

import pytest

from beliefs.defense.detectors import KINDS
from beliefs.models import Episode, RetainBatch
from tests.governance.helpers import columns_containing

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
from eval_defense import evaluate  # noqa: E402

CORPUS = json.loads((ROOT / "tests" / "governance" / "defense_corpus.json").read_text())
TOKEN = "ghp_" + "Zq7" * 12  # 36 characters after the prefix
EMAIL = "jane.roe.4417@example.com"


def test_corpus_is_large_and_covers_every_kind():
    assert len(CORPUS) >= 300 and len(KINDS) >= 45
    positives = {kind for sample in CORPUS for kind in sample["kinds"]}
    assert positives == set(KINDS)
    assert sum(1 for s in CORPUS if s["group"] == "negative") >= 60
    assert {s["group"] for s in CORPUS} >= {"evasion-split", "evasion-base64", "evasion-url", "evasion-lookalike"}


def test_corpus_precision_and_recall_meet_the_floors():
    result = evaluate(CORPUS)
    assert result["overall"]["precision"] >= 0.95
    assert result["overall"]["recall"] >= 0.98
    assert result["per_group"]["negative"]["caught_exactly"] == 1.0  # no look-alike is flagged
    assert all(v["recall"] == 1.0 for k, v in result["per_kind"].items() if k not in {"github_token", "phone_number"})


@pytest.mark.django_db
def test_redact_is_the_default_and_reaches_content_and_metadata(caller, caplog):
    caplog.set_level(logging.DEBUG)
    body = {
        "items": [
            {
                "content": f"deploy log leaked {TOKEN}; ping {EMAIL}",
                "metadata": {"note": f"owner {EMAIL}", "nested": [{"key": TOKEN}]},
            }
        ]
    }
    response = caller.client.post(caller.url("retain"), body, format="json")
    assert response.status_code == 201
    assert response.json()["redacted"] == {"email": 2, "github_token": 2}
    episode = Episode.objects.get(bank=caller.bank)
    assert episode.content == "deploy log leaked [REDACTED:github_token]; ping [REDACTED:email]"
    assert episode.metadata == {"note": "owner [REDACTED:email]", "nested": [{"key": "[REDACTED:github_token]"}]}
    assert columns_containing(TOKEN) == [] and columns_containing(EMAIL) == []
    assert TOKEN not in caplog.text and EMAIL not in caplog.text
    assert TOKEN not in response.content.decode()


@pytest.mark.django_db
def test_async_retain_never_queues_the_raw_value(caller):
    response = caller.client.post(
        caller.url("retain"), {"items": [{"content": f"token {TOKEN}"}], "async": True}, format="json"
    )
    assert response.status_code == 202
    batch = RetainBatch.objects.get(pk=response.json()["batch_id"])
    assert batch.items[0]["content"] == "token [REDACTED:github_token]"
    assert columns_containing(TOKEN) == []


@pytest.mark.django_db
def test_block_refuses_with_kinds_and_never_the_value(caller):
    caller.bank.policy = {"defense": {"mode": "block"}}
    caller.bank.save()
    items = [{"content": "a clean note"}, {"content": f"mail {EMAIL}", "metadata": {"k": TOKEN}}]
    response = caller.client.post(caller.url("retain"), {"items": items}, format="json")
    assert response.status_code == 422
    body = response.json()
    assert body["code"] == "memory_defense_blocked"
    assert body["extra"] == {
        "kinds": ["email", "github_token"],
        "items": [{"item": 1, "kinds": ["email", "github_token"]}],
    }
    assert TOKEN not in response.content.decode() and EMAIL not in response.content.decode()
    assert not Episode.objects.filter(bank=caller.bank).exists()  # the clean item is not stored either
    assert columns_containing(TOKEN) == []


@pytest.mark.django_db
def test_off_stores_as_given_and_only_public_ip_addresses_are_redacted_by_default(caller):
    caller.bank.policy = {"defense": {"mode": "off"}}
    caller.bank.save()
    caller.client.post(caller.url("retain"), {"items": [{"content": f"raw {EMAIL} from 10.2.3.4"}]}, format="json")
    assert Episode.objects.get(bank=caller.bank).content == f"raw {EMAIL} from 10.2.3.4"

    caller.bank.policy = {}
    caller.bank.save()
    response = caller.client.post(
        caller.url("retain"), {"items": [{"content": "login from 81.2.69.160 via 10.2.3.4"}]}, format="json"
    )
    assert response.json()["redacted"] == {"ipv4_address": 1}  # the public address, not the private hop
    assert Episode.objects.filter(content="login from [REDACTED:ipv4_address] via 10.2.3.4").exists()

    for setting in (True, "all"):
        caller.bank.policy = {"defense": {"mode": "redact", "ip_addresses": setting}}
        caller.bank.save()
        response = caller.client.post(
            caller.url("retain"), {"items": [{"content": f"login from 10.2.3.4 ({setting})"}]}, format="json"
        )
        assert response.json()["redacted"] == {"ipv4_address": 1}
    caller.bank.policy = {"defense": {"mode": "redact", "ip_addresses": "off"}}
    caller.bank.save()
    response = caller.client.post(
        caller.url("retain"), {"items": [{"content": "login from 81.2.69.161"}]}, format="json"
    )
    assert response.json()["redacted"] == {}
    caller.bank.policy = {"defense": {"mode": "shred"}}
    assert (
        caller.client.patch(caller.url(""), {"policy": {"defense": {"mode": "shred"}}}, format="json").json()["code"]
        == "invalid_policy"
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("key AKIAIOSFODNN7EXAMPLE in env", "key [REDACTED:aws_access_key_id] in env"),
        ("card 4111 2222 3333 4448 on file", "card [REDACTED:credit_card] on file"),
        ("postgres://app:s3cretPass@db:5432/x", "postgres://app:[REDACTED:password_in_url]@db:5432/x"),
        ("ssn 212-45-6789 and date 2026-12-02", "ssn [REDACTED:us_ssn] and date 2026-12-02"),
        ("commit 4b825dc642cb6eb9a060e54bf8d69288fbee4904", "commit 4b825dc642cb6eb9a060e54bf8d69288fbee4904"),
    ],
)
def test_redaction_replaces_exactly_the_value(text, expected):
    from beliefs.defense.scanner import redact, scan

    assert redact(text, scan(text)) == expected


@pytest.mark.django_db(transaction=True)
def test_tightening_the_policy_redacts_stored_data_and_everything_derived(eager_tasks):
    from beliefs.models import Belief, DefenseRescan
    from tests.helpers.callers import make_caller
    from tests.helpers.consolidation import T0, days, remember

    caller = make_caller()
    caller.bank.policy = {"defense": {"mode": "off"}}
    caller.bank.save()
    from beliefs.services.retain import RetainItem

    remember(
        caller.bank,
        [RetainItem(content=f"Dev{n} pasted {TOKEN} into chat.", occurred_at=T0 + days(n)) for n in range(1)]
        + [
            RetainItem(
                content=f"Quinn uses {EMAIL} daily ({n}).",
                occurred_at=T0 + days(n),
                metadata={"facts": [{"subject": "Quinn", "predicate": "uses", "object": EMAIL}]},
            )
            for n in range(2)
        ],
    )
    assert Belief.objects.filter(bank=caller.bank, object__icontains=EMAIL).exists()
    assert columns_containing(EMAIL)

    response = caller.client.patch(caller.url(""), {"policy": {"defense": {"mode": "redact"}}}, format="json")
    assert response.status_code == 200 and response.json()["defense_rescan"]["total"] == 3
    rescan = DefenseRescan.objects.get(bank=caller.bank)
    assert rescan.status == "done" and rescan.scanned == 3 and rescan.redacted_episodes == 3
    assert rescan.kinds == {"email": 4, "github_token": 1}
    assert columns_containing(EMAIL) == [] and columns_containing(TOKEN) == []
    assert Episode.objects.filter(bank=caller.bank, content__contains="[REDACTED:email]").count() == 2
    progress = caller.client.get(caller.url("defense-rescans/")).json()["results"][0]
    assert progress["scanned"] == progress["total"] == 3
    # A change that does not tighten the policy starts no re-scan.
    assert "defense_rescan" not in caller.client.patch(caller.url(""), {"policy": {}}, format="json").json()
