"""A four-player room: who sits and watches, joining a seat, bots seated, leaving, the next deal, chat and the clock.

As at two-player tables (:mod:`server.game.room`), one command at a time under the table's lock.
What differs (docs/protocol-four.md, "Leaving, time and ratings"): a person who leaves a running
deal or match, runs out of time or stays away past the reconnect grace does not end it for the
other three: a bot takes the seat (:meth:`~.playing.PartnershipPlaying.bot_takes_seat`). When the
last person leaves, the deal is abandoned and the table closes.
"""

from __future__ import annotations

from server.game.connection import Connection
from server.game.partnership.playing import PartnershipPlaying
from server.game.records import MatchEnd
from server.game.replies import no_table, not_seated
from server.game.room_common import CommonRoom
from server.game.tables import Seat
from server.protocol import (
    JoinTable,
    LeaveTable,
    Left,
    Rematch,
    error,
    out,
)
from server.protocol_four import SeatBot
from tressette.partnership import N_SEATS


class FourRoom(CommonRoom, PartnershipPlaying):
    """One four-player table of this process: its seats, commands and clock; and its deal."""

    __slots__ = ()

    def free_seat(self, wanted: int | None) -> int | None:
        """Return the seat a joiner takes: ``wanted`` if free, else (none wanted) the first free one."""
        seats = self.table.seats
        if wanted is not None:
            return wanted if seats[wanted] is None else None
        return next((i for i, s in enumerate(seats) if s is None), None)

    async def seat(self, conn: Connection | None, seat: int, player: Seat) -> None:
        """Seat a joiner (a person with ``conn``, or a bot); once all four are seated, the deal starts.

        If the deal cannot be stored, the joiner is not seated.
        """
        table = self.table
        table.seats[seat] = player
        if conn is not None:
            self.seats.attach(conn, table, seat)
        if not all(table.seats):
            await self.broadcast({"kind": "join", "seat": seat})
            return
        try:
            await self.start_deal()
        except Exception:
            if self.rooms.by_id.get(table.id) is self:
                table.seats[seat] = None
            if conn is not None:
                self.seats.seat_conn.pop((table.id, seat), None)
                conn.seats.discard((table.id, seat))
            raise

    async def on_seat_bot(self, conn: Connection, msg: SeatBot) -> None:
        """The creator fills a free seat of the waiting table with a bot of ``level``."""
        table = self.table
        if table.creator != conn.user_id or table.seat_of(conn.user_id) is None:
            await conn.send(not_seated(table.id, msg.type))
            return
        if table.status != "waiting":
            await conn.send(error("bad_message", "bots are seated at a waiting table only", msg.type))
            return
        if table.seats[msg.seat] is not None:
            await conn.send(error("seat_taken", f"seat {msg.seat} is taken", msg.type,
                                  {"table_id": table.id, "seat": msg.seat}))
            return
        pool = self.rooms.pool
        if msg.level not in pool.partnership_offered():
            await conn.send(error("bad_message", f"unknown four-player bot level {msg.level!r}", msg.type))
            return
        if not pool.serves_partnership(msg.level):
            await conn.send(error("no_bot", f"no bot is connected for level {msg.level!r}; try again later",
                                  msg.type, {"level": msg.level}))
            return
        await self.seat(None, msg.seat, await self.bot_seat(msg.level))
        self.rooms.lobby_changed()

    async def on_join(self, conn: Connection, msg: JoinTable) -> bool:
        """Check a join (the caller holds the user's lock and counts their tables); return True if seated."""
        table = self.table
        if table.status == "closed":
            await conn.send(no_table(msg.table_id, msg.type))
            return False
        if table.seat_of(conn.user_id) is not None:
            await conn.send(error("bad_message", "you are already seated at this table", msg.type))
            return False
        if table.invite is not None and msg.invite != table.invite:
            await conn.send(error("bad_invite", "this table is private: the invite code is wrong", msg.type,
                                  {"table_id": table.id}))
            return False
        if table.status != "waiting" or conn.role == "bot" or None not in table.seats:
            await conn.send(error("table_full", "every seat is taken; you may watch", msg.type,
                                  {"table_id": table.id}))
            return False
        seat = self.free_seat(msg.seat)
        if seat is None:
            await conn.send(error("seat_taken", f"seat {msg.seat} is taken", msg.type,
                                  {"table_id": table.id, "seat": msg.seat}))
            return False
        self.seats.unwatch(conn, table.id, table)
        await self.seat(conn, seat, Seat(conn.user_id, conn.username, is_bot=False))
        return True

    async def on_leave(self, conn: Connection, msg: LeaveTable) -> None:
        """Stop watching, or leave the seat: a bot takes it while a deal or match goes on."""
        table = self.table
        if msg.table_id in conn.watching:
            self.seats.unwatch(conn, table.id, table)
            await conn.send(out(Left(table_id=table.id)))
            return
        seat = table.seat_of(conn.user_id)
        s = table.seats[seat] if seat is not None else None
        holder = self.seats.seat_conn.get((table.id, seat)) if seat is not None else None
        if seat is None or s is None or s.is_bot or (holder is not None and holder is not conn):
            await conn.send(not_seated(msg.table_id, msg.type))
            return
        self.seats.detach(table.id, seat)
        await self.person_gone(seat, "left")
        await conn.send(out(Left(table_id=table.id)))

    async def person_gone(self, seat: int, cause: str) -> None:
        """The person at ``seat`` left (or timed out, or stayed away): a bot takes over, or the seat is freed."""
        table = self.table
        if len(table.people) == 1 and (table.status == "playing" or table.match_going_on):
            await self.abandon()
            return
        if table.status == "playing" or table.match_going_on:
            await self.bot_takes_seat(seat, cause)
            return
        await self.vacate(seat)

    async def abandon(self) -> None:
        """The last person left a running deal or match: the deal ends (stored first, ``abandoned``), the table closes."""
        table = self.table
        if table.status == "playing" and table.deal is not None:
            end = self.end_record(table.deal, "abandoned", moves=table.move_number)
            await self.stored(self.store.end_game(end, fence=table.fenced))
            await self.store.settle(end.game_id)
        elif table.match_going_on and table.match is not None and table.match_id is not None:
            await self.stored(self.store.end_match(MatchEnd(table.match_id, table.match.scores, table.match.deals,
                                                            None, "abandoned"), fence=table.fenced))
        for seat in table.people:
            self.seats.detach(table.id, seat)
        self.close()

    def close(self) -> None:
        """Close the table: no one is left to play it."""
        table = self.table
        table.status = "closed"
        self.rooms.by_id.pop(table.id, None)
        self.rooms.pool.turns.pop(table.id, None)
        for watcher in self.seats.watchers.pop(table.id, set()):
            watcher.watching.discard(table.id)
        self.rooms.lobby_changed()

    async def vacate(self, seat: int) -> None:
        """Free ``seat`` of a table between deals or waiting; a table left with no person closes."""
        table = self.table
        self.seats.detach(table.id, seat)
        table.seats[seat] = None
        table.replaced[seat] = None
        table.rematch = [False] * N_SEATS
        if not table.people:
            self.close()
            return
        table.status = "waiting"
        await self.broadcast({"kind": "leave", "seat": seat})
        self.rooms.lobby_changed()

    async def on_rematch(self, conn: Connection, msg: Rematch) -> None:
        """Count a person ready for the next deal (or a new match); when all four are, it starts."""
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
            await self.broadcast({"kind": "rematch", "seat": seat})
            await self.after_deal()

    async def tick(self, now: float) -> None:
        """A person out of time, away past the grace, or not ready for the match's next deal: a bot takes the seat.

        The caller holds the lock.
        """
        table = self.table
        if self.rooms.by_id.get(table.id) is not self:
            return
        if table.bot_retry_at is not None and now >= table.bot_retry_at:
            table.bot_retry_at = None
            await self.dispatch_bot()
        grace = self.settings.reconnect_grace_s
        gone = [i for i, s in enumerate(table.seats) if s and not s.is_bot and s.disconnected_at is not None
                and now - s.disconnected_at > grace]
        if gone:
            await self.person_gone(gone[0], "connection")
            return
        if table.deadline is None or now <= table.deadline:
            return
        if table.status == "playing" and table.deal is not None:
            seat = table.deal.to_move
            s = table.seats[seat]
            if s is not None and not s.is_bot:
                conn = self.seats.seat_conn.get((table.id, seat))
                await self.person_gone(seat, "timeout")
                if conn is not None and self.rooms.by_id.get(table.id) is self:
                    await self.watch(conn)  # they see the table go on without them
            else:
                table.deadline = now + self.settings.move_timeout_s
                await self.dispatch_bot()
        elif table.status == "finished" and table.match_going_on and all(table.seats):
            late = [i for i, ready in enumerate(table.rematch) if not ready]
            if late:
                await self.person_gone(late[0], "timeout")
