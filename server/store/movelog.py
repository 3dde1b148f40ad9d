"""What one logged move holds: the thesis's fields, computed from the deal before the card is played.

Shared by the live game service and the seeding command, so both log moves the same way.
"""

from __future__ import annotations

from typing import Any

from tressette import Card, Deal, view_of


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
