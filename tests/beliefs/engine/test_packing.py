import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from beliefs.engine.packing import pack_greedy, with_neighbours


def test_packs_in_rank_order_and_skips_what_does_not_fit():
    packing = pack_greedy([("a", 5), ("b", 8), ("c", 3)], budget_tokens=9, cost=lambda item: item[1])
    assert [item[0] for item in packing.chosen] == ["a", "c"]
    assert packing.tokens_used == 8
    assert packing.dropped == 1


def test_budget_smaller_than_every_item_returns_nothing():
    packing = pack_greedy([("a", 5), ("b", 8)], budget_tokens=4, cost=lambda item: item[1])
    assert packing.chosen == []
    assert packing.tokens_used == 0
    assert packing.dropped == 2


@given(
    costs=st.lists(st.integers(min_value=0, max_value=500), max_size=60),
    budget=st.integers(min_value=1, max_value=3000),
)
def test_never_exceeds_budget_and_accounts_for_every_item(costs, budget):
    items = list(enumerate(costs))
    packing = pack_greedy(items, budget_tokens=budget, cost=lambda item: item[1])
    assert packing.tokens_used == sum(cost for _, cost in packing.chosen)
    assert packing.tokens_used <= budget
    assert len(packing.chosen) + packing.dropped == len(items)
    # Greedy: every dropped item would have overflowed the budget at the moment it was considered.
    chosen_ids = [index for index, _ in packing.chosen]
    assert chosen_ids == sorted(chosen_ids)
    used = 0
    for index, cost in items:
        if index in chosen_ids:
            used += cost
        else:
            assert used + cost > budget


def test_a_short_neighbour_naming_the_same_entity_follows_its_turn():
    texts = [
        "Omar: Which city did you fly to in June?",  # 0: short, names nothing but the speakers
        "Priya: We flew to Lisbon and walked along the Tagus every evening.",  # 1: the packed turn
        "Omar: The Tagus at sunset, lovely.",  # 2: short, names the Tagus too
        "Priya: Caroline says hello.",  # 3: short, names only a person the turn does not name
        "Omar: Lisbon again next year?",  # 4: names Lisbon but is not a neighbour of 1
    ]
    subjects = ["Omar", "Priya", "Omar", "Priya", "Omar"]
    tokens = np.array([10, 16, 8, 6, 7])
    previous = np.array([-1, 0, 1, 2, 3])
    following = np.array([1, 2, 3, 4, -1])
    order = with_neighbours([1, 4, 3, 0, 2], texts, subjects, tokens, previous, following, short=12)
    # The Tagus turn moves up behind the turn it answers; Omar's question names no entity (the speakers do not
    # count), so it stays where ranking put it; every position appears once.
    assert order == [1, 2, 4, 3, 0]
    # A neighbour longer than ``short`` stays where it was.
    assert with_neighbours([1, 4, 3, 0, 2], texts, subjects, tokens, previous, following, short=7) == [1, 4, 3, 0, 2]
