import numpy as np

from beliefs.engine.packing import best_passage, pack_greedy
from beliefs.engine.rerank import (
    collapse_duplicates,
    cover,
    keep_order,
    latest_faces,
    rerank,
    rerank_scores,
    subject_named,
)
from beliefs.engine.types import FusedCandidate
from memoryhub.tokens import count_tokens


def candidate(pk, score=0.01, channels=("semantic",), **channel_scores):
    return FusedCandidate(item_id=pk, score=score, channels=channels, channel_scores=channel_scores)


def test_strong_single_signal_beats_two_weak_ones():
    # Item 1 was found by both channels at mediocre ranks (higher RRF); item 2 only by keyword,
    # but it matches the rare query terms far better.
    pool = [candidate(1, 0.032, ("keyword", "semantic")), candidate(2, 0.016, ("keyword",))]
    pool += [candidate(pk, 0.015) for pk in (3, 4, 5)]
    ranked = rerank(pool, dense=np.array([0.40, 0.38, 0.1, 0.1, 0.1]), lexical={1: 1.0, 2: 9.0})
    assert [r.candidate.item_id for r in ranked][:2] == [2, 1]
    assert ranked[0].features["lexical"] == 9.0


def test_temporal_and_graph_support_break_near_ties():
    pool = [candidate(1, 0.02), candidate(2, 0.02, ("semantic", "temporal"))]
    ranked = rerank(pool, dense=np.array([0.5, 0.5]), lexical={})
    assert ranked[0].candidate.item_id == 2
    pool = [candidate(1, 0.02), candidate(2, 0.02, ("graph", "semantic"), graph=3.0)]
    assert rerank(pool, dense=np.array([0.5, 0.5]), lexical={})[0].candidate.item_id == 2


def test_a_weak_best_keyword_match_does_not_get_the_full_lexical_weight_under_a_ceiling():
    # Candidate 0 shares only a common word with the query (BM25 1.0 of a possible 6.0); candidate 1 is much closer
    # in meaning. Normalised by the pool's best, the common word counts as a full keyword match and wins.
    # (candidate 2, far from the query, fixes the bottom of the dense scale)
    signals = {
        "dense": np.array([0.45, 0.55, 0.10]),
        "lexical": np.array([1.0, 0.0, 0.0]),
        "fusion": np.array([0.02, 0.02, 0.02]),
        "graph": np.zeros(3),
        "temporal": np.zeros(3),
    }
    by_best, _ = rerank_scores(**signals)
    under_ceiling, _ = rerank_scores(**signals, lexical_ceiling=6.0)
    assert by_best[0] > by_best[1]
    assert under_ceiling[1] > under_ceiling[0]
    # A ceiling below the pool's best changes nothing: the best still counts as a full match.
    low, _ = rerank_scores(**signals, lexical_ceiling=0.5)
    assert np.allclose(low, by_best)


def test_cross_encoder_scores_replace_dense_and_lexical():
    pool = [candidate(1), candidate(2)]
    ranked = rerank(pool, dense=np.array([0.9, 0.1]), lexical={1: 5.0}, cross_scores=np.array([-3.0, 4.0]))
    assert [r.candidate.item_id for r in ranked] == [2, 1]


def test_without_rerank_fused_order_is_kept():
    pool = [candidate(3, 0.5), candidate(1, 0.4)]
    assert [r.candidate.item_id for r in keep_order(pool)] == [3, 1]


def test_near_duplicates_collapse_into_the_higher_ranked_item():
    a = np.array([1.0, 0.0])
    b = np.array([0.999, 0.0447])
    c = np.array([0.0, 1.0])  # noqa: E702
    ranked = keep_order([candidate(1), candidate(2), candidate(3)])
    texts = {1: "backup finished on db-01", 2: "Backup finished on db-01!", 3: "something else"}
    kept = collapse_duplicates(ranked, {1: a, 2: b / np.linalg.norm(b), 3: c}, texts)
    assert [r.candidate.item_id for r in kept] == [1, 3]
    assert kept[0].duplicates == (2,)


def test_a_collapsed_group_shows_its_latest_copy_unless_another_scores_clearly_better():
    order = np.array([0, 3])
    absorbed = {0: [1, 2]}
    occurred = ["2026-01-05", "2026-01-07", "2026-01-06", "2026-01-01"]
    scores = np.array([0.500, 0.499, 0.498, 0.1])
    faces, groups, shown = latest_faces(order, absorbed, scores, occurred)
    assert faces.tolist() == [1, 3] and groups == {1: [0, 2]} and shown[1] == 0.5
    # The latest copy scores clearly lower (the question names the other's speaker): the ranked face stays.
    scores = np.array([0.600, 0.499, 0.498, 0.1])
    faces, groups, shown = latest_faces(order, absorbed, scores, occurred)
    assert faces.tolist() == [0, 3] and groups == {0: [1, 2]} and shown[0] == 0.6
    assert latest_faces(order, {}, scores, occurred)[1] == {}


def test_similar_items_about_different_entities_are_kept():
    a = np.array([1.0, 0.0])
    b = np.array([0.995, 0.0999])  # noqa: E702
    ranked = keep_order([candidate(1), candidate(2)])
    kept = collapse_duplicates(
        ranked, {1: a, 2: b / np.linalg.norm(b)}, {1: "disk alert on db-01", 2: "disk alert on db-02"}
    )
    assert [r.candidate.item_id for r in kept] == [1, 2]


def test_long_item_is_trimmed_to_its_matching_passage():
    text = " ".join(f"Filler sentence number {n} about nothing in particular." for n in range(30))
    text += " The root cause was an expired TLS certificate on the gateway. " + "More filler here. " * 20
    passage = best_passage(text, query="what was the root cause certificate", max_tokens=40, count_tokens=count_tokens)
    assert "expired TLS certificate" in passage
    assert count_tokens(passage) <= 40
    assert passage.startswith("…") and passage.endswith("…")


def test_packing_trims_instead_of_dropping_when_given_a_trimmer():
    items = [("short", 10), ("long", 200), ("tail", 5)]
    packing = pack_greedy(
        items,
        budget_tokens=60,
        cost=lambda i: i[1],
        trim=lambda item, room: (item[0] + "-trimmed", room - 5) if item[1] > 64 else None,
    )
    assert [name for name, _ in packing.chosen] == ["short", "long-trimmed", "tail"]
    assert packing.tokens_used == 60 and packing.trimmed == 1 and packing.dropped == 0


def _unit(*values):
    vector = np.array(values, dtype=np.float32)
    return vector / np.linalg.norm(vector)


def test_coverage_puts_a_different_relevant_item_before_a_second_wording_of_the_first():
    # Two wordings of "Ana moved to Lisbon" (closer to each other than to the question, different words: not
    # duplicates) outscore the turn that says where she works; a budget of two items should hold both facts.
    vectors = np.stack([_unit(1, 0.1, 0), _unit(1, 0.2, 0.05), _unit(0.35, 0, 1), _unit(0, 1, 0)])
    question = _unit(1, 0.3, 0.8)
    scores = np.array([1.0, 0.95, 0.9, 0.1])
    order = np.arange(4)
    covered = cover(order, scores, vectors, 0.3, vectors @ question)
    assert list(covered) == [0, 2, 1, 3]
    assert pack_greedy(list(covered), budget_tokens=2, cost=lambda _: 1).chosen == [0, 2]
    # Without the coverage weight the reranked order is packed as it is: the fact twice.
    kept = cover(order, scores, vectors, 0.0, vectors @ question)
    assert pack_greedy(list(kept), budget_tokens=2, cost=lambda _: 1).chosen == [0, 1]


def test_coverage_keeps_items_that_only_share_the_question_s_topic_in_relevance_order():
    # Three turns about the question, each closer to it than to the others: nothing is said twice.
    question = _unit(1, 1, 1)
    vectors = np.stack([_unit(1, 0.3, 0.3), _unit(0.3, 1, 0.3), _unit(0.3, 0.3, 1), _unit(1, -1, 0)])
    scores = np.array([1.0, 0.8, 0.6, 0.0])
    assert list(cover(np.arange(4), scores, vectors, 0.3, vectors @ question)) == [0, 1, 2, 3]


def test_a_question_names_a_subject_by_its_name_possessive_and_case_included():
    subjects = ["Melanie", "Caroline", "user:melanie", "", "Dana Smith", "user:dana"]
    assert list(subject_named("What do MELANIE's kids like?", subjects)) == [1, 0, 1, 0, 0, 0]
    # Every word of a two-word name must be in the question; one word of it names the qualified subject only.
    assert list(subject_named("what did dana say about the renewal", subjects)) == [0, 0, 0, 0, 0, 1]
    assert list(subject_named("what did Dana Smith say", subjects)) == [0, 0, 0, 0, 1, 1]
    assert not subject_named("Melanies and Carolines", subjects).any()
