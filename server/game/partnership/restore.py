"""A four-player table rebuilt from the store: its deck order replayed with the logged moves (declarations and
signals too), its people away (their reconnect grace starts now), a fresh clock."""

from __future__ import annotations

import time
from typing import Any

from server.game.partnership.room import FourRoom
from server.game.partnership.table import FourTable
from server.game.records import MatchEnd, SavedGame
from server.game.rooms import Rooms
from server.game.tables import Seat
from tressette.partnership import (
    N_SEATS,
    Declaration,
    PartnershipDeal,
    PartnershipMatch,
    PartnershipMove,
    PartnershipOptions,
    Signal,
)


def deal_of_four(game: SavedGame) -> PartnershipDeal:
    """Return a stored four-player deal as it stands: its deck order with its logged moves played."""
    assert game.options is not None
    deal = PartnershipDeal.from_deck(game.deck, game.first_leader, PartnershipOptions(**game.options))
    extras = game.extras or [([], None)] * len(game.moves)
    for (seat, card), (declared, signal) in zip(game.moves, extras, strict=True):
        move = PartnershipMove(card, tuple(Declaration.from_dict(d) for d in declared),
                               None if signal is None else Signal(signal))
        deal.play_move(move, seat)
    return deal


def restore_four(rooms: Rooms[Any], game: SavedGame, *, fence: int = 0) -> FourTable:
    """Rebuild and keep the table of one stored four-player deal (or a match between two deals)."""
    deal = deal_of_four(game)
    # The lead passes on each deal: the table's first deal was led from this many seats before.
    first = (game.first_leader - (game.deal_number - 1)) % N_SEATS
    table = FourTable(id=game.table_id, opponent=game.opponent, options=deal.options, bot_level=game.bot_level,
                      deal=deal, game_id=game.game_id, deal_number=game.deal_number, status="playing",
                      first_leader=first, fence=fence)
    if game.match is not None:
        table.target, table.match_id = game.match.target, game.match.match_id
        match_first = (game.first_leader - (game.match.deal - 1)) % N_SEATS
        table.match = PartnershipMatch(game.match.target, match_first, game.match.before, game.match.deal - 1)
    now = time.time()
    for seat, user in enumerate(game.players):
        table.seats[seat] = (Seat.bot(user.user_id, user.username) if user.role == "bot" else
                             Seat(user.user_id, user.username, is_bot=False, disconnected_at=now))
    table.deadline = now + rooms.settings.move_timeout_s
    room = rooms.keep(FourRoom(table, rooms))
    if game.ended and table.match is not None and deal.is_over:
        after = table.match.after(deal.outcome())
        assert table.match_id is not None
        room.close_deal("finished", match=MatchEnd(table.match_id, after.scores, after.deals, after.winner,
                                                   "finished" if after.is_over else None))
    return table
