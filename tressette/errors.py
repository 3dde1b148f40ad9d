"""Errors raised by the rules package."""

from __future__ import annotations


class IllegalMoveError(ValueError):
    """A card that may not be played now; the deal is left unchanged."""


class InvalidStateError(ValueError):
    """An agent JSON state that is malformed or cannot arise in a real deal."""
