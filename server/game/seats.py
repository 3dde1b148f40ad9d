"""Who is where in this process: the connection holding each seat, each table's spectators, people online.

A registry, no I/O: rooms (:mod:`server.game.room`) tell their audience through it; the sessions
(:mod:`server.game.sessions`) fill it as sockets come and go.
"""

from __future__ import annotations

from collections import Counter

from server.game.connection import Connection
from server.game.partnership.table import FourTable
from server.game.tables import Table


class Seats:
    """The connections at this process's tables, and the people (not bots) online here."""

    def __init__(self) -> None:
        """Start with nobody."""
        self.conns: set[Connection] = set()
        self.seat_conn: dict[tuple[str, int], Connection] = {}
        """The one connection that plays each ``(table_id, seat)`` (a takeover moves it)."""
        self.watchers: dict[str, set[Connection]] = {}
        self.online: Counter[int] = Counter()
        """The sockets of each person (not bot) online here."""
        self.online_dirty = False
        """Someone came or went: the lobby's count of people online is due."""

    def came(self, conn: Connection) -> None:
        """Count a new socket (a person's shows in the lobby's figure of people online)."""
        self.conns.add(conn)
        if conn.role != "bot":
            self.online[conn.user_id] += 1
            self.online_dirty = True

    def went(self, conn: Connection) -> None:
        """Count a socket gone."""
        if conn in self.conns and conn.role != "bot":
            self.online[conn.user_id] -= 1
            if self.online[conn.user_id] <= 0:
                del self.online[conn.user_id]
            self.online_dirty = True
        self.conns.discard(conn)

    def attach(self, conn: Connection, table: Table | FourTable, seat: int) -> None:
        """Give ``seat`` of ``table`` to ``conn`` (from now on only it hears the seat's view)."""
        self.seat_conn[(table.id, seat)] = conn
        conn.seats.add((table.id, seat))
        s = table.seats[seat]
        assert s is not None
        s.connected = True
        s.disconnected_at = None

    def detach(self, table_id: str, seat: int) -> Connection | None:
        """Take ``seat`` from the connection holding it; return that connection."""
        conn = self.seat_conn.pop((table_id, seat), None)
        if conn is not None:
            conn.seats.discard((table_id, seat))
        return conn

    def watch(self, conn: Connection, table: Table | FourTable) -> None:
        """Let ``conn`` watch ``table``."""
        self.watchers.setdefault(table.id, set()).add(conn)
        conn.watching.add(table.id)
        table.spectators = len(self.watchers[table.id])

    def unwatch(self, conn: Connection, table_id: str, table: Table | FourTable | None) -> None:
        """Stop ``conn`` watching ``table_id`` (``table``: the table, if still here, counts its spectators)."""
        conn.watching.discard(table_id)
        self.watchers.get(table_id, set()).discard(conn)
        if table is not None:
            table.spectators = len(self.watchers.get(table_id, ()))

    def audience(self, table_id: str) -> list[Connection]:
        """Return the connections that hear of ``table_id``: its players' and its spectators'."""
        conns = [c for (t, _), c in self.seat_conn.items() if t == table_id]
        return conns + list(self.watchers.get(table_id, ()))

    def forget(self, table_id: str) -> list[Connection]:
        """Unseat and unwatch everyone at ``table_id``; return who was there (players first)."""
        there = [conn for seat in range(4) if (conn := self.detach(table_id, seat)) is not None]
        for conn in self.watchers.pop(table_id, set()):
            conn.watching.discard(table_id)
            there.append(conn)
        return there
