"""What one logged move holds: the thesis's fields, computed from the deal before the card is played.

Shared by the live game service and the seeding command, so both log moves the same way.
"""

from __future__ import annotations

from typing import Any

from tressette import Card, Deal, view_of
from tressette.partnership import PartnershipDeal, PartnershipMove, partnership_of


def move_fields(deal: Deal, seat: int, card: Card) -> dict[str, Any]:
    """Return the ``moves`` columns that describe ``seat`` playing ``card`` in ``deal`` (not yet played).

    Only what the mover could see is recorded as known: the own hand and the opponent's
    cards drawn face up. Does not check legality.
    """
    view = view_of(deal, seat)
    return {"seat": seat, "trick_number": deal.trick_number, "n_players": 2,
            "hand": list(view.hand), "opponent_known": list(view.opponent_known),
            "table_cards": list(deal.table), "won_self": list(deal.won[seat]),
            "won_opponent": list(deal.won[1 - seat]), "card": card,
            "first_card": deal.table[0] if deal.table else None, "score": deal.points[seat]}


def partnership_move_fields(deal: PartnershipDeal, seat: int, move: PartnershipMove) -> dict[str, Any]:
    """Return the ``moves`` columns of ``seat`` playing ``move`` in a four-player ``deal`` (not yet played).

    As a two-player move, from what the mover could see: the own hand (``opponent_known`` is
    empty: no card of another hand is seen), the trick so far, the cards taken by the mover's
    partnership (``won_self``) and by the other (``won_opponent``), the partnership's thirds so far
    (``score``); plus the declarations and the signal made with the card. Does not check legality.
    """
    mine = partnership_of(seat)
    won: tuple[list[Card], list[Card]] = ([], [])
    for trick in deal.history:
        won[partnership_of(trick.winner)].extend(trick.cards)
    return {"seat": seat, "trick_number": deal.trick_number, "n_players": 4,
            "hand": sorted(deal.hands[seat]), "opponent_known": [], "table_cards": list(deal.table),
            "won_self": won[mine], "won_opponent": won[1 - mine], "card": move.card,
            "first_card": deal.table[0] if deal.table else None, "score": deal.points[mine],
            "declarations": [d.to_dict() for d in move.declarations] or None,
            "signal": None if move.signal is None else move.signal.value}
