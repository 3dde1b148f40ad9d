"""The lobby: opening tables, joining them, the per-person table limits, and the list every idle client sees.

Opening a table makes a room (:class:`~server.game.room.Room`); joining finds it and seats the
joiner there. The list of tables (this process's and, with a portal, the others') goes out
coalesced, at most every ``LOBBY_EVERY_S``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from server.game.anyroom import AnyRoom, FourRoom
from server.game.connection import Connection
from server.game.locks import KeyedLocks
from server.game.partnership.lobby import FourLobby
from server.game.replies import no_table
from server.game.rooms import Rooms
from server.game.tables import Seat, Table
from server.protocol import CreateTable, JoinTable, error, out
from server.protocol import Lobby as LobbyMessage
from tressette import Variant

LOBBY_LIMIT = 50
"""The lobby lists at most this many waiting tables and as many playing ones (newest first)."""
LOBBY_EVERY_S = 1.0
"""The lobby goes out at most this often: with thousands online, every change at once would be a flood."""
ONLINE_SENDS_PER_S = 1000
"""A lobby whose only news is the number of people online goes to everyone at most every
``sockets / ONLINE_SENDS_PER_S`` seconds (at least LOBBY_EVERY_S): with 10,000 online someone comes or
goes every second, and a lobby to 10,000 sockets costs about half a second of CPU (every 10 s, then)."""

SEND_SLICE = 32
"""The lobby goes to this many sockets, then lets the event loop run the rest of its work, then the next."""


class Lobby:
    """Where tables are opened, found and joined, and the list of them sent."""

    def __init__(self, rooms: Rooms[AnyRoom]) -> None:
        """Serve the lobby of ``rooms``."""
        self.rooms = rooms
        self.user_locks = KeyedLocks()
        """One lock a user, held while their tables are counted and one more opened or joined here."""
        self.seats = rooms.seats
        self.settings = rooms.settings
        self.pool = rooms.pool
        self.sent_at = 0.0
        self.text = ""
        """The lobby last sent to everyone (encoded), given as it is to each newcomer until it changes."""
        self.seated: Callable[[int], Awaitable[None]] | None = None
        """Told the user id of whoever starts or joins a table (the matchmaker ends that user's seek)."""
        self.four = FourLobby(rooms, self.held, self.over_table_limit, lambda: self.seated)
        """Four-player tables: opened and joined within the same locks and limits."""

    # ----- the list ----------------------------------------------------------------------

    def message(self) -> dict[str, Any]:
        """Return the lobby message: the newest public tables (waiting, playing), people online, bot levels."""
        portal = self.rooms.portal
        lines = [r.table.summary() for r in self.rooms.by_id.values() if r.table.opponent != "invite"]
        if portal:
            lines += portal.remote_summaries()
        newest = sorted(lines, key=lambda t: -t["created_at"])
        tables = ([t for t in newest if t["status"] == "waiting"][:LOBBY_LIMIT]
                  + [t for t in newest if t["status"] == "playing"][:LOBBY_LIMIT])
        online = len(self.seats.online) + (portal.remote_online if portal else 0)
        return out(LobbyMessage(tables=tables, online=online, bot_levels=self.pool.levels_served(),
                                bot_ratings=self.pool.ratings, partnership_levels=self.pool.partnership_served(),
                                partnership_ratings=self.pool.partnership_ratings))

    def for_newcomer(self) -> str:
        """Return the lobby (encoded) for a socket that just connected: the last one sent while nothing changed
        since (a newcomer changes the count of people online: it is counted in its own)."""
        fresh = self.text and not self.rooms.lobby_dirty and not self.seats.online_dirty
        return self.text if fresh else json.dumps(self.message())

    def due(self) -> bool:
        """Return True if the lobby should go out now (changed, and not sent too lately)."""
        since = time.monotonic() - self.sent_at
        online_every_s = max(LOBBY_EVERY_S, len(self.seats.conns) / ONLINE_SENDS_PER_S)
        return (self.rooms.lobby_dirty and since >= LOBBY_EVERY_S) or (self.seats.online_dirty
                                                                        and since >= online_every_s)

    async def send(self) -> None:
        """Send the lobby to every idle person (encoded once for all)."""
        self.rooms.lobby_dirty = self.seats.online_dirty = False
        self.sent_at = time.monotonic()
        text = self.text = json.dumps(self.message())
        by_id = self.rooms.by_id
        # Players in a running deal do not need the lobby; they get it when they come back.
        busy = {c for (t, _), c in self.seats.seat_conn.items() if t in by_id and by_id[t].table.status == "playing"}
        if self.rooms.portal:
            busy |= self.rooms.portal.playing_elsewhere()
        # Those who saw this very lobby last get nothing (a private table's end changes no one's lobby).
        targets = [c for c in self.seats.conns if c.role != "bot" and c not in busy and c.lobby_seen != text]
        for c in targets:
            c.lobby_seen = text
        # A send compresses the lobby for its socket (~0.1 ms): to thousands at once, in slices, so the
        # cards of running tables are not held up behind them all.
        for start in range(0, len(targets), SEND_SLICE):
            if start:
                await asyncio.sleep(0)
            await asyncio.gather(*(c.send_encoded(text) for c in targets[start:start + SEND_SLICE]))

    # ----- opening and joining -----------------------------------------------------------

    @contextlib.asynccontextmanager
    async def held(self, conn: Connection, ref: str) -> AsyncIterator[bool]:
        """Hold the user's lock, here and (with a portal) on every process, while their tables are counted and
        one more is opened or joined: two sockets asking at once, through one process or two, are counted one
        after the other. Yields False (the user told ``rate_limited``) if the portal's lock stays taken."""
        async with contextlib.AsyncExitStack() as stack:
            await stack.enter_async_context(self.user_locks.hold(conn.user_id))
            if self.rooms.portal is not None:
                try:
                    await stack.enter_async_context(self.rooms.portal.user_lock(conn.user_id))
                except TimeoutError:
                    await conn.send(error("rate_limited", "your tables are being changed: try again", ref))
                    yield False
                    return
            yield True

    async def create(self, conn: Connection, msg: CreateTable) -> None:
        """Open a table for ``conn`` (against a bot: its deal starts at once), the user's limits kept."""
        if conn.role == "bot":
            await conn.send(error("bad_message", "bots do not open tables", msg.type))
            return
        async with self.held(conn, msg.type) as held:
            if held and not await self.over_table_limit(conn, msg.type, waiting=msg.opponent != "bot"):
                await self._create(conn, msg)

    async def _create(self, conn: Connection, msg: CreateTable) -> None:
        level = None
        if msg.opponent == "bot":
            level = msg.bot_level or "normal"
            if level not in self.pool.offered():
                await conn.send(error("bad_message", f"unknown bot level {level!r}", msg.type))
                return
            if not self.pool.serves(level):
                await conn.send(error("no_bot", f"no bot is connected for level {level!r}; try again later",
                                      msg.type, {"level": level}))
                return
        table = Table(id=secrets.token_hex(4), variant=Variant(msg.variant), opponent=msg.opponent,
                      bot_level=level, invite=secrets.token_urlsafe(8) if msg.opponent == "invite" else None,
                      target=msg.target)
        table.seats[0] = Seat(conn.user_id, conn.username, is_bot=False)
        if level is not None:
            table.seats[1] = await self._bot_seat(level)  # before the table is listed: a failure leaves none
        if self.rooms.portal:  # the lease first: a table listed here is renewed as this process's
            await self.rooms.portal.own(table)
        room = self.rooms.add(table)
        self.seats.attach(conn, table, 0)
        if level is not None:
            async with room.lock:
                await room.start_deal()
        else:
            await room.send_table(conn, 0, None)
        self.rooms.lobby_changed()
        if self.seated is not None:
            await self.seated(conn.user_id)

    async def start_bot_series(self, *, level_a: str, level_b: str, games: int, variant: Variant) -> Table:
        """Open a bot-versus-bot table that plays ``games`` deals (every move logged as usual)."""
        for level in (level_a, level_b):
            if level not in self.pool.offered():
                raise ValueError(f"unknown bot level {level!r}")
        if not self.pool.serves(level_a) or not self.pool.serves(level_b):
            raise LookupError("no bot is connected for one of these levels")
        table = Table(id=secrets.token_hex(4), variant=variant, opponent="bot", bot_level=f"{level_a} vs {level_b}",
                      series_left=games - 1)
        table.seats[0] = await self._bot_seat(level_a)
        table.seats[1] = await self._bot_seat(level_b, second=level_a == level_b)
        if self.rooms.portal:
            await self.rooms.portal.own(table)
        room = self.rooms.add(table)
        async with room.lock:
            await room.start_deal()
        self.rooms.lobby_changed()
        return table

    async def _bot_seat(self, level: str, second: bool = False) -> Seat:
        player = await self.rooms.store.bot_account(f"bot-{level}" + ("-2" if second else ""))
        return Seat.bot(player.user_id, player.username)

    async def join(self, room: AnyRoom, conn: Connection, msg: JoinTable) -> None:
        """Seat ``conn`` at the free seat of ``room`` (the invite checked, the limits kept); the deal starts."""
        if isinstance(room, FourRoom):
            await self.four.join(room, conn, msg)
            return
        if msg.seat is not None:
            await conn.send(error("bad_message", "join_table: seat: only at a four-player table", msg.type))
            return
        table = room.table
        if table.status == "closed":
            await conn.send(no_table(msg.table_id, msg.type))
            return
        if table.seat_of(conn.user_id) is not None:
            await conn.send(error("bad_message", "you are already seated at this table", msg.type))
            return
        if table.invite is not None and msg.invite != table.invite:
            await conn.send(error("bad_invite", "this table is private: the invite code is wrong", msg.type,
                                  {"table_id": table.id}))
            return
        free = [i for i, s in enumerate(table.seats) if s is None]
        if not free or conn.role == "bot":
            await conn.send(error("table_full", "both seats are taken; you may watch", msg.type, {"table_id": table.id}))
            return
        async with self.held(conn, msg.type) as held:
            if not held or await self.over_table_limit(conn, msg.type, waiting=False):
                return
            await room.seat(conn, free[0], Seat(conn.user_id, conn.username, is_bot=False))
            if self.rooms.portal:  # listed as playing now, before the lock goes: another process counts it
                await self.rooms.portal.own(table)
        self.rooms.lobby_changed()
        if self.seated is not None:
            await self.seated(conn.user_id)

    async def over_table_limit(self, conn: Connection, ref: str, *, waiting: bool) -> bool:
        """Refuse (``too_many_tables``) a table past the user's limits; return True if refused.

        ``waiting``: the new table will wait for an opponent (else its deal starts at once).
        """
        tables = [(r.table.status, None not in r.table.seats) for r in self.rooms.by_id.values()
                  if r.table.seat_of(conn.user_id) is not None]
        if self.rooms.portal:  # and the user's tables at the other processes, read now
            tables += [(status, full) for _, status, full in await self.rooms.portal.user_tables(conn.user_id)]
        # A table listed with both seats taken is a deal under way (or about to start: a bot table is listed first).
        playing_now = sum(status == "playing" or (status == "waiting" and full) for status, full in tables)
        waiting_now = sum(status == "waiting" and not full for status, full in tables)
        limit, count, kind = ((self.settings.max_waiting_tables, waiting_now, "waiting") if waiting
                              else (self.settings.max_playing_tables, playing_now, "playing"))
        if count < limit:
            return False
        await conn.send(error("too_many_tables", f"you have {count} {kind} tables already (at most {limit})", ref,
                              {"limit": limit, "status": kind}))
        return True
