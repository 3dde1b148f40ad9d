"""Who may see a finished game or a match: the rule the replay, the match page, analyses and puzzles share.

A finished game is public, as on Lichess: anyone signed in may replay it (and read its analysis), unless it
was played at a private table (opened with an invite link), whose games are for its players and admins.
A game in progress is never shown. A match follows its deals (one table, so one rule).
"""

from __future__ import annotations

from server.store.models import Game, MatchRow, User

PRIVATE = "invite"
"""The ``opponent`` of a private table (``create_table``'s ``opponent: "invite"``)."""


def is_public(row: Game | MatchRow) -> bool:
    """Return True if a game or match was not played at a private table (anyone signed in may see it once over)."""
    return row.opponent != PRIVATE


def may_see(user: User, row: Game | MatchRow) -> bool:
    """Return True if ``user`` may see the finished game or match ``row`` (the caller checks it is finished)."""
    return is_public(row) or user.role == "admin" or user.id in (row.player0_id, row.player1_id, row.player2_id,
                                                                   row.player3_id)
