"""The four-player bot's levels, from ``beginner`` to ``master``: how long and how each one plays.

- ``beginner`` plays the rule player (:mod:`agent.partnership_player`) but, one card in
  :data:`BEGINNER_SLIP`, a random legal card instead (still declaring all it holds, signals true):
  it keeps the rule player's habits and makes a newcomer's mistakes.
- ``rules`` is the honest rule-based player itself (the first four-player level: its name
  stays, the server's tests and the page know it).
- ``normal`` is the determinized search (:mod:`agent.partnership.pimc`) over
  :data:`NORMAL_WORLDS` sampled worlds: a fixed amount of thinking, the same on any machine.
- ``master`` searches for 1 s per card (as many worlds as the time allows).

The searching levels value each world's cards with the evaluator the lab measured best
(:data:`SEARCH`, lab/MEASUREMENTS.md "Session 24"), read the partners' and opponents'
signals and declarations through the sampler, declare everything they hold and give the
rule player's signals (*volo* with the last card of a suit, *striscio* keeping two or more).

``time_ms`` is each level's per-move budget (the service shrinks it under load like the
two-player levels', :mod:`agent.load`); ``rating`` is each level's strength on the portal's
rating scale, measured in bot-versus-bot duplicate deals (``lab/partnership_ladder.py``;
anchor and method in lab/MEASUREMENTS.md, "Session 24").

This is the one definition of the four-player levels: :data:`PARTNERSHIP_LEVELS` (what
``bot_hello`` announces, docs/protocol-four.md "Bots") is made from it, weakest first.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from agent.partnership.leaves import SolverLeaves, WorldEvaluator
from agent.partnership.pimc import pimc_search
from agent.partnership_player import choose_partnership_move, rule_signal
from tressette.partnership import PartnershipMove, PartnershipView

BEGINNER_SLIP = 0.4
"""The share of the beginner's cards played at random (among the legal ones) instead of by the rules."""
NORMAL_WORLDS = 2
"""The worlds ``normal`` searches for each card (a fixed count: the same play on any machine).  Two, not
more: with 8 it was already as strong as ``master`` at 200 ms (lab/MEASUREMENTS.md "Session 24"), so the
ladder would have had no step between them."""
SEARCH: WorldEvaluator = SolverLeaves()
"""The world evaluator of the searching levels: the solver at the leaves beat rule-player rollouts alone
by +0.75 points a deal (95% CI 0.03-1.47; 60 duplicate pairs at 250 ms a card, lab/MEASUREMENTS.md
"Session 24"), so rollouts alone are no longer a level's option (the lab keeps them for its baselines)."""
MAX_WORLDS = 100_000
"""A timed search's cap on worlds: never reached in practice, the time ends it."""


@dataclass(frozen=True, slots=True)
class PartnershipLevel:
    """A four-player level: a name people pick, a per-move time budget, and how it plays.

    ``worlds``: the search's worlds (None: as many as ``time_ms`` allows; 0: no search, the rule
    player); ``slip``: the share of moves played at random instead.
    """

    name: str
    time_ms: int
    summary: str
    worlds: int | None = 0
    slip: float = 0.0
    rating: int | None = None


LEVELS: dict[str, PartnershipLevel] = {
    lv.name: lv
    for lv in (
        PartnershipLevel("beginner", 100, "the rule player, with a random card one time in 2.5",
                         slip=BEGINNER_SLIP, rating=1460),
        PartnershipLevel("rules", 100, "the rule player: takes, loads its partner's tricks, throws cheap",
                         rating=1500),
        PartnershipLevel("normal", 200, f"searches {NORMAL_WORLDS} sampled deals a card", worlds=NORMAL_WORLDS,
                         rating=1600),
        PartnershipLevel("master", 1000, "searches sampled deals for 1 s a card", worlds=None, rating=1660),
    )
}
"""The four-player levels, weakest first.  Ratings: ``python -m lab.partnership_ladder`` on the Session 24 runs
(lab/MEASUREMENTS.md), the rule player anchored at 1500; 95% intervals beginner 1438-1485, normal 1556-1653,
master 1562-1758 (60 deals at 1 s; the same search at 200 ms: 1673, 1619-1726)."""

PARTNERSHIP_LEVELS: list[dict[str, Any]] = [
    {"name": lv.name, "time_ms": lv.time_ms, "rating": lv.rating} for lv in LEVELS.values()
]
"""The four-player levels announced in ``bot_hello`` (docs/protocol-four.md, "Bots"), weakest first, as the lobby
lists them (the server's default opponent is ``rules`` whatever the order)."""


def _slip_move(view: PartnershipView, rng: random.Random) -> PartnershipMove:
    """Return a random legal card, declaring everything held, with the rule player's true signal."""
    card = rng.choice(view.legal_moves())
    return PartnershipMove(card, view.declarable(), rule_signal(view, card))


def choose_level_move(view: PartnershipView, level: str, rng: random.Random, *, time_cap_ms: int | None = None,
                      signals: bool = True) -> PartnershipMove:
    """Return the move the seat to move plays at ``level`` (within ``time_cap_ms`` if given).

    ``signals=False`` makes the searching levels give no signal and read none (for the lab).
    Raises KeyError for an unknown level, ValueError if the viewer is not to move.
    """
    lv = LEVELS[level]
    if lv.slip and rng.random() < lv.slip:
        return _slip_move(view, rng)
    if lv.worlds == 0:
        return choose_partnership_move(view)
    budget = lv.time_ms if time_cap_ms is None else max(10, min(lv.time_ms, time_cap_ms))
    # The worlds cap makes ``normal`` play alike on any machine; the time still bounds it under load.
    return pimc_search(view, rng, worlds=MAX_WORLDS if lv.worlds is None else lv.worlds, time_ms=budget,
                       world_evaluator=SEARCH, read=signals, signals=signals).move
