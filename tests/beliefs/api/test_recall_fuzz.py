"""Random and hostile recall input: never a 500, always a well-formed answer or a JSON error."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers.callers import make_caller, retain_texts

HOSTILE = [
    "",
    " ",
    "'",
    "\\",
    "&|!():*<->",
    "' OR 1=1 --",
    "%s %d {}",
    "\x00",
    "😀" * 50,
    "a" * 4000,
    "SELECT * FROM beliefs_episode",
    "last Tuesday before 31 February",
    "since since since",
    "<script>alert(1)</script>",
    "\u202egnp.exe",
    "0000-00-00",
]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    query=st.one_of(st.text(max_size=300), st.sampled_from(HOSTILE)),
    budget=st.one_of(st.integers(min_value=-5, max_value=70000), st.text(max_size=5)),
)
def test_recall_fuzz(fuzz_banks, query, budget):
    caller, other_text = fuzz_banks
    response = caller.client.post(caller.url("recall"), {"query": query, "budget_tokens": budget}, format="json")
    assert response.status_code in (200, 400), response.content[:200]
    body = response.json()
    if response.status_code == 400:
        assert body["code"] == "validation_error" and body["detail"]
        return
    assert body["tokens_used"] <= body["budget_tokens"]
    assert all(item["untrusted"] is True for item in body["items"])
    assert other_text not in response.content.decode()


@pytest.fixture
def fuzz_banks(db):
    caller = make_caller()
    retain_texts(caller.bank, ["alert on db-01 last Tuesday", "Caroline went camping in June 2023", "plain note"])
    other = make_caller()
    secret = "other-tenant-secret-7f3a"
    retain_texts(other.bank, [f"{secret} alert on db-01 last Tuesday"])
    return caller, secret
