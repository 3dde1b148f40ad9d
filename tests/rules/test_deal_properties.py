"""Properties of the rules engine over many seeded random deals of each variant."""

from __future__ import annotations

import random

import pytest

from tressette import (
    ALL_CARDS,
    TOTAL_POINTS,
    Deal,
    IllegalMoveError,
    Variant,
    parse_state,
    points_of,
    state_from_view,
    suit_of,
    view_of,
)

N_DEALS = 4_000
"""Seeded random deals per variant, every rule checked in each (10,000 before session 17, for the suite's time)."""


def _refused(deal: Deal, card: int, seat: int | None, reason: str, words: str) -> None:
    """Check that ``deal`` refuses ``card`` (from ``seat``) with ``reason`` and ``words`` in the message.

    The same check as ``pytest.raises(IllegalMoveError, match=words)``, which costs several times more: this
    runs about 300,000 times a variant.
    """
    try:
        deal.play(card) if seat is None else deal.play(card, seat=seat)
    except IllegalMoveError as refused:
        assert refused.reason == reason and words in str(refused), (refused.reason, str(refused))
        return
    raise AssertionError(f"{card} from seat {seat} was not refused ({reason})")


def _check_view_and_state(deal: Deal, seat: int, drawn_by: dict[int, int]) -> None:
    """Check what ``seat`` sees of ``deal`` against the full deal."""
    view = view_of(deal, seat)
    opp = 1 - seat
    assert sorted(view.hand) == sorted(deal.hands[seat])
    visible = set(view.known[opp])
    hidden_hand = set(deal.hands[opp])
    # Never a card the player may not know: only cards of the opponent's hand that were
    # drawn face up (or all of them once the stock is empty).
    assert visible <= hidden_hand
    if deal.stock:
        assert all(drawn_by.get(c) == opp for c in visible)
        # Every card the opponent drew and still holds is shown.
        assert visible == {c for c in hidden_hand if drawn_by.get(c) == opp}
    else:
        assert visible == hidden_hand
    assert not set(deal.stock) & (set(view.known[0]) | set(view.known[1]))
    assert view.stock_count == len(deal.stock)
    if view.to_move != seat:
        return
    state = state_from_view(view)
    played = {c for t in deal.history for c in t.cards}
    assert set(state.unknown) == set(ALL_CARDS) - set(state.hand) - played - set(deal.table)
    assert set(state.hiscards) <= set(state.unknown)
    assert set(state.unknown) == hidden_hand | set(deal.stock)
    assert state.points == deal.points[seat]
    assert parse_state(state.to_json()) == state
    assert parse_state(state.to_dict() | {"history": None, "hispoints": None}).history is None
    assert state.legal_moves() == deal.legal_moves()


@pytest.mark.slow
@pytest.mark.parametrize("variant", list(Variant))
def test_random_deals_keep_every_rule(variant: Variant) -> None:
    """Deal, play and score thousands of seeded deals, checking every rule on the way."""
    winners = [0, 0]
    for seed in range(N_DEALS):
        rng = random.Random(seed)
        deal = Deal.new(variant, first_leader=seed % 2, rng=rng)
        assert sorted(deal.deck) == list(ALL_CARDS)
        drawn_by: dict[int, int] = {}
        # Views are checked at every move of one deal in ten, at one random move of the others.
        check_all_views = seed % 10 == 0
        check_at = rng.randrange(40)
        move_number = 0
        while not deal.is_over:
            assert deal.last_card == (move_number == 39)  # the deal ends with its 40th card, always
            mover = deal.to_move
            hand = list(deal.hands[mover])
            legal = deal.legal_moves()
            if deal.table and any(suit_of(c) == suit_of(deal.table[0]) for c in hand):
                assert legal == sorted(c for c in hand if suit_of(c) == suit_of(deal.table[0]))
            else:
                assert legal == sorted(hand)
            if check_all_views or move_number == check_at:
                _check_view_and_state(deal, mover, drawn_by)
                _check_view_and_state(deal, 1 - mover, drawn_by)
            illegal = [c for c in hand if c not in legal]
            if illegal:
                before = (list(deal.hands[mover]), list(deal.table), deal.trick_number)
                _refused(deal, rng.choice(illegal), None, "must_follow", "follow suit")
                assert before == (list(deal.hands[mover]), list(deal.table), deal.trick_number)
            _refused(deal, legal[0], 1 - mover, "not_your_turn", "not your turn")
            away = next(c for c in ALL_CARDS if c not in hand)
            _refused(deal, away, mover, "not_in_hand", "not in your hand")
            trick = deal.play(rng.choice(legal), seat=mover)
            move_number += 1
            if trick is not None:
                lead, follow = trick.cards
                leader_wins = suit_of(follow) != suit_of(lead) or follow % 10 > lead % 10
                assert trick.winner == (trick.leader if leader_wins else 1 - trick.leader)
                assert deal.leader == trick.winner
                for seat, card in trick.draws:
                    drawn_by[card] = seat
                assert [s for s, _ in trick.draws] in ([], [trick.winner, 1 - trick.winner])
                if deal.trick_number <= 10:
                    assert len(deal.hands[0]) == len(deal.hands[1]) == 10
        assert len(deal.history) == 20 and not deal.stock
        won = deal.won[0] + deal.won[1]
        assert sorted(won) == list(ALL_CARDS)
        outcome = deal.outcome()
        assert sum(outcome.points) == TOTAL_POINTS
        last = deal.history[-1].winner
        assert outcome.points[last] == points_of(deal.won[last]) + 3
        assert outcome.points[1 - last] == points_of(deal.won[1 - last])
        more = 0 if outcome.points[0] > outcome.points[1] else 1
        assert outcome.winner == (more if variant is Variant.TRESSETTE else 1 - more)
        winners[outcome.winner] += 1
        with pytest.raises(IllegalMoveError, match="over") as refused:
            deal.play(0)
        assert refused.value.reason == "over"
    assert min(winners) > N_DEALS // 4  # random play: both seats win often
