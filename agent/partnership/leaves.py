"""World evaluators for PIMC: every candidate card of one sampled world valued at once.

A :data:`WorldEvaluator` receives a sampled world's full-information deal at the chooser's
position and the candidate moves, and returns each move's value: the mover's partnership's
final deal points **in thirds** (card thirds, the last trick's included, plus 3 for each
declared whole point), as :data:`agent.partnership.pimc.Evaluator` does for one move.

- :func:`rollouts`: each card followed by the rule player in every seat to the end (the
  first evaluator, one playout per card);
- :class:`SolverLeaves`: the compiled double-dummy solver (:mod:`agent.partnership.solver`)
  where it is cheap.  With at most ``exact_tricks`` tricks left at the root, one solve of the
  world gives every card's exact value; before that, each card is followed by the rule
  player until ``leaf_tricks`` tricks are left and the rest is solved exactly.  The
  thresholds come from the solver's times by tricks left (``treset-agent bench
  partnership``, lab/MEASUREMENTS.md "Session 24").

Declared points are the same for every candidate (each declares everything it holds), but
they are added so the values are deal scores in thirds, comparable with :func:`rollouts`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import TypeAlias

from agent.partnership.position import OpenPosition
from agent.partnership.solver import DoubleDummySolver
from agent.partnership_player import choose_partnership_move
from tressette.partnership import (
    N_TRICKS,
    PartnershipDeal,
    PartnershipMove,
    partnership_of,
    view_of_partnership,
)

WorldEvaluator: TypeAlias = Callable[[PartnershipDeal, Sequence[PartnershipMove]], list[float]]
"""``evaluate(deal, moves)``: each move's final thirds for the mover's partnership in this world."""

def tricks_left(deal: PartnershipDeal) -> int:
    """Return the tricks not yet finished (the one in progress counts)."""
    return N_TRICKS - len(deal.history)


def _declared_thirds(deal: PartnershipDeal, side: int, move: PartnershipMove) -> int:
    """Return ``side``'s declared points in thirds once ``move`` (of ``side``'s seat to move) is played."""
    return 3 * (deal.declared_points()[side] + sum(d.points for d in move.declarations))


def _play_rules_until(deal: PartnershipDeal, left: int) -> None:
    """Play the rule player in every seat on ``deal`` until at most ``left`` tricks are left (or the end)."""
    while not deal.is_over and (tricks_left(deal) > left or deal.table):
        deal.play_move(choose_partnership_move(view_of_partnership(deal, deal.to_move)))


def rollouts(deal: PartnershipDeal, moves: Sequence[PartnershipMove]) -> list[float]:
    """Value each move by one playout of the rule player in every seat (its own view: it never peeks)."""
    side = partnership_of(deal.to_move)
    out = []
    for move in moves:
        world = deal.copy()
        world.play_move(move)
        _play_rules_until(world, 0)
        o = world.outcome()
        out.append(float(o.points[side] + 3 * o.declared[side]))
    return out


_local = threading.local()


def thread_solver(bits: int = 16) -> DoubleDummySolver:
    """Return this thread's solver (the solver is not thread-safe; its table outlives one search)."""
    solver: DoubleDummySolver | None = getattr(_local, "solver", None)
    if solver is None:
        solver = _local.solver = DoubleDummySolver(bits)
    return solver


class SolverLeaves:
    """The double-dummy solver at the leaves, rule-player playouts before them (see the module).

    ``exact_tricks``: with at most this many tricks left at the root, the world is solved whole
    (every card's exact value in one solve); ``leaf_tricks``: before that, a playout stops at
    the first trick start with at most this many tricks left and the solver finishes it.
    """

    def __init__(self, exact_tricks: int = 6, leaf_tricks: int = 5) -> None:
        """Set the thresholds (tricks left); they must be between 0 and 10."""
        if not (0 <= leaf_tricks <= N_TRICKS and 0 <= exact_tricks <= N_TRICKS):
            raise ValueError("the thresholds are tricks left, from 0 to 10")
        self.exact_tricks = exact_tricks
        self.leaf_tricks = leaf_tricks

    def __call__(self, deal: PartnershipDeal, moves: Sequence[PartnershipMove]) -> list[float]:
        """Return each move's final thirds for the mover's partnership in ``deal`` (not changed)."""
        side = partnership_of(deal.to_move)
        solver = thread_solver()
        if tricks_left(deal) <= self.exact_tricks:
            values = solver.solve(OpenPosition.from_deal(deal), exact_all=True).values
            return [float(values[m.card] + _declared_thirds(deal, side, m)) for m in moves]
        out = []
        for move in moves:
            world = deal.copy()
            world.play_move(move)
            _play_rules_until(world, self.leaf_tricks)
            thirds = world.points[side]
            if not world.is_over:
                position = OpenPosition.from_deal(world)
                future0 = solver.future(position)
                thirds += future0 if side == 0 else position.points_left() - future0
            out.append(float(thirds + _declared_thirds(deal, side, move)))
        return out
