"""The four-player arena's players, named by a spec string.

A spec names one player, or a partnership of two as ``FIRST+SECOND`` (the partnership's lower
seat plays FIRST, its partner SECOND: the partner test's ``rules+level:master``).  A player is
a name and options after commas:

- ``rules``: the rule player (:func:`agent.partnership_player.choose_partnership_move`);
- ``random``: a random legal card, declaring everything, giving no signal;
- ``level:NAME``: a four-player level (:mod:`agent.partnership.levels`); options ``msN`` (its
  per-move time capped at N ms), ``wN`` (a searching level at exactly N worlds instead of its
  time or count), ``roll`` (rule-player rollouts instead of the level's world evaluator: what the
  solver at the leaves was measured against),
  ``nosig`` (gives no signal and reads none);
- ``pimcN``: PIMC with rollouts over exactly N worlds (the first arena runs); ``blind``: reading
  no signal or declaration;
- ``naive``: the two-player agent's determinized search naively extended to four: uniform
  worlds ignoring signals and declarations (voids still count), rule-player rollouts, no
  signals given; ``msN`` its time (default 1,000 ms).

>>> import random
>>> from tressette.partnership import PartnershipDeal, view_of_partnership
>>> view = view_of_partnership(PartnershipDeal.new(0, random.Random(1)), 0)
>>> player("rules+random", 1)(view, random.Random(0)).card in view.legal_moves()
True
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TypeAlias

from agent.partnership.leaves import WorldEvaluator, rollouts
from agent.partnership.levels import LEVELS, MAX_WORLDS, SEARCH, choose_level_move
from agent.partnership.pimc import pimc_search
from agent.partnership_player import choose_partnership_move
from tressette.partnership import PartnershipMove, PartnershipView

Player: TypeAlias = Callable[[PartnershipView, random.Random], PartnershipMove]
"""``play(view, rng)``: the move of the seat to move."""


def _random(view: PartnershipView, rng: random.Random) -> PartnershipMove:
    return PartnershipMove(rng.choice(view.legal_moves()), view.declarable(), None)


def _options(parts: list[str]) -> tuple[int | None, int | None, bool, bool, bool]:
    """Return (ms, worlds, rollouts, no signals, blind) from a spec's options; ValueError for an unknown one."""
    ms = worlds = None
    roll = nosig = blind = False
    for opt in parts:
        if opt.startswith("ms") and opt[2:].isdigit():
            ms = int(opt[2:])
        elif opt.startswith("w") and opt[1:].isdigit():
            worlds = int(opt[1:])
        elif opt in ("roll", "nosig", "blind"):
            roll, nosig, blind = roll or opt == "roll", nosig or opt == "nosig", blind or opt == "blind"
        else:
            raise ValueError(f"unknown player option {opt!r}")
    return ms, worlds, roll, nosig, blind


def _one(spec: str) -> Player:
    name, *parts = spec.split(",")
    ms, worlds, roll, nosig, blind = _options(parts)
    ev: WorldEvaluator = rollouts if roll else SEARCH
    if name == "rules":
        return lambda view, rng: choose_partnership_move(view)
    if name == "random":
        return _random
    if name.startswith("pimc") and name[4:].isdigit():
        n = int(name[4:])
        return lambda view, rng: pimc_search(view, rng, worlds=n, world_evaluator=rollouts, read=not blind).move
    if name == "naive":
        budget = ms or 1000
        return lambda view, rng: pimc_search(view, rng, worlds=MAX_WORLDS, time_ms=budget, world_evaluator=rollouts,
                                             read=False, signals=False).move
    if name.startswith("level:") and name[6:] in LEVELS:
        level = name[6:]
        lv = LEVELS[level]
        if lv.worlds != 0 and (worlds is not None or roll):
            # The level's search with another evaluator or world count: the lab's variants of it.
            n = worlds or lv.worlds or MAX_WORLDS
            cap = None if worlds is not None else min(lv.time_ms, ms or lv.time_ms)
            return lambda view, rng: pimc_search(view, rng, worlds=n, time_ms=cap, world_evaluator=ev,
                                                 read=not nosig, signals=not nosig).move
        return lambda view, rng: choose_level_move(view, level, rng, time_cap_ms=ms, signals=not nosig)
    raise ValueError(f"unknown player {spec!r}")


def player(spec: str, index: int) -> Player:
    """Return the player ``spec`` names for the partnership's ``index``-th seat (0: the lower one).

    Raises ValueError for a spec this module does not know.
    """
    halves = spec.split("+")
    if len(halves) > 2:
        raise ValueError(f"a partnership has two players: {spec!r}")
    players = [_one(h) for h in halves]
    return players[index if len(players) == 2 else 0]
