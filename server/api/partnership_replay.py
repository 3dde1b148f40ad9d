"""A finished four-player deal's record for its replay page: every hand as dealt, each card with its seat,
declarations and signal, the tricks, and each partnership's points (docs/protocol-four.md, "Replay")."""

from __future__ import annotations

from typing import Any

from server.store.models import Game, Move
from tressette import card_name
from tressette.partnership import (
    N_SEATS,
    Declaration,
    PartnershipDeal,
    PartnershipMove,
    PartnershipOptions,
    Signal,
)


def partnership_record(game: Game, moves: list[Move], names: list[str]) -> dict[str, Any]:
    """Return a finished four-player deal's full record (its hands are public once it is over)."""
    options = PartnershipOptions(**(game.options or {}))
    deal = PartnershipDeal.from_deck(game.deck, game.first_leader, options)
    records = []
    for m in moves:
        move = PartnershipMove(m.card, tuple(Declaration.from_dict(d) for d in m.declarations or ()),
                               None if m.signal is None else Signal(m.signal))
        records.append({"move": m.move_number, "trick": m.trick_number, "seat": m.seat, "card": card_name(m.card),
                        "declarations": [d.to_dict() for d in move.declarations],
                        "signal": m.signal, "hand": [card_name(c) for c in sorted(deal.hands[m.seat])],
                        "table": [card_name(c) for c in deal.table], "points": list(deal.points)})
        deal.play_move(move, m.seat)
    declared = [game.declared0 or 0, game.declared1 or 0]
    return {
        "id": game.id, "game": "partnership", "variant": game.variant, "players": names,
        "first_leader": game.first_leader, "options": options.to_dict(),
        "deck": [card_name(c) for c in game.deck],
        "hands": [[card_name(c) for c in game.deck[10 * s:10 * s + 10]] for s in range(N_SEATS)],
        "moves": records, "tricks": [t.to_dict() for t in deal.history],
        "points": [game.points0, game.points1], "declared": declared,
        "score": [(game.points0 or 0) + declared[0], (game.points1 or 0) + declared[1]],
        "winner": game.winner_seat, "reason": game.end_reason, "rated": not game.unrated,
        # Replayed here rather than stored: a cappotto follows from the tricks (an abandoned deal has none).
        "cappotto": deal.is_over and deal.outcome().cappotto is not None,
        "match": ({"id": game.match_id, "deal": game.match_deal, "before": [game.match_before0, game.match_before1]}
                  if game.match_id is not None else None),
    }
