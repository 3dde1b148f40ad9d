"""Errors raised by the rules package."""

from __future__ import annotations

from typing import Literal

IllegalReason = Literal["over", "not_your_turn", "bad_card", "not_in_hand", "must_follow", "illegal"]


class IllegalMoveError(ValueError):
    """A card that may not be played now; the deal is left unchanged.

    ``reason`` says why without parsing the English message: ``"over"`` (the deal
    is over), ``"not_your_turn"``, ``"bad_card"`` (no such card code),
    ``"not_in_hand"``, ``"must_follow"`` (the mover holds the suit led), or
    ``"illegal"`` when a caller gives none.

    >>> IllegalMoveError("B 3 is not in your hand", reason="not_in_hand").reason
    'not_in_hand'
    """

    def __init__(self, message: str, *, reason: IllegalReason = "illegal") -> None:
        """Keep ``message`` as the error text and ``reason`` as its machine-readable kind."""
        super().__init__(message)
        self.reason: IllegalReason = reason


class InvalidStateError(ValueError):
    """An agent JSON state that is malformed or cannot arise in a real deal."""
