"""Errors raised by the rules package."""

from __future__ import annotations

from typing import Literal

IllegalReason = Literal[
    "over", "not_your_turn", "bad_card", "not_in_hand", "must_follow", "illegal",
    "declaration_not_allowed", "false_declaration", "signal_not_allowed", "false_signal",
]


class IllegalMoveError(ValueError):
    """A card that may not be played now; the deal is left unchanged.

    ``reason`` says why without parsing the English message: ``"over"`` (the deal
    is over), ``"not_your_turn"``, ``"bad_card"`` (no such card code),
    ``"not_in_hand"``, ``"must_follow"`` (the mover holds the suit led), or
    ``"illegal"`` when a caller gives none.  The four-player game
    (``tressette.partnership``) adds ``"declaration_not_allowed"`` (not with this
    card, or the table plays without), ``"false_declaration"`` (the hand does
    not hold it), ``"signal_not_allowed"`` (not the leader, the first trick, or
    the table plays without) and ``"false_signal"``.

    >>> IllegalMoveError("B 3 is not in your hand", reason="not_in_hand").reason
    'not_in_hand'
    """

    def __init__(self, message: str, *, reason: IllegalReason = "illegal") -> None:
        """Keep ``message`` as the error text and ``reason`` as its machine-readable kind."""
        super().__init__(message)
        self.reason: IllegalReason = reason


class InvalidStateError(ValueError):
    """An agent JSON state that is malformed or cannot arise in a real deal."""
