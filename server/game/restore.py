"""Rooms rebuilt from the store: after a restart, a takeover, or messages that may have been lost.

Nothing in memory is authoritative: every unfinished deal is its deck order and its logged moves
in the store (:mod:`server.game.records`). A table rebuilt starts its clock afresh (the time it
was away is nobody's) and gives its people their reconnect grace.
"""

from __future__ import annotations

import time

from server.game.anyroom import AnyRoom, Room
from server.game.connection import Connection
from server.game.partnership.restore import restore_four
from server.game.partnership.table import FourTable
from server.game.records import SavedGame
from server.game.rooms import Rooms, deal_of
from server.game.tables import Seat, Table
from tressette import Match, Variant


class Restore:
    """Brings back this process's rooms from the store, and tells their players again."""

    def __init__(self, rooms: Rooms[AnyRoom]) -> None:
        """Restore into ``rooms``."""
        self.rooms = rooms

    def restore(self) -> int:
        """Rebuild every unfinished game from the database (deck order + moves); return how many."""
        count = 0
        fences, games = self.rooms.store.claim(None)
        for game in games:
            self.restore_game(game, fence=fences[game.table_id])
            count += 1
        self.rooms.analysis.restore()  # queued and running analyses wait for the next analysis bot
        return count

    def restore_game(self, game: SavedGame, *, fence: int = 0) -> Table | FourTable:
        """Rebuild and keep the table of one stored unfinished deal: its people away (their grace starts now), a fresh clock.

        ``fence``: the token this process took for the table (``GameStore.claim``).
        """
        if game.options is not None:  # a four-player deal
            return restore_four(self.rooms, game, fence=fence)
        table = Table(id=game.table_id, variant=Variant(game.variant), opponent=game.opponent,
                      bot_level=game.bot_level, deal=deal_of(game), game_id=game.game_id, deal_number=game.deal_number,
                      status="playing", next_first_leader=1 - game.first_leader, fence=fence)
        if game.match is not None:  # a match's deal: the match goes on from its totals before the deal
            table.target, table.match_id = game.match.target, game.match.match_id
            table.match = Match(table.variant, game.match.target, game.match.before, game.match.deal - 1)
        now = time.time()
        for seat, user in enumerate(game.players):
            table.seats[seat] = (Seat.bot(user.user_id, user.username) if user.role == "bot" else
                                 Seat(user.user_id, user.username, is_bot=False, disconnected_at=now))
        table.deadline = now + self.rooms.settings.move_timeout_s  # the time the table was away is nobody's
        room = self.rooms.add(table)
        assert isinstance(room, Room)
        deal = table.deal
        if game.ended and table.match is not None and deal is not None and deal.is_over:
            # Between two deals of a match: the last deal closed again as it ended (its summary, the bots'
            # "next deal", the full pause before the next one).
            outcome = deal.outcome()
            room.close_deal(outcome.points, outcome.winner, "finished", analyse=False,
                            match=room.match_after(outcome.points, outcome.winner, "finished", deals=1))
        return table

    async def resume_bots(self) -> None:
        """Ask for the bot moves of restored tables (they wait until a bot connects)."""
        for room in list(self.rooms.by_id.values()):
            async with room.lock:
                await room.dispatch_bot()

    async def ask_bot(self, table_id: str) -> None:
        """Ask for the bot's move at ``table_id`` if it is a bot's turn (a table just taken over)."""
        room = self.rooms.by_id.get(table_id)
        if room is not None:
            async with room.lock:
                await room.dispatch_bot()

    async def reclaim(self, conn: Connection, table_id: str) -> None:
        """Seat ``conn`` again at its user's seat unless a live connection holds it; else let it watch a public table.

        What a process asks for a client that came back (``welcome``) or whose table moved to this process.
        """
        room = self.rooms.by_id.get(table_id)
        if room is None or room.table.status == "closed":
            return
        async with room.lock:
            await room.reclaim(conn)

    async def resend_tables(self) -> None:
        """Send every table of this process to its players and spectators again (messages may have been lost).

        A bot turn under way is asked again too: the bot may never have had it (a late second answer is dropped).
        """
        for room in list(self.rooms.by_id.values()):
            async with room.lock:
                if self.rooms.by_id.get(room.table.id) is not room:
                    continue
                await room.broadcast(None)
                if room.table.id in self.rooms.pool.turns:
                    await room.dispatch_bot()
