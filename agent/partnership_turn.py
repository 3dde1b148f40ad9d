"""A four-player seat's turn answered (docs/protocol-four.md, "Bots"): the state checked by the rules, the
move chosen at the turn's level (:mod:`agent.partnership.levels`)."""

from __future__ import annotations

import random
import time
from collections.abc import Mapping
from typing import Any

from agent.load import Pool
from agent.partnership.levels import LEVELS, PARTNERSHIP_LEVELS, choose_level_move
from tressette import card_name
from tressette.partnership import parse_partnership_view

__all__ = ["DEFAULT_LEVEL", "PARTNERSHIP_LEVELS", "answer_partnership", "answer_partnership_turn", "level_time_ms"]

DEFAULT_LEVEL = "rules"
"""The level played when a turn names none (a server from before the four-player levels)."""


def level_time_ms(level: str | None) -> int:
    """Return ``level``'s per-move budget in ms (the default level's for None); KeyError for an unknown level."""
    return LEVELS[level or DEFAULT_LEVEL].time_ms


def answer_partnership(raw_state: dict[str, Any], level: str | None = None, time_ms: int | None = None,
                       seed: int | None = None) -> dict[str, Any]:
    """Validate a four-player state with the rules package; return the move's ``play`` fields (card,
    declarations, signal) chosen at ``level`` (default :data:`DEFAULT_LEVEL`) within ``time_ms``.

    Raises KeyError for a level the agent does not play, ValueError/InvalidStateError for a bad state.
    """
    lv = level or DEFAULT_LEVEL
    if lv not in LEVELS:
        raise KeyError(f"unknown four-player level {lv!r}")
    view = parse_partnership_view(raw_state)
    move = choose_level_move(view, lv, random.Random(seed), time_cap_ms=time_ms)
    return {"card": card_name(move.card), "declarations": [d.to_dict() for d in move.declarations],
            "signal": None if move.signal is None else move.signal.value}


def answer_partnership_turn(turn: Mapping[str, Any], pool: Pool, arrived: float) -> dict[str, Any]:
    """Answer a server's four-player ``bot_turn`` (in a decision thread): its level, the budget the ``pool``
    gives it (the level's time, the turn's ``time_ms`` cap, shrunk under load and by the time waited since
    ``arrived``, a ``time.perf_counter()``), as :mod:`agent.load` does for two-player turns.

    Raises KeyError for an unknown level, ValueError/InvalidStateError for a bad state.
    """
    level = turn.get("level") or None
    level_ms = level_time_ms(level)
    budget = pool.start(level_ms, int(turn.get("time_ms") or level_ms), (time.perf_counter() - arrived) * 1000)
    try:
        return answer_partnership(turn["state"], level, budget)
    finally:
        pool.end()
