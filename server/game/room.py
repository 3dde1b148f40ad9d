"""A room: one table of this process and every command that concerns it, one at a time.

The room owns its table's state (:class:`~server.game.tables.Table`), its clock and the order of
its commands (the table's lock: while a move is being committed, the next command waits, so it is
checked against the committed deal; other rooms go on). Its handlers: :meth:`Room.on_open` (sit
again, take a seat over, or watch), :meth:`Room.on_leave`, :meth:`Room.on_rematch`,
:meth:`Room.on_chat`, :meth:`~server.game.playing.PlayingRoom.on_play` (the deal's part,
:mod:`server.game.playing`), and :meth:`Room.tick` (timeouts, reconnect grace, bots asked again).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from server.game.connection import Connection
from server.game.replies import not_seated
from server.game.tables import Seat
from server.protocol import (
    LeaveTable,
    Left,
    Rematch,
    error,
    out,
)

if TYPE_CHECKING:
    pass

from server.game.playing import PlayingRoom
from server.game.room_common import CommonRoom
from server.game.rooms import Rooms, TableLost, deal_of

__all__ = ["Room", "Rooms", "TableLost", "deal_of"]


class Room(CommonRoom, PlayingRoom):
    """One table of this process: who sits and watches, leaving, rematches, chat and the clock; and its deal."""

    __slots__ = ()

    async def seat(self, conn: Connection, seat: int, player: Seat) -> None:
        """Seat a joiner (``player``: its :class:`~server.game.tables.Seat`) and start the deal.

        If the deal cannot be stored, the joiner is not seated (and may join again).
        """
        table = self.table
        table.seats[seat] = player
        self.seats.attach(conn, table, seat)
        try:
            await self.start_deal()
        except Exception:
            if self.rooms.by_id.get(table.id) is self:
                table.seats[seat] = None
            self.seats.seat_conn.pop((table.id, seat), None)
            conn.seats.discard((table.id, seat))
            raise

    async def on_leave(self, conn: Connection, msg: LeaveTable) -> None:
        """Stop watching, or leave the seat (a deal under way is lost by forfeit, stored first)."""
        table = self.table
        if msg.table_id in conn.watching:
            self.seats.unwatch(conn, table.id, table)
            await conn.send(out(Left(table_id=table.id)))
            return
        seat = table.seat_of(conn.user_id)
        s = table.seats[seat] if seat is not None else None
        holder = self.seats.seat_conn.get((table.id, seat)) if seat is not None else None
        # A connection whose seat moved to another one of the user's may not leave for it.
        if seat is None or s is None or s.is_bot or (holder is not None and holder is not conn):
            await conn.send(not_seated(msg.table_id, msg.type))
            return
        def detach() -> None:  # the leaver hears only ``left``, not the forfeit it caused
            self.seats.seat_conn.pop((table.id, seat), None)
            conn.seats.discard((table.id, seat))

        if table.status == "playing":
            await self.end_deal(loser=seat, reason="left", then=detach)  # stored first: may refuse
        elif table.match_going_on:
            await self.forfeit_match(loser=seat, reason="left")  # between deals: the match is lost
        detach()
        await self.vacate(seat)
        await conn.send(out(Left(table_id=table.id)))

    async def vacate(self, seat: int) -> None:
        """Free ``seat``; a table left with no person closes."""
        table = self.table
        self.seats.detach(table.id, seat)
        table.seats[seat] = None
        table.rematch = [False, False]
        if not any(s is not None and not s.is_bot for s in table.seats):
            table.status = "closed"
            self.rooms.by_id.pop(table.id, None)
            self.rooms.pool.turns.pop(table.id, None)
            for watcher in self.seats.watchers.pop(table.id, set()):  # a closed table keeps no one watching
                watcher.watching.discard(table.id)
        else:
            if table.status != "playing":
                table.status = "waiting"
            await self.broadcast({"kind": "leave", "seat": seat})
        self.rooms.lobby_changed()

    async def on_rematch(self, conn: Connection, msg: Rematch) -> None:
        """Count the player's rematch; when both want one, the next deal starts."""
        table = self.table
        seat = table.seat_of(conn.user_id)
        if seat is None:
            await conn.send(not_seated(msg.table_id, msg.type))
            return
        if table.status != "finished":
            await conn.send(error("bad_message", "a rematch is possible once the deal is over", msg.type))
            return
        table.rematch[seat] = True
        if all(table.rematch) and all(table.seats):
            await self.start_deal()
        else:
            self.wait_for_ready()  # in a match, the other player's wait starts now
            await self.broadcast({"kind": "rematch", "seat": seat})

    async def tick(self, now: float) -> None:
        """Forfeit a player whose move clock ran out, who stayed away past the grace, or who was not ready for a
        match's next deal in time (:data:`~server.game.playing.NEXT_DEAL_WAIT_S`); ask a bot again.

        The caller holds the lock.
        """
        table = self.table
        if self.rooms.by_id.get(table.id) is not self:
            return
        if table.bot_retry_at is not None and now >= table.bot_retry_at:
            table.bot_retry_at = None
            await self.dispatch_bot()
        grace = self.settings.reconnect_grace_s
        if table.status == "playing" and table.deal is not None:
            if table.deadline is not None and now > table.deadline:
                await self.end_deal(loser=table.deal.to_move, reason="timeout")
                return
            for seat, s in enumerate(table.seats):
                if s and not s.is_bot and s.disconnected_at is not None and now - s.disconnected_at > grace:
                    await self.end_deal(loser=seat, reason="left", cause="connection")
                    break
        elif table.status in ("waiting", "finished"):
            gone = [i for i, s in enumerate(table.seats) if s and not s.is_bot and s.disconnected_at is not None
                    and now - s.disconnected_at > grace]
            for seat in gone:
                await self.forfeit_match(loser=seat, reason="left")  # (a match between deals: lost)
                await self.vacate(seat)
            if (not gone and table.status == "finished" and table.match_going_on and all(table.seats)
                    and table.deadline is not None and now > table.deadline):
                late = [i for i, ready in enumerate(table.rematch) if not ready]
                if len(late) == 1:  # one was ready and waited long enough: the other loses the match
                    await self.forfeit_match(loser=late[0], reason="absent")
