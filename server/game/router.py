"""The router: one raw message from a socket, checked and parsed, goes to its handler, its room, or its owner.

Rate and size limits first, then JSON and the message's shape (:mod:`server.protocol`); bad input
gets an ``error`` and changes nothing. A command for a table goes to that table's room, under the
room's lock — or, with a portal of several processes, to the process that owns the table.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import ValidationError

from server.game.anyroom import AnyRoom, FourRoom
from server.game.connection import Connection
from server.game.limits import TokenBucket
from server.game.lobby import Lobby
from server.game.replies import no_table, not_seated
from server.game.rooms import Rooms, TableLost
from server.logs import TABLE_ID
from server.protocol import (
    CLIENT_MESSAGE,
    CLIENT_TYPES,
    CREATE_PARTNERSHIP,
    SEEK_PARTNERSHIP,
    AnalysisReport,
    BotHello,
    Chat,
    CreateTable,
    JoinTable,
    LeaveTable,
    OpenTable,
    Ping,
    Play,
    Pong,
    Rematch,
    WatchTable,
    error,
    out,
    table_unavailable,
)
from server.protocol_four import CreatePartnershipTable, SeatBot

log = logging.getLogger("treset.hub")

MAX_OVERSIZE = 3
TABLE_COMMANDS = (JoinTable, WatchTable, OpenTable, LeaveTable, Play, Rematch, SeatBot)
"""The commands that change a table: one at a time per table (the room's lock)."""

RoomHandler = Callable[[AnyRoom, Connection, Any], Awaitable[None]]
Handler = Callable[[Connection, Any], Awaitable[None]]


def _method(name: str) -> RoomHandler:
    """Return a handler calling the room's method ``name`` (a two-player or four-player room's own)."""
    async def call(room: AnyRoom, conn: Connection, msg: Any) -> None:
        handler = getattr(room, name, None)
        if handler is None:
            await conn.send(error("bad_message", f"{msg.type}: only at a four-player table", msg.type))
            return
        await handler(conn, msg)
    return call


async def _play(room: AnyRoom, conn: Connection, msg: Play) -> None:
    """Take a card to its room; declarations and a signal belong to four-player tables only."""
    if not isinstance(room, FourRoom) and (msg.declarations is not None or msg.signal is not None):
        await conn.send(error("bad_message", "play: declarations and signal: only at a four-player table", msg.type))
        return
    await room.on_play(conn, msg)


class Router:
    """Takes each parsed message to its handler or room (or, through the portal, to the table's process)."""

    def __init__(self, rooms: Rooms[AnyRoom], lobby: Lobby) -> None:
        """Route to the rooms of ``rooms`` and to ``lobby``."""
        self.rooms = rooms
        self.settings = rooms.settings
        self.here: dict[type, Handler] = {CreateTable: lobby.create, Ping: self._ping, BotHello: self._bot_hello,
                                          AnalysisReport: self._analysis_report,
                                          CreatePartnershipTable: lobby.four.create}
        """The commands that concern no table."""
        self.at_room: dict[type, RoomHandler] = {
            JoinTable: lobby.join, WatchTable: _method("on_open"), OpenTable: _method("on_open"),
            LeaveTable: _method("on_leave"), Play: _play, Rematch: _method("on_rematch"),
            SeatBot: _method("on_seat_bot")}
        """The commands that change a table, taken under its lock (:data:`TABLE_COMMANDS`)."""

    async def handle(self, conn: Connection, raw: str) -> None:
        """Handle one raw message from ``conn``; bad input gets an ``error`` and changes nothing.

        Whatever arrives (any JSON, not JSON, nested thousands deep, a list as ``type``) is
        answered with a documented error or handled; none reaches the log as a traceback.
        """
        conn.received = time.perf_counter()  # a card's latency (metrics) counts from here
        if conn.on_error is None:  # here, not on connecting: a client of another process is first seen here
            conn.on_error = self.rooms.metrics.error_sent
        if conn.role != "bot":  # bots are trusted accounts whose pace the server sets (bot_turn)
            if conn.rate is None:
                conn.rate = TokenBucket(self.settings.ws_rate_per_s, self.settings.ws_rate_burst)
            if not conn.rate.take():
                conn.limited += 1
                await conn.send(error("rate_limited", "you are sending messages too fast", None,
                                      {"retry_after_ms": int(conn.rate.wait() * 1000) + 1}))
                return
            conn.limited = 0
        # Bots send analyses (tens of KB); people's messages stay small.
        limit = self.settings.max_bot_message_bytes if conn.role == "bot" else self.settings.max_message_bytes
        if len(raw.encode()) > limit:
            conn.oversize += 1
            await conn.send(error("too_large", f"messages are limited to {limit} bytes", None, {"limit": limit}))
            return
        try:
            data = json.loads(raw)
        except (ValueError, RecursionError):  # RecursionError: nested deeper than the parser goes
            await conn.send(error("bad_json", "the message is not valid JSON (or nested too deeply)"))
            return
        kind = data.get("type") if isinstance(data, dict) else None
        if not isinstance(kind, str) or kind not in CLIENT_TYPES:
            shown = repr(kind)[:40] if isinstance(kind, str) else type(kind).__name__
            await conn.send(error("bad_message", f"unknown message type {shown}", None))
            return
        msg: Any  # one of the client messages; a table's command has a ``table_id``
        try:
            if kind == "create_table" and data.get("game") == "partnership":  # the four-player shapes
                msg = CREATE_PARTNERSHIP.validate_python(data)
            elif kind == "seek" and data.get("game") == "partnership":
                msg = SEEK_PARTNERSHIP.validate_python(data)
            else:
                msg = CLIENT_MESSAGE.validate_python(data)
        except ValidationError as exc:
            first = exc.errors(include_url=False, include_input=False)[0]
            where = ".".join(str(p) for p in first["loc"][1:])[:80] or "message"
            await conn.send(error("bad_message", f"{kind}: {where}: {first['msg'][:200]}", kind))
            return
        except RecursionError:  # a field of free JSON (an analysis) nested too deeply to check
            await conn.send(error("bad_message", f"{kind}: nested too deeply", kind))
            return
        rooms = self.rooms.by_id
        portal = self.rooms.portal
        logged = TABLE_ID.set(getattr(msg, "table_id", None))  # the log lines of this command name its table
        try:
            if portal:  # after a pause, know which tables are still this process's before acting
                await portal.ensure_leases()
                if conn.node is None and await self._forwarded(conn, msg, raw):
                    return
                if (conn.node is not None and isinstance(msg, (*TABLE_COMMANDS, Chat))
                        and msg.table_id not in rooms and await portal.reroute(conn, msg.table_id, raw)):
                    return  # a command that waited here while this process could not run: its table moved on
            here = self.here.get(type(msg))
            if here is not None:
                await here(conn, msg)
                return
            room = rooms.get(msg.table_id)
            if room is None:
                await conn.send(_absent(msg))
            elif isinstance(msg, Chat):  # a line of chat changes nothing at the table: it takes no turn
                await room.on_chat(conn, msg)
            else:
                async with room.lock:  # the room may have closed meanwhile: looked up again
                    room = rooms.get(msg.table_id)
                    if room is None:
                        await conn.send(_absent(msg))
                    else:
                        await self.at_room[type(msg)](room, conn, msg)
        except TableLost as lost:  # another process serves the table now: the command goes there
            if portal is None or not await portal.reroute(conn, lost.table_id, raw):
                await conn.send(table_unavailable(lost.table_id, kind))
        except Exception:
            # E.g. the database refused a commit: the move was not applied, so the game is unchanged.
            log.exception("handling %s failed", kind)
            await conn.send(error("internal", "the server could not handle this message; try again", kind))
        finally:
            TABLE_ID.reset(logged)

    async def _forwarded(self, conn: Connection, msg: Any, raw: str) -> bool:
        """Send ``msg`` to the process that owns its table (or gave out its analysis); False if that is this one."""
        portal = self.rooms.portal
        assert portal is not None
        target = msg.table_id if isinstance(msg, (*TABLE_COMMANDS, Chat)) else None
        if target is not None and target not in self.rooms.by_id:
            return await portal.forward(conn, target, raw)
        if isinstance(msg, AnalysisReport):
            return portal.forward_report(conn, msg.job, raw)
        return False

    async def _ping(self, conn: Connection, msg: Ping) -> None:
        await conn.send(out(Pong()))

    async def _bot_hello(self, conn: Connection, msg: BotHello) -> None:
        if conn.role != "bot":
            await conn.send(error("bad_message", "only bot accounts may say bot_hello", msg.type))
            return
        await self.rooms.register_bot(conn, levels=msg.levels, capacity=msg.capacity, analysis=msg.analysis,
                                      level_info=msg.level_info, partnership=msg.partnership_levels)
        if self.rooms.portal and conn.node is None:
            await self.rooms.portal.bot_hello(conn, msg)

    async def _analysis_report(self, conn: Connection, msg: AnalysisReport) -> None:
        if conn.role != "bot":
            await conn.send(error("bad_message", "only bots send analyses", msg.type))
            return
        await self.rooms.analysis.report(conn, msg)


def _absent(msg: Any) -> dict[str, Any]:
    """Return what a command for a table that is not here is answered (as its handler would)."""
    if isinstance(msg, (Rematch, Chat)):
        return not_seated(msg.table_id, msg.type)
    return no_table(msg.table_id, msg.type)
