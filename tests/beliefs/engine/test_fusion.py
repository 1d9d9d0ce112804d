from beliefs.engine.fusion import reciprocal_rank_fusion
from beliefs.engine.types import Hit


def hits(channel: str, ids: list[int]) -> list[Hit]:
    return [Hit(item_id=item_id, channel=channel, rank=rank, score=1.0 / rank) for rank, item_id in enumerate(ids, 1)]


def test_rrf_scores_are_sum_of_reciprocal_ranks_with_k_60():
    fused = reciprocal_rank_fusion({"semantic": hits("semantic", [1, 2]), "keyword": hits("keyword", [2, 3])})
    scores = {candidate.item_id: candidate.score for candidate in fused}
    assert scores[2] == 1 / 62 + 1 / 61
    assert scores[1] == 1 / 61
    assert scores[3] == 1 / 62
    assert [candidate.item_id for candidate in fused] == [2, 1, 3]


def test_item_found_by_both_channels_beats_top_of_one_channel():
    fused = reciprocal_rank_fusion({"semantic": hits("semantic", [7, 8, 9]), "keyword": hits("keyword", [1, 2, 9])})
    assert fused[0].item_id == 9
    assert fused[0].channels == ("keyword", "semantic")
    assert fused[0].channel_ranks == {"semantic": 3, "keyword": 3}


def test_channel_weights_change_the_order():
    lists = {"semantic": hits("semantic", [1]), "keyword": hits("keyword", [2])}
    assert reciprocal_rank_fusion(lists, weights={"keyword": 2.0})[0].item_id == 2
    assert reciprocal_rank_fusion(lists, weights={"semantic": 2.0})[0].item_id == 1


def test_a_channel_votes_once_per_item():
    fused = reciprocal_rank_fusion({"keyword": [Hit(5, "keyword", 1, 1.0), Hit(5, "keyword", 2, 0.5)]})
    assert len(fused) == 1
    assert fused[0].score == 1 / 61


def test_empty_input_gives_empty_output():
    assert reciprocal_rank_fusion({}) == []
    assert reciprocal_rank_fusion({"semantic": []}) == []
