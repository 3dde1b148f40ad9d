"""The bot levels a table may ask for, and their per-move thinking time (shown in the lobby).

The agent's ``agent/levels.py`` defines the levels; each bot tells the server the ones it
plays, with their per-move times, in ``bot_hello`` (``level_info``, docs/protocol.md).
:data:`FALLBACK_TIME_MS` (the shipped agent's levels) stands in until a bot has said hello
(the lobby lists the levels as "the bot is starting") and for a bot that sends no
``level_info``.  ``TRESET_BOT_LEVELS``, when set, restricts the levels a table may ask for.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

FALLBACK_TIME_MS: dict[str, int] = {"beginner": 100, "novice": 100, "easy": 100, "normal": 100, "strong": 300,
                                     "master": 1000}
"""The shipped agent's levels (``agent/levels.py``; a test keeps the two alike)."""


def offered_levels(announced: Mapping[str, int | None], allowed: Sequence[str]) -> dict[str, int | None]:
    """Return the levels a table may ask for, each with its per-move time (None when nobody said).

    ``announced``: what bots said in ``bot_hello`` (it adds levels and overrides the fallback's
    times); ``allowed``: ``TRESET_BOT_LEVELS`` (empty: no restriction).

    >>> offered_levels({"normal": 250, "brutal": 5000}, [])
    {'beginner': 100, 'novice': 100, 'easy': 100, 'normal': 250, 'strong': 300, 'master': 1000, 'brutal': 5000}
    >>> offered_levels({}, ["normal", "custom"])
    {'normal': 100, 'custom': None}
    """
    levels: dict[str, int | None] = {**FALLBACK_TIME_MS, **announced}
    if not allowed:
        return levels
    return {lv: levels.get(lv) for lv in allowed}
