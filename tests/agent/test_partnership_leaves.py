"""The world evaluators: rollouts as the one-move evaluator, the solver's values where it solves, a timed PIMC."""

from __future__ import annotations

import random

import pytest

from agent.partnership.leaves import SolverLeaves, rollouts, tricks_left
from agent.partnership.pimc import MIN_WORLDS, candidate_moves, pimc_search, rollout_value
from agent.partnership.position import OpenPosition
from agent.partnership.solver_ref import ReferenceSolver
from agent.partnership_player import choose_partnership_move
from tressette.partnership import PartnershipDeal, partnership_of, view_of_partnership


def _deal(seed: int, tricks: int, cards: int = 0) -> PartnershipDeal:
    """Return seeded deal ``seed`` played by the rule player to ``tricks`` tricks and ``cards`` more cards."""
    deal = PartnershipDeal.new(seed % 4, random.Random(seed))
    while len(deal.history) < tricks or len(deal.table) < cards:
        deal.play_move(choose_partnership_move(view_of_partnership(deal, deal.to_move)))
    return deal


def test_rollouts_value_every_move_as_the_one_move_evaluator() -> None:
    """All candidates at once are the one-move rollouts, move for move (and the deal is left alone)."""
    for seed in range(6):
        deal = _deal(seed, seed % 3, seed % 4)
        moves = candidate_moves(view_of_partnership(deal, deal.to_move))
        before = deal.copy().history
        assert rollouts(deal, moves) == [rollout_value(deal, m) for m in moves]
        assert deal.history == before


def test_the_exact_solve_gives_the_reference_values_plus_the_declarations() -> None:
    """With few tricks left every card's value is the reference solver's, declarations added as thirds."""
    for seed in range(8):
        deal = _deal(seed, 7, seed % 4)  # three tricks left
        assert tricks_left(deal) == 3
        moves = candidate_moves(view_of_partnership(deal, deal.to_move))
        side = partnership_of(deal.to_move)
        exact = ReferenceSolver().solve(OpenPosition.from_deal(deal)).values
        got = SolverLeaves(exact_tricks=3)(deal, moves)
        assert got == [exact[m.card] + 3 * deal.declared_points()[side] for m in moves]


def test_a_leaf_at_the_end_is_a_rollout() -> None:
    """A leaf at 0 tricks left is a playout to the end (the rollouts' values); an earlier leaf values every move
    within a deal's range."""
    for seed in range(6):
        deal = _deal(seed, 1, 2)
        moves = candidate_moves(view_of_partnership(deal, deal.to_move))
        assert SolverLeaves(exact_tricks=0, leaf_tricks=0)(deal, moves) == rollouts(deal, moves)
        leaf = SolverLeaves(exact_tricks=0, leaf_tricks=4)(deal, moves)
        assert all(0 <= v <= 35 + 3 * 20 for v in leaf) and len(leaf) == len(moves)


def test_bad_thresholds_are_refused() -> None:
    """Thresholds are tricks left, 0 to 10."""
    with pytest.raises(ValueError):
        SolverLeaves(exact_tricks=11)


def test_a_timed_search_values_at_least_a_few_worlds_and_at_most_its_cap() -> None:
    """A tiny budget still searches :data:`MIN_WORLDS` worlds; a large one stops at the cap."""
    deal = _deal(3, 0)
    view = view_of_partnership(deal, deal.to_move)
    quick = pimc_search(view, random.Random(1), worlds=1000, time_ms=0.001, world_evaluator=SolverLeaves())
    assert quick.worlds == MIN_WORLDS and quick.move.card in view.legal_moves()
    capped = pimc_search(view, random.Random(1), worlds=5, time_ms=10**6, world_evaluator=rollouts)
    assert capped.worlds == 5
    fixed = pimc_search(view, random.Random(1), worlds=5, world_evaluator=rollouts)
    assert fixed.values == capped.values  # same worlds, same values: the time only decides how many
