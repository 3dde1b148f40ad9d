"""The errors and notices the rooms and the lobby answer with (shapes in :mod:`server.protocol`)."""

from __future__ import annotations

from typing import Any

from server.protocol import error
from tressette import SUITS, Deal, IllegalMoveError, card_name, suit_of

NOTICE_NO_BOT = {"code": "no_bot", "message": "no bot is connected: the bot's turn waits for one"}
NOTICE_BOTS_BUSY = {"code": "bots_busy", "message": "every bot is busy: the bot's turn waits for one"}


def no_table(table_id: str, ref: str) -> dict[str, Any]:
    """Return the error for a table that is not (or no longer) here."""
    return error("no_table", f"no table {table_id!r}", ref, {"table_id": table_id})


def not_seated(table_id: str, ref: str) -> dict[str, Any]:
    """Return the error for a command of someone who does not play at the table."""
    return error("not_seated", "you are not playing at this table", ref, {"table_id": table_id})


def refusal(exc: IllegalMoveError, card: int, deal: Deal, ref: str) -> dict[str, Any]:
    """Return the error for a card the rules refused, with the card (and the suit led) as data."""
    name = card_name(card)
    if exc.reason == "not_your_turn":
        return error("not_your_turn", str(exc), ref, {"card": name})
    params: dict[str, Any] = {"card": name, "reason": exc.reason}
    if exc.reason == "must_follow" and deal.table:
        params["suit"] = SUITS[suit_of(deal.table[0])]
    return error("illegal_card", str(exc), ref, params)
