"""Match rules (tressette.match): whole points per deal, the target, both variants' winners, equal totals."""

from __future__ import annotations

import itertools
import random

import pytest

from tressette import (
    MATCH_TARGETS,
    Deal,
    InvalidStateError,
    Match,
    Variant,
    deal_score,
    match_winner,
    parse_state,
)

T, K = Variant.TRESSETTE, Variant.KIFAMENO


def test_a_deal_scores_eleven_whole_points_whatever_the_split() -> None:
    for a in range(36):
        assert sum(deal_score((a, 35 - a))) == 11, a


def test_a_played_deal_scores_its_thirds_rounded_down() -> None:
    rng = random.Random(7)
    deal = Deal.new(T, 0, rng)
    while not deal.is_over:
        deal.play(rng.choice(deal.legal_moves()))
    pts = deal.final_points()
    assert deal_score(pts) == (pts[0] // 3, pts[1] // 3)


@pytest.mark.parametrize(("variant", "scores", "winner"), [
    (T, (10, 10), None),
    (T, (11, 3), 0),          # the only one to reach it wins
    (T, (4, 12), 1),
    (K, (11, 3), 1),          # in Kifameno reaching it loses
    (K, (4, 12), 0),
    (T, (12, 14), 1),         # both reached: the higher total wins...
    (K, (12, 14), 0),         # ...or, in Kifameno, loses
    (T, (13, 13), None),      # equal totals play on
    (K, (13, 13), None),
    (T, (11, 11), None),
])
def test_who_wins_the_match_to_11(variant: Variant, scores: tuple[int, int], winner: int | None) -> None:
    assert match_winner(variant, 11, scores) == winner


def test_equal_totals_past_the_target_play_another_deal_which_decides() -> None:
    m = Match(T, 11, (5, 5))
    m = m.after((18, 17))           # 6 + 5 each way round: 11-10
    assert m.winner == 0
    tied = Match(T, 11, (8, 5)).after((9, 26))   # 3 and 8: 11-13
    assert tied.winner == 1
    level = Match(K, 21, (15, 16)).after((21, 14))  # 7 and 4: 22-20 -> seat 0 reached alone: loses
    assert level.winner == 1
    even = Match(T, 21, (16, 15)).after((15, 20))   # 5 and 6: 21-21: on
    assert even.winner is None and not even.is_over
    assert even.after((18, 17)).winner == 0         # 27-26
    assert even.after((17, 18)).winner == 1


def test_a_match_ends_within_bounded_deals_and_totals_add_up() -> None:
    rng = random.Random(3)
    for variant, target in itertools.product((T, K), MATCH_TARGETS):
        m = Match(variant, target)
        while not m.is_over:
            a = rng.randrange(36)
            m = m.after((a, 35 - a))
            assert m.deals < 100
        assert sum(m.scores) == 11 * m.deals
        assert m.margin() == abs(m.scores[0] - m.scores[1]) > 0
        with pytest.raises(ValueError):
            m.after((18, 17))


def test_only_the_offered_targets() -> None:
    with pytest.raises(ValueError):
        Match(T, 20)


def test_the_agent_state_carries_the_match_and_refuses_a_bad_one() -> None:
    base = {"hand": ["K 3", "K KAVAL", "D 2", "D AS", "B 7"],
            "hiscards": ["D KAVAL", "D KRALJ", "D 3", "K 2", "K 7"],
            "unknown": ["D KAVAL", "D KRALJ", "D 3", "K 2", "K 7"], "inplay": [], "points": 18, "cfm": False}
    assert parse_state(base).match is None
    state = parse_state({**base, "match": {"target": 21, "me": 5, "him": 12}})
    assert state.match is not None and (state.match.target, state.match.me, state.match.him) == (21, 5, 12)
    assert parse_state(state.to_dict()) == state
    for bad in ({"target": 20, "me": 1, "him": 1}, {"target": 21, "me": -1, "him": 0}, [21, 1, 1],
                {"target": 21, "me": 21, "him": 3}, {"target": 21, "me": "1", "him": 0},
                {"target": 21, "me": 1}, {"target": 21, "me": 1, "him": 1, "x": 0}):
        with pytest.raises(InvalidStateError):
            parse_state({**base, "match": bad})
