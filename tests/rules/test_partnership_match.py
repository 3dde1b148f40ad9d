"""Partnership matches: to 21, 31, 41; reaching the target, both reaching it, equal totals; who leads."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from tressette.partnership import (
    PARTNERSHIP_TARGETS,
    PartnershipDeal,
    PartnershipMatch,
    PartnershipOptions,
    PartnershipOutcome,
    draw_first_leader,
    leader_of_deal,
    partnership_match_winner,
)


@pytest.mark.parametrize(("target", "scores", "winner"), [
    (21, (20, 20), None),
    (21, (21, 9), 0),       # the only one to reach it wins
    (31, (25, 33), 1),
    (41, (44, 42), 0),      # both reached it: the higher total wins
    (41, (42, 44), 1),
    (31, (31, 31), None),   # equal totals play on
    (21, (26, 26), None),
])
def test_who_wins_the_match(target: int, scores: tuple[int, int], winner: int | None) -> None:
    assert partnership_match_winner(target, scores) == winner
    assert PartnershipMatch(target, 0, scores).winner == winner


def test_deal_scores_add_up_with_declarations() -> None:
    m = PartnershipMatch(21, first_leader=2)
    m = m.after(PartnershipOutcome((20, 15), (3, 4)))   # 6 + 3 and 5 + 4
    assert m.scores == (9, 9) and m.deals == 1 and m.winner is None
    m = m.after(PartnershipOutcome((35, 0), (0, 0)))    # 11 and 0
    assert m.scores == (20, 9)
    m = m.after(PartnershipOutcome((3, 32), (0, 3)))    # 1 and 10 + 3: 21 - 22, both reached, 1 is higher
    assert m.scores == (21, 22) and m.winner == 1 and m.is_over
    with pytest.raises(ValueError, match="over"):
        m.after(PartnershipOutcome((18, 17), (0, 0)))


def test_equal_totals_past_the_target_play_another_deal() -> None:
    m = PartnershipMatch(31, 0, (25, 24)).after(PartnershipOutcome((18, 17), (0, 1)))  # 6 and 5 + 1: 31 - 30
    assert m.winner == 0
    tied = PartnershipMatch(31, 0, (24, 25)).after(PartnershipOutcome((21, 14), (0, 0)))  # 7 and 4: 31 - 29
    assert tied.winner == 0
    level = PartnershipMatch(31, 0, (26, 25)).after(PartnershipOutcome((15, 20), (0, 0)))  # 5 and 6: 31 - 31
    assert level.winner is None and not level.is_over
    decided = level.after(PartnershipOutcome((17, 18), (0, 0)))  # 5 and 6: 36 - 37
    assert decided.winner == 1 and decided.deals == 2


def test_the_first_lead_passes_to_the_next_seat_each_deal() -> None:
    m = PartnershipMatch(41, first_leader=3)
    leaders = []
    for _ in range(6):
        leaders.append(m.next_leader)
        m = m.after(PartnershipOutcome((18, 17), (0, 0)))
    assert leaders == [3, 0, 1, 2, 3, 0]
    assert [leader_of_deal(3, i) for i in range(6)] == leaders


def test_the_first_lead_of_a_table_is_drawn_at_random_and_seeded() -> None:
    drawn = [draw_first_leader(random.Random(seed)) for seed in range(400)]
    assert drawn == [draw_first_leader(random.Random(seed)) for seed in range(400)]
    assert min(Counter(drawn).values()) > 60  # each of the four seats, about a quarter of the time
    assert PartnershipMatch.start(21, random.Random(9)).first_leader == draw_first_leader(random.Random(9))
    assert draw_first_leader() in range(4)


def test_targets_and_default_options() -> None:
    assert PARTNERSHIP_TARGETS == (21, 31, 41)
    for bad in (0, 11, 30):
        with pytest.raises(ValueError, match="played to"):
            PartnershipMatch(bad, 0)
    with pytest.raises(ValueError, match="seat"):
        PartnershipMatch(21, 4)
    # Declarations on by default for matches to 31 and 41; signals always.
    assert [PartnershipOptions.default_for(t) for t in (0, 21, 31, 41)] == [
        PartnershipOptions(False, True), PartnershipOptions(False, True),
        PartnershipOptions(True, True), PartnershipOptions(True, True)]


def test_a_played_match_ends_at_the_target() -> None:
    """Whole matches of random play end as soon as a partnership is ahead past the target, never before."""
    for seed in range(12):
        rng = random.Random(seed)
        m = PartnershipMatch.start(PARTNERSHIP_TARGETS[seed % 3], rng)
        while not m.is_over:
            before = m
            deal = PartnershipDeal.new(m.next_leader, rng, PartnershipOptions.default_for(m.target))
            while not deal.is_over:
                deal.play(rng.choice(deal.legal_moves()), declarations=deal.declarable())
            m = m.after(deal.outcome())
            assert sum(m.scores) - sum(before.scores) == 11 + sum(deal.outcome().declared)
        assert max(m.scores) >= m.target and m.scores[m.winner] > m.scores[1 - m.winner]
