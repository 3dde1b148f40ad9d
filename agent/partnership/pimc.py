"""Perfect-information Monte Carlo (PIMC) for the four-player game: choose by averaging sampled worlds.

For the seat to move, :func:`choose_pimc_move` draws deals of the hidden hands consistent
with its view (:mod:`agent.partnership.sampling`): ``worlds`` of them, or with ``time_ms`` as
many as the time allows (at least :data:`MIN_WORLDS`); values every legal card in every world
and plays the card with the best mean.  The same worlds serve every card (common random
numbers), so the comparison between cards is not blurred by the luck of the draw.

A world is valued by a world evaluator (:mod:`agent.partnership.leaves`: every candidate at
once; the levels use the double-dummy solver at the leaves) or by a one-move evaluator,
``evaluate(deal, move) -> float``: given the full-information deal of one world at the current
position (:func:`agent.partnership.sampling.world_deal`) and a move, the mover's partnership's
final deal points **in thirds** (card thirds, the last trick's included, plus 3 for each
declared whole point).  The default is :func:`rollout_value`: the world played out by the
rule-based player (:func:`agent.partnership_player.choose_partnership_move`) in every seat.

Declarations and signals: the chooser declares everything it holds (declared points only
add) and gives the rule player's signals (*volo* with its last card of a suit, *striscio*
keeping two or more).  Searching over signals would be pointless here: an evaluator that
sees every hand gains nothing from what a signal tells, so every signal would score alike.

>>> import random
>>> from tressette.partnership import PartnershipDeal, view_of_partnership
>>> deal = PartnershipDeal.new(first_leader=0, rng=random.Random(2))
>>> view = view_of_partnership(deal, 0)
>>> move = choose_pimc_move(view, random.Random(1), worlds=4)
>>> move.card in view.legal_moves()
True
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeAlias

from agent.partnership.leaves import WorldEvaluator
from agent.partnership.sampling import (
    NoConsistentWorld,
    Weight,
    World,
    WorldSampler,
    sample_worlds,
    world_deal,
)
from agent.partnership_player import choose_partnership_move, rule_signal
from tressette.cards import Card
from tressette.partnership import (
    PartnershipDeal,
    PartnershipMove,
    PartnershipView,
    partnership_of,
    view_of_partnership,
)

MIN_WORLDS = 4
"""The fewest worlds a timed search values, however short its time (fewer would be a coin toss)."""
BATCH = 8
"""Worlds drawn at a time by a timed search (a weighted draw resamples within a batch)."""

Evaluator: TypeAlias = Callable[[PartnershipDeal, PartnershipMove], float]
"""``evaluate(deal, move)``: the mover's partnership's final deal points in thirds after ``move``."""


def final_thirds(deal: PartnershipDeal, side: int) -> int:
    """Return ``side``'s deal points in thirds once ``deal`` is over: card thirds plus 3 per declared point."""
    outcome = deal.outcome()
    return outcome.points[side] + 3 * outcome.declared[side]


def rollout_value(deal: PartnershipDeal, move: PartnershipMove) -> float:
    """Return the mover's partnership's final thirds when ``move`` is played and the rule player plays on.

    Every seat plays :func:`choose_partnership_move` on its own view of the world (it never peeks),
    so the value is what the card is worth against and beside that player.  ``deal`` is not changed.
    """
    side = partnership_of(deal.to_move)
    world = deal.copy()
    world.play_move(move)
    while not world.is_over:
        world.play_move(choose_partnership_move(view_of_partnership(world, world.to_move)))
    return float(final_thirds(world, side))


def candidate_moves(view: PartnershipView, signals: bool = True) -> list[PartnershipMove]:
    """Return one move per legal card (all declarations, the rule player's signal), the rule player's card first.

    ``signals=False``: no signal with any card (to measure what giving them is worth).

    Ties in :func:`choose_pimc_move` go to the earlier move, so when the worlds cannot tell the
    cards apart the chooser plays as the rule player does.
    """
    legal = view.legal_moves()
    preferred = choose_partnership_move(view).card
    order = [preferred, *(c for c in legal if c != preferred)]
    declared = view.declarable()
    return [PartnershipMove(c, declared, rule_signal(view, c) if signals else None) for c in order]


@dataclass(frozen=True, slots=True)
class PimcResult:
    """The chosen move, each candidate's mean value (thirds) and how many worlds were searched."""

    move: PartnershipMove
    values: dict[Card, float]
    worlds: int
    relaxed: str | None = None
    """What was ignored to find worlds when the record contradicted itself (``signals``, ``all``), else None."""


def _sampler(view: PartnershipView, read: bool) -> tuple[WorldSampler, str | None]:
    """Return a sampler with worlds, dropping signals then declarations if the record admits none."""
    sampler = WorldSampler.of(view, signals=read, declarations=read)
    if sampler.count:
        return sampler, None
    sampler = WorldSampler.of(view, signals=False)
    if sampler.count:
        return sampler, "signals"
    return WorldSampler.of(view, signals=False, declarations=False), "all"


def _per_world(evaluate: Evaluator) -> WorldEvaluator:
    """Return a world evaluator calling the one-move ``evaluate`` on each move."""
    return lambda deal, moves: [evaluate(deal, m) for m in moves]


def pimc_search(view: PartnershipView, rng: random.Random, *, worlds: int = 32, evaluate: Evaluator | None = None,
                weight: Weight | None = None, read: bool = True, time_ms: float | None = None,
                world_evaluator: WorldEvaluator | None = None, min_worlds: int = MIN_WORLDS,
                signals: bool = True) -> PimcResult:
    """Value every legal card of the seat to move over sampled worlds and pick the best mean.

    Without ``time_ms``, exactly ``worlds`` worlds are searched; with it, worlds are drawn and
    valued until ``time_ms`` milliseconds (wall clock, from the call) are spent, at least
    ``min_worlds`` and at most ``worlds`` of them (a level is defined by its time).  Each world's
    cards are valued by ``world_evaluator`` (:mod:`agent.partnership.leaves`: all candidates at
    once) or by the one-move ``evaluate``; rule-player rollouts by default.  ``weight`` (an
    opponent or partner model) reweighs the worlds (:func:`sample_worlds`); uniform by default.
    ``read=False`` samples without what signals and declarations say (voids shown by not
    following still count): to measure what reading them is worth; ``signals=False`` gives none
    (:func:`candidate_moves`).  A single legal card is
    returned without search (``worlds`` = 0).  Raises ValueError if the viewer is not to move,
    :class:`NoConsistentWorld` if no world fits even the bare record.
    """
    start = time.perf_counter()
    moves = candidate_moves(view, signals)  # ValueError when the viewer is not to move
    if len(moves) == 1:
        return PimcResult(moves[0], {moves[0].card: 0.0}, 0)
    value_all = world_evaluator or _per_world(evaluate or rollout_value)
    sampler, relaxed = _sampler(view, read)
    if not sampler.count:
        raise NoConsistentWorld("no deal of the hidden hands fits even the cards and counts")
    # A world that ignores part of the record would be refused by the replay: build its deal directly.
    to_deal = world_deal if relaxed is None and read else _unchecked_deal
    deadline = None if time_ms is None else start + time_ms / 1000
    totals = [0.0] * len(moves)
    done = 0
    while done < worlds:
        batch = min(BATCH if deadline is not None else worlds, worlds - done)
        for world in sample_worlds(view, batch, rng, weight=weight, sampler=sampler):
            for i, v in enumerate(value_all(to_deal(view, world), moves)):
                totals[i] += v
            done += 1
            if deadline is not None and done >= min_worlds and time.perf_counter() >= deadline:
                break
        if deadline is not None and done >= min_worlds and time.perf_counter() >= deadline:
            break
    values = {m.card: t / done for m, t in zip(moves, totals, strict=True)}
    best = max(range(len(moves)), key=lambda i: (totals[i], -i))
    return PimcResult(moves[best], values, done, relaxed)


def _unchecked_deal(view: PartnershipView, world: World) -> PartnershipDeal:
    """Return the world's deal at the view's position without replaying the record (it would be refused)."""
    h, d = world, view.declarations
    return PartnershipDeal(
        options=view.options, first_leader=view.first_leader, deck=tuple(c for hand in world for c in hand),
        hands=(list(h[0]), list(h[1]), list(h[2]), list(h[3])), leader=view.leader, table=list(view.table),
        table_signal=view.table_signal, points=list(view.points), history=list(view.history),
        declarations=(list(d[0]), list(d[1]), list(d[2]), list(d[3])))


def choose_pimc_move(view: PartnershipView, rng: random.Random, *, worlds: int = 32, evaluate: Evaluator | None = None,
                     weight: Weight | None = None, read: bool = True, time_ms: float | None = None,
                     world_evaluator: WorldEvaluator | None = None) -> PartnershipMove:
    """Return the move :func:`pimc_search` picks for the seat to move (declarations and signal included)."""
    return pimc_search(view, rng, worlds=worlds, evaluate=evaluate, weight=weight, read=read, time_ms=time_ms,
                       world_evaluator=world_evaluator).move
