"""The LangGraph store against the real service: the behaviour langgraph's own store tests check, on MemoryHub.

langgraph ships conformance tests for checkpointers only (``langgraph-checkpoint-conformance``),
none for stores, so these follow its store tests (``libs/checkpoint/tests/test_store.py``):
put/get/update/delete, search by query and by filter, namespaces listed by prefix, suffix,
wildcards, depth and page, invalid namespaces refused, sync and async; plus what the
mapping onto banks, threads and subjects promises.
"""

from __future__ import annotations

import time

import pytest
from asgiref.sync import async_to_sync
from langgraph.store.base import GetOp, InvalidNamespaceError, PutOp
from memoryhub_client.langgraph import MemoryHubStore, SubjectErased

from banks.services.banks import bank_create
from beliefs.models import Episode


@pytest.fixture
def store(hub, async_hub) -> MemoryHubStore:
    return MemoryHubStore(hub=hub, async_hub=async_hub)


def test_put_get_update_delete_round_trip_keeps_the_exact_value(store, caller):
    bank = caller.bank.slug
    value = {"text": "Prefers vegetarian food", "tags": ["food", "diet"], "score": 4.5, "nested": {"n": 1}}
    assert store.get((bank, "user-42"), "diet") is None
    store.put((bank, "user-42"), "diet", value)
    item = store.get((bank, "user-42"), "diet")
    assert item.value == value and item.key == "diet" and item.namespace == (bank, "user-42")
    first_created, first_updated = item.created_at, item.updated_at
    store.put((bank, "user-42"), "diet", value)  # the same value again: nothing new is stored
    assert Episode.objects.filter(bank=caller.bank).count() == 1

    time.sleep(0.01)
    store.put((bank, "user-42"), "diet", {"text": "Now eats fish too"})
    updated = store.get((bank, "user-42"), "diet")
    assert updated.value == {"text": "Now eats fish too"}
    assert updated.created_at == first_created and updated.updated_at > first_updated
    [episode] = Episode.objects.filter(bank=caller.bank)  # the replaced value's episode is gone
    assert (episode.source, episode.subject, episode.thread) == ("langgraph", "user-42", "user-42")
    assert "Now eats fish too" in episode.content

    store.put((bank, "user-7"), "diet", {"text": "Vegan"})  # same key, another namespace: another item
    assert store.get((bank, "user-42"), "diet").value == {"text": "Now eats fish too"}
    store.delete((bank, "user-42"), "diet")
    assert store.get((bank, "user-42"), "diet") is None
    assert store.get((bank, "user-7"), "diet").value == {"text": "Vegan"}
    assert list(Episode.objects.filter(bank=caller.bank).values_list("subject", flat=True)) == ["user-7"]


def test_nested_namespaces_are_threads_and_ops_run_in_order_in_one_batch(store, caller):
    bank = caller.bank.slug
    results = store.batch([
        PutOp((bank, "user-42", "prefs"), "theme", {"text": "dark mode"}),
        GetOp((bank, "user-42", "prefs"), "theme"),
        PutOp((bank, "user-42", "prefs"), "theme", None),
        GetOp((bank, "user-42", "prefs"), "theme"),
        PutOp((bank,), "motto", {"text": "measure twice"}),
    ])  # fmt: skip
    assert results[0] is None and results[1].value == {"text": "dark mode"} and results[2:] == [None, None, None]
    episode = Episode.objects.get(bank=caller.bank)
    assert (episode.thread, episode.subject) == ("", "")
    assert store.get((bank,), "motto").value == {"text": "measure twice"}


def test_search_by_query_ranks_within_the_prefix_and_skips_unindexed_items(store, caller):
    bank = caller.bank.slug
    store.put((bank, "user-42"), "diet", {"text": "Prefers vegetarian food, no meat at all"})
    store.put((bank, "user-42"), "job", {"text": "Works at TechCorp as a senior engineer"})
    store.put((bank, "user-42", "trips"), "rome", {"text": "Ate pasta and pizza in Rome last spring"})
    store.put((bank, "user-42"), "secret-diet", {"text": "Vegetarian cooking notes"}, index=False)
    store.put((bank, "user-7"), "diet", {"text": "Loves vegetarian curry"})
    store.put((bank, "user-42"), "title", {"text": "irrelevant", "role": "engineer"}, index=["role"])

    hits = store.search((bank, "user-42"), query="what food does the user eat?", limit=5)
    keys = [hit.key for hit in hits]
    assert keys[0] == "diet" and "rome" in keys
    assert "secret-diet" not in keys and all(hit.namespace[:2] == (bank, "user-42") for hit in hits)
    assert all(hit.score is not None for hit in hits) and hits == sorted(hits, key=lambda h: -h.score)
    second = store.search((bank, "user-42"), query="what food does the user eat?", limit=1, offset=1)
    assert [hit.key for hit in second] == keys[1:2]
    # index=["role"] embeds that field only: the item is found by its role, not by its other text.
    assert store.search((bank, "user-42"), query="engineer", limit=1)[0].key in {"title", "job"}
    everyone = store.search((bank,), query="vegetarian", limit=10)
    assert {(hit.namespace, hit.key) for hit in everyone} >= {((bank, "user-42"), "diet"), ((bank, "user-7"), "diet")}
    assert store.search((bank, "nobody"), query="food") == []


def test_search_without_a_query_filters_values_newest_first(store, caller):
    bank = caller.bank.slug
    for n, (color, score) in enumerate([("red", 1), ("blue", 5), ("red", 9)]):
        store.put((bank, "docs", f"shelf-{n % 2}"), f"doc-{n}", {"color": color, "score": score, "meta": {"n": n}})
    listed = store.search((bank, "docs"))
    assert [hit.key for hit in listed] == ["doc-2", "doc-1", "doc-0"] and listed[0].score is None
    assert [h.key for h in store.search((bank, "docs"), filter={"color": "red"})] == ["doc-2", "doc-0"]
    assert [h.key for h in store.search((bank, "docs"), filter={"score": {"$gt": 4}})] == ["doc-2", "doc-1"]
    assert [h.key for h in store.search((bank, "docs"), filter={"score": {"$gte": 1, "$lt": 9}})] == ["doc-1", "doc-0"]
    assert [h.key for h in store.search((bank, "docs"), filter={"color": {"$ne": "red"}})] == ["doc-1"]
    assert [h.key for h in store.search((bank, "docs"), filter={"meta.n": 1})] == ["doc-1"]
    assert [h.key for h in store.search((bank, "docs", "shelf-0"), limit=1, offset=1)] == ["doc-0"]


def test_list_namespaces_by_prefix_suffix_wildcards_depth_and_page(store, caller):
    bank = caller.bank.slug
    paths = [("a", "b", "c"), ("a", "b", "d", "e"), ("a", "b", "d", "i"), ("a", "b", "f"), ("a", "c", "f"),
             ("b", "a", "f"), ("users", "123"), ("users", "456", "settings")]  # fmt: skip
    for n, path in enumerate(paths):
        store.put((bank, *path), f"id_{n}", {"data": f"value_{n:02d}"})
    ns = lambda *path: (bank, *path)  # noqa: E731
    assert store.list_namespaces(prefix=(bank, "a", "b")) == [ns("a", "b", "c"), ns("a", "b", "d", "e"),
                                                               ns("a", "b", "d", "i"), ns("a", "b", "f")]  # fmt: skip
    assert store.list_namespaces(suffix=("f",)) == [ns("a", "b", "f"), ns("a", "c", "f"), ns("b", "a", "f")]
    assert store.list_namespaces(prefix=(bank, "a"), suffix=("f",)) == [ns("a", "b", "f"), ns("a", "c", "f")]
    assert store.list_namespaces(prefix=(bank, "a", "b"), max_depth=4) == [ns("a", "b", "c"), ns("a", "b", "d"),
                                                                           ns("a", "b", "f")]  # fmt: skip
    assert store.list_namespaces(prefix=(bank, "a", "b"), limit=2) == [ns("a", "b", "c"), ns("a", "b", "d", "e")]
    assert store.list_namespaces(prefix=(bank, "a", "b"), offset=2) == [ns("a", "b", "d", "i"), ns("a", "b", "f")]
    assert store.list_namespaces(prefix=(bank, "a", "*", "f")) == [ns("a", "b", "f"), ns("a", "c", "f")]
    assert store.list_namespaces(prefix=("*", "users")) == [ns("users", "123"), ns("users", "456", "settings")]
    assert store.list_namespaces(prefix=(bank, "nonexistent")) == []
    # The bank is the first label: another bank of the tenant lists its own namespaces.
    bank_create(tenant=caller.tenant, slug="other", name="Other")
    store.put(("other", "users", "123"), "k", {"data": 1})
    assert store.list_namespaces(prefix=("other",)) == [("other", "users", "123")]
    assert set(store.list_namespaces(suffix=("123",))) == {ns("users", "123"), ("other", "users", "123")}


def test_invalid_namespaces_are_refused_before_any_request(store, caller):
    bank = caller.bank.slug
    for namespace in [(), ("langgraph", "x"), (bank, "the", "thing.about"), (bank, "")]:
        with pytest.raises(InvalidNamespaceError):
            store.put(namespace, "k", {"a": 1})
    with pytest.raises(InvalidNamespaceError):
        store.batch([GetOp((bank, "a.b"), "k")])  # ops sent straight to batch are checked too
    assert not Episode.objects.filter(bank=caller.bank).exists()


def test_values_pass_memory_defense_and_erased_subjects_stay_erased(
    store, hub, caller, eager_tasks, django_capture_on_commit_callbacks
):
    bank = caller.bank.slug
    token = "ghp_" + "a1B2" * 9
    store.put((bank, "user-42"), "note", {"text": f"deploy key {token} for the runner"})
    stored = store.get((bank, "user-42"), "note").value["text"]
    assert token not in stored and "deploy key" in stored
    assert token not in str(Episode.objects.get(bank=caller.bank).metadata)

    store.put((bank, "user-9"), "note", {"text": "keep me"})
    with django_capture_on_commit_callbacks(execute=True):  # the erasure worker runs when the block ends
        hub.erasure_requests.create("user-42", bank=bank)
    assert store.get((bank, "user-42"), "note") is None and store.get((bank, "user-9"), "note") is not None
    with pytest.raises(SubjectErased):
        store.put((bank, "user-42"), "note", {"text": "remember me again"})


def test_async_operations_use_the_async_client(store, caller):
    bank = caller.bank.slug

    async def scenario():
        await store.aput((bank, "user-42"), "diet", {"text": "Prefers vegetarian food"})
        await store.aput((bank, "user-42"), "job", {"text": "Works at TechCorp"})
        got = await store.aget((bank, "user-42"), "diet")
        found = await store.asearch((bank, "user-42"), query="vegetarian food", limit=1)
        namespaces = await store.alist_namespaces(prefix=(bank,))
        await store.adelete((bank, "user-42"), "diet")
        gone = await store.aget((bank, "user-42"), "diet")
        return got, found, namespaces, gone

    got, found, namespaces, gone = async_to_sync(scenario)()
    assert got.value == {"text": "Prefers vegetarian food"} and [hit.key for hit in found] == ["diet"]
    assert namespaces == [(bank, "user-42")] and gone is None
    assert list(Episode.objects.filter(bank=caller.bank).values_list("content", flat=True)) == [
        '{"text": "Works at TechCorp"}'
    ]


def test_a_graph_remembers_across_threads_through_the_store(store, caller):
    from langgraph.graph import END, START, StateGraph
    from langgraph.runtime import Runtime
    from typing_extensions import TypedDict

    class State(TypedDict):
        user: str
        message: str
        memories: list[str]

    bank = caller.bank.slug

    def remember_and_recall(state: State, runtime: Runtime) -> dict:
        namespace = (bank, state["user"])
        if state["message"].startswith("remember:"):
            fact = state["message"].removeprefix("remember:").strip()
            runtime.store.put(namespace, f"fact-{len(fact)}", {"text": fact})
        hits = runtime.store.search(namespace, query=state["message"], limit=3)
        return {"memories": [hit.value["text"] for hit in hits]}

    graph = StateGraph(State).add_node(remember_and_recall).add_edge(START, "remember_and_recall")
    app = graph.add_edge("remember_and_recall", END).compile(store=store)
    app.invoke({"user": "user-42", "message": "remember: I am allergic to peanuts", "memories": []})
    later = app.invoke({"user": "user-42", "message": "what am I allergic to?", "memories": []})
    assert later["memories"] == ["I am allergic to peanuts"]
    other = app.invoke({"user": "user-7", "message": "what am I allergic to?", "memories": []})
    assert other["memories"] == []
