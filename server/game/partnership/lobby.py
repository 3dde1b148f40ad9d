"""Opening a four-player table (``create_table`` with ``"game": "partnership"``) and joining one.

The user's locks and table limits are the lobby's (:class:`server.game.lobby.Lobby`): this module
only knows what a four-player table needs — four seats, bots in any of them, the options.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

from server.game.connection import Connection
from server.game.partnership.room import FourRoom
from server.game.partnership.table import FourTable, default_level
from server.game.rooms import Rooms
from server.game.tables import Seat
from server.protocol import JoinTable, error
from server.protocol_four import CreatePartnershipTable
from tressette.partnership import N_SEATS, PartnershipOptions

Held = Callable[[Connection, str], AbstractAsyncContextManager[bool]]
OverLimit = Callable[..., Awaitable[bool]]


class FourLobby:
    """Opens and joins four-player tables, within the lobby's per-user locks and limits."""

    def __init__(self, rooms: Rooms[Any], held: Held, over_limit: OverLimit,
                 seated: Callable[[], Callable[[int], Awaitable[None]] | None]) -> None:
        """Open tables among ``rooms``; ``held``, ``over_limit`` and ``seated`` are the lobby's."""
        self.rooms = rooms
        self.held = held
        self.over_limit = over_limit
        self.seated = seated

    async def create(self, conn: Connection, msg: CreatePartnershipTable) -> None:
        """Open a four-player table for ``conn`` at seat 0, with the bots asked for; the deal starts once full."""
        if conn.role == "bot":
            await conn.send(error("bad_message", "bots do not open tables", msg.type))
            return
        bots = self.bots_asked(msg)
        full = all(b is not None for b in bots[1:])
        async with self.held(conn, msg.type) as held:
            if held and not await self.over_limit(conn, msg.type, waiting=not full):
                await self._create(conn, msg, bots)

    def bots_asked(self, msg: CreatePartnershipTable) -> list[str | None]:
        """Return the bot level asked for each seat (``opponent: "bot"`` without ``bots``: seats 1-3)."""
        if msg.bots is not None:
            return list(msg.bots)
        if msg.opponent == "bot":
            level = msg.bot_level or default_level(self.rooms.pool.partnership_served())
            return [None, level, level, level]
        return [None] * N_SEATS

    async def _create(self, conn: Connection, msg: CreatePartnershipTable, bots: list[str | None]) -> None:
        pool = self.rooms.pool
        for level in {b for b in bots if b is not None}:
            if level not in pool.partnership_offered():
                await conn.send(error("bad_message", f"unknown four-player bot level {level!r}", msg.type))
                return
            if not pool.serves_partnership(level):
                await conn.send(error("no_bot", f"no bot is connected for level {level!r}; try again later",
                                      msg.type, {"level": level}))
                return
        declarations = PartnershipOptions.default_for(msg.target).declarations if msg.declarations is None \
            else msg.declarations
        substitute = msg.bot_level or next((b for b in bots if b is not None), None)
        table = FourTable(id=secrets.token_hex(4), opponent=msg.opponent, target=msg.target, bot_level=substitute,
                          options=PartnershipOptions(declarations=declarations, signals=msg.signals),
                          invite=secrets.token_urlsafe(8) if msg.opponent == "invite" else None,
                          creator=conn.user_id)
        room = FourRoom(table, self.rooms)
        table.seats[0] = Seat(conn.user_id, conn.username, is_bot=False)
        for seat, bot in enumerate(bots):
            if bot is not None:  # before the table is listed: a failure leaves none
                table.seats[seat] = await room.bot_seat(bot)
        if self.rooms.portal:
            await self.rooms.portal.own(table)
        self.rooms.keep(room)
        self.rooms.seats.attach(conn, table, 0)
        if all(table.seats):
            async with room.lock:
                await room.start_deal()
        else:
            await room.send_table(conn, 0, None)
        self.rooms.lobby_changed()
        seated = self.seated()
        if seated is not None:
            await seated(conn.user_id)

    async def join(self, room: FourRoom, conn: Connection, msg: JoinTable) -> None:
        """Seat ``conn`` at the seat it asks for (or the first free one), the limits kept."""
        async with self.held(conn, msg.type) as held:
            if not held or await self.over_limit(conn, msg.type, waiting=None in room.table.seats):
                return
            if not await room.on_join(conn, msg):
                return
            if self.rooms.portal:
                await self.rooms.portal.own(room.table)
        self.rooms.lobby_changed()
        seated = self.seated()
        if seated is not None:
            await seated(conn.user_id)


