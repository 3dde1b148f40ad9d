"""The four-player PIMC chooser: legal and true moves, a pluggable evaluator fed consistent worlds."""

from __future__ import annotations

import random

import pytest

from agent.partnership.pimc import (
    candidate_moves,
    choose_pimc_move,
    final_thirds,
    pimc_search,
    rollout_value,
)
from agent.partnership.sampling import World, is_consistent
from agent.partnership_player import choose_partnership_move
from tressette.partnership import (
    Declaration,
    PartnershipDeal,
    PartnershipMove,
    PartnershipOptions,
    PartnershipView,
    partnership_of,
    view_of_partnership,
)


def _world(deal: PartnershipDeal) -> World:
    return tuple(tuple(sorted(h)) for h in deal.hands)


def test_it_plays_only_legal_true_moves() -> None:
    """PIMC in seats 0 and 2 over 12 deals: the rules accept every card, declaration and signal it gives."""
    declared = signalled = 0
    for seed in range(12):
        deal = PartnershipDeal.new(seed % 4, random.Random(seed), PartnershipOptions())
        rng = random.Random(seed)
        while not deal.is_over:
            view = view_of_partnership(deal, deal.to_move)
            if deal.to_move % 2 == 0:
                move = choose_pimc_move(view, rng, worlds=4)
                assert move.declarations == view.declarable()  # all it holds, nothing else
                declared += len(move.declarations)
                signalled += move.signal is not None
            else:
                move = choose_partnership_move(view)
            deal.play_move(move, deal.to_move)  # a false declaration or signal raises
    assert declared > 0 and signalled > 10


def test_the_evaluator_sees_consistent_worlds_the_same_for_every_card() -> None:
    """A custom evaluator gets the position's full deal in each world, the same worlds for each card."""
    for seed in range(8, 40):  # the first seed whose position offers a choice (a follower, a void)
        deal = PartnershipDeal.new(2, random.Random(seed))
        while len(deal.history) < 3 or deal.table:
            deal.play_move(choose_partnership_move(view_of_partnership(deal, deal.to_move)))
        deal.play_move(choose_partnership_move(view_of_partnership(deal, deal.to_move)))  # someone leads
        view = view_of_partnership(deal, deal.to_move)
        if len(view.legal_moves()) > 1:
            break
    rng = random.Random(8)
    seen: dict[int, list[World]] = {}

    def evaluate(world: PartnershipDeal, move: PartnershipMove) -> float:
        assert world.to_move == view.seat and list(world.table) == list(view.table)
        assert is_consistent(view, _world(world))
        seen.setdefault(move.card, []).append(_world(world))
        return float(move.card)  # the highest card code wins

    result = pimc_search(view, rng, worlds=6, evaluate=evaluate)
    legal = view.legal_moves()
    assert len(legal) > 1
    assert result.move.card == max(legal) and result.worlds == 6
    assert set(seen) == set(legal)
    assert all(worlds == seen[legal[0]] for worlds in seen.values())
    assert len(set(seen[legal[0]])) > 1  # different worlds, not one repeated


def test_ties_go_to_the_rule_players_card() -> None:
    """When the evaluator cannot tell the cards apart, PIMC plays the rule player's card."""
    for seed in range(10):
        deal = PartnershipDeal.new(seed % 4, random.Random(seed))
        view = view_of_partnership(deal, deal.to_move)
        move = choose_pimc_move(view, random.Random(0), worlds=3, evaluate=lambda d, m: 1.0)
        assert move == choose_partnership_move(view)
        assert candidate_moves(view)[0].card == move.card


def test_one_legal_card_needs_no_search() -> None:
    """The last trick leaves one card: it is played at once, no world sampled."""
    deal = PartnershipDeal.new(0, random.Random(3))
    while len(deal.history) < 9:
        deal.play_move(choose_partnership_move(view_of_partnership(deal, deal.to_move)))
    view = view_of_partnership(deal, deal.to_move)
    result = pimc_search(view, random.Random(0), evaluate=lambda d, m: pytest.fail("searched"))
    assert result.worlds == 0 and result.move.card == view.hand[0]


def test_rollout_value_leaves_the_deal_and_scores_the_movers_side() -> None:
    """A rollout plays a copy to the end: the deal is unchanged, the value is the mover's side's thirds."""
    deal = PartnershipDeal.new(1, random.Random(5))
    before = (_world(deal), list(deal.points), len(deal.history))
    move = choose_partnership_move(view_of_partnership(deal, deal.to_move))
    value = rollout_value(deal, move)
    assert (_world(deal), list(deal.points), len(deal.history)) == before
    played = deal.copy()
    played.play_move(move)
    while not played.is_over:
        played.play_move(choose_partnership_move(view_of_partnership(played, played.to_move)))
    assert value == final_thirds(played, partnership_of(1))
    assert final_thirds(played, 0) + final_thirds(played, 1) == 35 + 3 * sum(played.outcome().declared)


def test_a_contradictory_record_is_relaxed_not_fatal() -> None:
    """A record no deal fits (seat 1 declares four of a rank the viewer holds one of): the chooser drops
    what cannot hold, says so, and still plays a legal card."""
    deal = PartnershipDeal.new(0, random.Random(2))
    view = view_of_partnership(deal, 0)
    rank = next(c % 10 for c in view.hand if c % 10 in (0, 1, 2))
    bad = PartnershipView(view.seat, view.options, view.first_leader, view.hand, view.history, view.table,
                          view.table_signal, ((), (Declaration("four", rank=rank),), (), ()))
    result = pimc_search(bad, random.Random(0), worlds=4)
    assert result.relaxed == "all" and result.worlds == 4
    assert result.move.card in view.legal_moves()
    blind = pimc_search(bad, random.Random(0), worlds=4, read=False)  # not reading it, nothing to relax
    assert blind.relaxed is None and blind.worlds == 4


def test_a_blind_search_samples_past_declarations() -> None:
    """``read=False`` ignores what declarations say: some worlds break them, and the search still runs."""
    for seed in range(200):  # the first seed where seat 1 declares in the first trick, before seat 2 plays
        deal = PartnershipDeal.new(0, random.Random(seed))
        deal.play_move(choose_partnership_move(view_of_partnership(deal, 0)))
        deal.play_move(choose_partnership_move(view_of_partnership(deal, 1)))
        if deal.declarations[1]:
            break
    view = view_of_partnership(deal, 2)
    shown = set().union(*(d.cards for d in view.declarations[1])) - set(deal.history[0].cards if deal.history
                                                                          else deal.table)
    broken = 0

    def evaluate(world: PartnershipDeal, move: PartnershipMove) -> float:
        nonlocal broken
        broken += not shown <= set(world.hands[1])
        return 0.0

    pimc_search(view, random.Random(3), worlds=20, evaluate=evaluate, read=False)
    assert shown and broken > 0
    broken = 0
    pimc_search(view, random.Random(3), worlds=20, evaluate=evaluate)
    assert broken == 0


def test_not_the_seat_to_move() -> None:
    """Asked for a seat that is not to move, the chooser refuses as the rule player does."""
    deal = PartnershipDeal.new(0, random.Random(2))
    with pytest.raises(ValueError, match="not the seat to move"):
        choose_pimc_move(view_of_partnership(deal, 1), random.Random(0))
