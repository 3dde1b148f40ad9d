"""What every room does alike, at two- and four-player tables: its core, a tab opening the table, chat, the clock's look.

:class:`RoomCore` is the base of both rooms' deal parts (:class:`server.game.playing.PlayingRoom`,
:class:`server.game.partnership.playing.PartnershipPlaying`): the table, what the rooms share, the lock,
the fenced write and giving a bot seat's turn to a bot (each kind of room builds its own ``bot_turn``). :class:`CommonRoom` is a base of :class:`server.game.room.Room` and of
:class:`server.game.partnership.room.FourRoom`: opening a table in a tab (sit again, take a seat over,
or watch), seating again after a reconnect, table chat, the clock's cheap look at what may be due
and moving the clocks on after a pause. The rest of each room, the deal and what leaving means,
is its own.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any, Generic, Protocol, TypeVar

from server.game.connection import Connection
from server.game.partnership.table import FourTable
from server.game.records import FenceRefused, GameStore
from server.game.replies import NOTICE_BOTS_BUSY, NOTICE_NO_BOT, no_table, not_seated
from server.game.rooms import Rooms, TableLost
from server.game.seats import Seats
from server.game.tables import Table
from server.protocol import Chat, ChatLine, OpenTable, SeatMoved, ServerMessage, WatchTable, error, out
from server.settings import Settings

T = TypeVar("T")
TableT = TypeVar("TableT", Table, FourTable)
BOT_ANSWER_S = 15.0
"""A bot turn unanswered this long is asked again (a message lost between processes); a bot thinks ≤ 5 s."""
BOT_TURN_MAX_MS = 5000
"""The longest a bot is told to think (``bot_turn``'s ``time_ms``), whatever is left of the move clock."""


class RoomCore(Generic[TableT]):
    """One table of this process, with what it shares with the other rooms: the core of both kinds of room."""

    __slots__ = ("table", "rooms", "seats", "settings", "store")
    table: TableT
    rooms: Rooms[Any]
    seats: Seats
    settings: Settings
    store: GameStore

    def __init__(self, table: TableT, rooms: Rooms[Any]) -> None:
        """Give ``table`` its behaviour, with what it shares with the other rooms of ``rooms``."""
        self.table = table
        self.rooms = rooms
        self.seats = rooms.seats
        self.settings = rooms.settings
        self.store = rooms.store

    @property
    def lock(self) -> asyncio.Lock:
        """Return the lock that orders the room's commands."""
        return self.table.lock

    async def broadcast(self, event: dict[str, Any] | None) -> None:
        """Tell each seat its own view and every spectator the public one (each kind of room its own way)."""
        raise NotImplementedError

    async def ask_bot(self, turn_message: Callable[[int, int, str, int], ServerMessage], *, four: bool) -> None:
        """If a bot is to move, give the turn to a bot of its level with room and send it
        ``turn_message(seat, turn, level, time_ms)``; with none, say in the table's notice that the turn waits.

        No bot, no clock: a bot seat does not forfeit for want of a bot; the clock restarts with one.
        ``four``: a four-player seat's turn (only bots that play four-player levels are asked).
        """
        table = self.table
        deal = table.deal
        if deal is None or table.status != "playing":
            return
        seat = deal.to_move
        s = table.seats[seat]
        if s is None or not s.is_bot:
            return
        turn = table.move_number
        assert s.level is not None
        bot, served = self.rooms.pool.assign(table.id, turn, s.level, four=four)
        if bot is None:
            table.deadline = None
        elif table.deadline is None:
            table.deadline = time.time() + self.settings.move_timeout_s
        notice = (None if bot else NOTICE_BOTS_BUSY if served else NOTICE_NO_BOT)
        if notice != table.notice:
            table.notice = notice
            await self.broadcast({"kind": "notice"})
        if bot is None:
            return
        table.bot_retry_at = time.time() + BOT_ANSWER_S
        remaining_ms = int(max(0.05, (table.deadline or time.time()) - time.time()) * 1000)
        message = turn_message(seat, turn, s.level, min(remaining_ms // 2, BOT_TURN_MAX_MS))
        table.bot_asked = time.perf_counter()
        await bot.send(out(message))

    async def stored(self, write: Awaitable[T]) -> T:
        """Await a write for the table; if its fence was refused, drop the table at once and raise :class:`TableLost`.

        A refused fence means another process took the table while this one could not run: nothing
        more may be told, timed or ended here (the new owner has the deal as stored).
        """
        try:
            return await write
        except FenceRefused:
            self.rooms.lose(self.table.id)
            raise TableLost(self.table.id) from None


class _Room(Protocol):
    """What the common part uses of a room."""

    @property
    def table(self) -> Table | FourTable:
        """The room's table."""

    @property
    def seats(self) -> Seats:
        """Who sits and watches where (shared by the rooms)."""

    @property
    def settings(self) -> Settings:
        """The server's settings."""

    async def send_table(self, conn: Connection, seat: int | None, event: dict[str, Any] | None) -> None:
        """Send the table as ``seat`` (None: a spectator) sees it."""

    async def broadcast(self, event: dict[str, Any] | None) -> None:
        """Send the table to everyone there, each as they may see it."""

    async def watch(self, conn: Connection) -> None:
        """Let ``conn`` watch the table."""


class CommonRoom:
    """The handlers and clock looks that two- and four-player rooms share (see the module's docstring)."""

    __slots__ = ()

    async def on_open(self: _Room, conn: Connection, msg: OpenTable | WatchTable) -> None:
        """Seat ``conn`` at its user's seat (taking it over from another connection), or let it watch."""
        table = self.table
        if table.status == "closed":
            await conn.send(no_table(msg.table_id, msg.type))
            return
        seat = table.seat_of(conn.user_id)
        s = table.seats[seat] if seat is not None else None
        if seat is None or s is None or s.is_bot:
            # A private table is for those it was shared with: its players need no code, others the invite.
            if table.invite is not None and not secrets.compare_digest(msg.invite or "", table.invite):
                await conn.send(error("bad_invite", "this table is private: the invite code is wrong", msg.type,
                                      {"table_id": table.id}))
                return
            await self.watch(conn)
            return
        key = (table.id, seat)
        previous = self.seats.seat_conn.get(key)
        was_away = not s.connected
        self.seats.unwatch(conn, table.id, table)
        if previous is not None and previous is not conn:
            previous.seats.discard(key)
        self.seats.attach(conn, table, seat)  # before any await: from here on only ``conn`` hears the seat's view
        if previous is not None and previous is not conn:
            await previous.send(out(SeatMoved(table_id=table.id)))
        if was_away:
            await self.broadcast({"kind": "reconnect", "seat": seat})
        else:
            await self.send_table(conn, seat, None)

    async def watch(self: _Room, conn: Connection) -> None:
        """Let ``conn`` watch the table."""
        self.seats.watch(conn, self.table)
        await self.send_table(conn, None, None)

    async def reclaim(self: _Room, conn: Connection) -> None:
        """Seat ``conn`` again at its user's seat unless a live connection holds it; else let it watch a public table.

        The caller holds the lock.
        """
        table = self.table
        seat = table.seat_of(conn.user_id)
        s = table.seats[seat] if seat is not None else None
        if seat is None or s is None or s.is_bot:
            if table.invite is None and table.id not in conn.watching:
                await self.watch(conn)
            return
        holder = self.seats.seat_conn.get((table.id, seat))
        if holder is not None and holder is not conn and not holder.closed:
            return
        self.seats.attach(conn, table, seat)
        await self.broadcast({"kind": "reconnect", "seat": seat})

    async def on_chat(self: _Room, conn: Connection, msg: Chat) -> None:
        """Tell a player's or a spectator's line to everyone at the table (at most two lines a second)."""
        table = self.table
        if table.seat_of(conn.user_id) is None and msg.table_id not in conn.watching:
            await conn.send(not_seated(msg.table_id, msg.type))
            return
        now = time.time()
        if now - conn.last_chat < 0.5:
            await conn.send(error("rate_limited", "you are sending messages too fast", msg.type))
            return
        conn.last_chat = now
        line = out(ChatLine.model_validate({"table_id": table.id, "from": conn.username, "text": msg.text.strip(),
                                            "at": int(now * 1000)}))
        await asyncio.gather(*(c.send(line) for c in self.seats.audience(table.id)))

    def due(self: _Room, now: float) -> bool:
        """Return True if :meth:`tick` may have something to do at ``now`` (a bot asked again, a move clock, a
        reconnect grace or a match's wait for the next deal run out); False for certain otherwise.

        A plain check without the lock or a coroutine: the clock passes over every room five times a
        second, and most have nothing due (at 2,000 tables the full tick held the loop ~18 ms a pass).
        Every timer :meth:`tick` reads must be looked at here.
        """
        table = self.table
        if table.bot_retry_at is not None and now >= table.bot_retry_at:
            return True
        if table.deadline is not None and now > table.deadline:
            return True
        grace = self.settings.reconnect_grace_s
        return any(s is not None and s.disconnected_at is not None and now - s.disconnected_at > grace
                   for s in table.seats)

    def shift_clock(self: _Room, seconds: float) -> None:
        """Give the move clock and every reconnect grace ``seconds`` more (time the process could not run)."""
        table = self.table
        if table.deadline is not None:
            table.deadline += seconds
        for s in table.seats:
            if s is not None and s.disconnected_at is not None:
                s.disconnected_at += seconds
