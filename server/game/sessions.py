"""A socket's life at the game service: greeted with its seats, seated again, gone (its grace starts), renamed, signed out.

A person's seat outlives the socket: while a live connection holds it, ``welcome`` lists it
``elsewhere`` (``open_table`` takes it over, :meth:`~server.game.room.Room.on_open`); a seat no live
connection holds comes back at once. A socket gone starts its seats' reconnect grace (the room's
clock forfeits a player away past it) and hands its bot turns and analyses to other bots.
"""

from __future__ import annotations

import logging
import time

from server.game.anyroom import AnyRoom
from server.game.connection import Connection
from server.game.lobby import Lobby
from server.game.rooms import Rooms
from server.protocol import SeatOut, UserOut, Welcome, out

log = logging.getLogger("treset.hub")


class Sessions:
    """Sockets coming and going, and what changes for all of a user's sockets at once."""

    def __init__(self, rooms: Rooms[AnyRoom], lobby: Lobby) -> None:
        """Connect sockets to the rooms of ``rooms``, greeting them with ``lobby``."""
        self.rooms = rooms
        self.seats = rooms.seats
        self.lobby = lobby

    async def connect(self, conn: Connection) -> None:
        """Register ``conn``, greet it, and give it back every seat of its user that no live connection holds.

        A seat another live connection holds stays there: ``welcome.seats`` lists it with
        ``elsewhere: true`` and ``open_table`` takes it over.
        """
        portal = self.rooms.portal
        self.seats.came(conn)
        if portal:
            portal.connected(conn)
        mine: list[tuple[AnyRoom, int, bool]] = []
        for room in list(self.rooms.by_id.values()):
            table = room.table
            seat = table.seat_of(conn.user_id)
            s = table.seats[seat] if seat is not None else None
            if seat is None or s is None or s.is_bot or table.status == "closed":
                continue
            holder = self.seats.seat_conn.get((table.id, seat))
            mine.append((room, seat, holder is not None and not holder.closed))
        seats = [SeatOut.model_validate({"table_id": r.table.id, "seat": seat, "status": r.table.status,
                                         "elsewhere": held}) for r, seat, held in mine]
        remote = portal.remote_seats(conn.user_id) if portal else []
        seats += [SeatOut.model_validate({"table_id": t, "seat": seat, "status": status, "elsewhere": False})
                  for t, seat, status in remote]
        await conn.send(out(Welcome(user=UserOut(id=conn.user_id, username=conn.username,
                                                 role=conn.role), seats=seats)))  # type: ignore[arg-type]
        conn.lobby_seen = self.lobby.for_newcomer()
        await conn.send_encoded(conn.lobby_seen)
        for room, seat, held in mine:
            if not held:
                self.seats.attach(conn, room.table, seat)
                await room.broadcast({"kind": "reconnect", "seat": seat})
        for table_id, _, _ in remote:  # their owners seat it again there, if no live socket holds the seat
            assert portal is not None
            portal.reclaim(conn, table_id)

    async def disconnect(self, conn: Connection) -> None:
        """Forget ``conn``: its seats start their reconnect grace, its bot turns move on."""
        conn.closed = True
        self.seats.went(conn)
        by_id = self.rooms.by_id
        for table_id, seat in list(conn.seats):
            if self.seats.seat_conn.get((table_id, seat)) is conn:
                del self.seats.seat_conn[(table_id, seat)]
                room = by_id.get(table_id)
                s = room.table.seats[seat] if room else None
                if room and s:
                    async with room.lock:
                        s.connected = False
                        s.disconnected_at = time.time()
                        await room.broadcast({"kind": "disconnect", "seat": seat})
        for table_id in conn.watching:
            self.seats.watchers.get(table_id, set()).discard(conn)
            room = by_id.get(table_id)
            if room is not None:
                room.table.spectators = len(self.seats.watchers.get(table_id, ()))
        await self.rooms.analysis.connection_lost(conn)  # its analyses go to another bot
        if self.rooms.portal and conn.node is None:
            await self.rooms.portal.disconnected(conn)
        pool = self.rooms.pool
        for table_id, turn in pool.remove(conn):  # its turns go to another bot
            room = by_id.get(table_id)
            if room is not None:
                async with room.lock:
                    if pool.turns.get(table_id) == (turn, None):
                        await room.dispatch_bot()
        if conn.role == "bot":
            self.rooms.lobby_changed()  # the bot levels served may have changed

    async def rename_here(self, *, user_id: int, username: str, role: str) -> None:
        """Show a user's new name and role on its connections and seats at this process."""
        for conn in self.seats.conns:
            if conn.user_id == user_id:
                conn.username, conn.role = username, role
        for room in list(self.rooms.by_id.values()):
            seat = room.table.seat_of(user_id)
            s = room.table.seats[seat] if seat is not None else None
            if s is not None and not s.is_bot:
                s.username = username
                await room.broadcast(None)
        self.rooms.lobby_changed()

    async def revoke_here(self, token_hashes: set[str]) -> int:
        """Close (code 4401) this process's sockets signed in with one of ``token_hashes``; return how many."""
        doomed = [c for c in list(self.seats.conns) if c.token_hash in token_hashes and c.close_socket is not None]
        for conn in doomed:
            assert conn.close_socket is not None
            try:
                await conn.close_socket(4401, "signed out")
            except Exception:  # noqa: BLE001 - a socket already gone needs no closing
                log.info("closing a signed-out socket failed", exc_info=True)
            conn.closed = True
        return len(doomed)
