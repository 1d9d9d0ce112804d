from django.utils.dateparse import parse_datetime

from beliefs.models import Episode
from tests.helpers.callers import retain_texts


def test_list_filters_and_paginates(caller, django_assert_max_num_queries):
    for day in range(1, 8):
        retain_texts(
            caller.bank,
            [f"alert number {day}"],
            source="alert",
            subject="host:web-1",
            occurred_at=parse_datetime(f"2026-10-0{day}T00:00:00Z"),
        )
    retain_texts(caller.bank, ["a chat turn"], source="chat", occurred_at=parse_datetime("2026-10-09T00:00:00Z"))

    # key, bank, count, page + the request transaction (savepoint in/out here) and its tenant scope (set/restore).
    with django_assert_max_num_queries(9):
        page = caller.client.get(caller.url("episodes/"), {"limit": 3}).json()
    assert page["count"] == 8
    assert [row["content"] for row in page["results"]] == ["a chat turn", "alert number 7", "alert number 6"]
    assert "embedding" not in page["results"][0]

    alerts = caller.client.get(caller.url("episodes/"), {"source": "alert", "occurred_after": "2026-10-05T00:00:00Z"})
    assert [row["content"] for row in alerts.json()["results"]] == [
        "alert number 7",
        "alert number 6",
        "alert number 5",
    ]
    second = caller.client.get(caller.url("episodes/"), {"limit": 3, "offset": 3}).json()
    assert [row["content"] for row in second["results"]] == ["alert number 5", "alert number 4", "alert number 3"]


def test_get_and_delete_one_episode(caller):
    [keep, drop] = retain_texts(caller.bank, ["keep this", "drop this"])
    assert caller.client.get(caller.url(f"episodes/{keep}")).json()["content"] == "keep this"
    assert caller.client.delete(caller.url(f"episodes/{drop}")).status_code == 204
    assert list(Episode.objects.filter(bank=caller.bank).values_list("content", flat=True)) == ["keep this"]
    gone = caller.client.get(caller.url(f"episodes/{drop}"))
    assert gone.status_code == 404 and gone.json()["code"] == "episode_not_found"
    recall = caller.client.post(caller.url("recall"), {"query": "drop this", "budget_tokens": 100}, format="json")
    assert [item["text"] for item in recall.json()["items"]] == ["keep this"]
