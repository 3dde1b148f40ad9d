"""A four-player seat's turn answered (docs/protocol-four.md, "Bots"): the state checked by the rules, the
move chosen by the honest rule-based player (:mod:`agent.partnership_player`)."""

from __future__ import annotations

from typing import Any

from agent.partnership_player import choose_partnership_move
from tressette import card_name
from tressette.partnership import parse_partnership_view

PARTNERSHIP_LEVELS = [{"name": "rules", "time_ms": 100, "rating": None}]
"""The four-player levels announced in ``bot_hello`` (docs/protocol-four.md, "Bots"): one honest rule-based
player (:mod:`agent.partnership_player`), named for what it is, unrated until measured."""


def answer_partnership(raw_state: dict[str, Any]) -> dict[str, Any]:
    """Validate a four-player state with the rules package; return the move's ``play`` fields (card,
    declarations, signal) chosen by the rule-based player."""
    move = choose_partnership_move(parse_partnership_view(raw_state))
    return {"card": card_name(move.card), "declarations": [d.to_dict() for d in move.declarations],
            "signal": None if move.signal is None else move.signal.value}
