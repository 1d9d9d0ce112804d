"""Pseudo-relevance feedback and the second hop, as pure functions over a pool's arrays."""

import numpy as np

from beliefs.engine.feedback import entity_hop, rocchio, top_positions


def unit(*values):
    vector = np.array(values, dtype=np.float32)
    return vector / np.linalg.norm(vector)


def test_rocchio_moves_the_query_towards_its_best_items_and_keeps_unit_length():
    query = unit(1, 0, 0)
    vectors = np.stack([unit(0.6, 0.8, 0), unit(0.6, 0.8, 0), unit(0, 0, 1)])
    moved = rocchio(query, vectors, np.array([0, 1]), beta=0.75)
    assert abs(float(np.linalg.norm(moved)) - 1.0) < 1e-6
    # Closer to what the best items say, still closest to the question's own direction of the three axes.
    assert float(moved @ vectors[0]) > float(query @ vectors[0])
    assert float(moved @ vectors[2]) == 0.0
    assert rocchio(query, vectors, np.array([0]), beta=0.0) is query


def test_top_positions_skip_rows_that_are_not_candidates():
    scores = np.array([0.2, 0.9, 0.5, 0.95])
    assert top_positions(scores, np.array([True, True, True, False]), 2).tolist() == [1, 2]


def test_second_hop_votes_for_rows_sharing_a_rare_entity_with_the_best_items():
    # Row 0 leads and mentions entity 7 (rare) and 8 (in most of the bank: a speaker); row 3 mentions 7 in
    # another session, row 4 only the speaker, row 5 an entity the question names itself (9).
    scores = np.array([1.0, 0.8, 0.7, 0.2, 0.2, 0.2])
    links = [(0, 7), (0, 8), (0, 9), (3, 7), (4, 8), (5, 9), (1, 8)]
    counts = {7: 2, 8: 900, 9: 3}
    hop = entity_hop(sources=np.array([0, 1, 2]), scores=scores, links=links, counts=counts, documents=1000, named={9})
    assert hop[3] > 0.8  # an entity in 2 of 1,000 episodes, led to by the best item
    assert hop[4] == 0.0 and hop[5] == 0.0  # a speaker of most turns, an entity the question names
    assert hop[0] == hop[1] == hop[2] == 0.0  # the sources are direct hits already


def test_second_hop_vote_follows_the_relevance_of_the_item_that_leads():
    scores = np.array([1.0, 0.5, 0.1, 0.1])
    links = [(0, 1), (1, 2), (2, 1), (3, 2)]
    hop = entity_hop(
        sources=np.array([0, 1]), scores=scores, links=links, counts={1: 2, 2: 2}, documents=100, named=set()
    )
    assert hop[2] == 2 * hop[3] > 0
