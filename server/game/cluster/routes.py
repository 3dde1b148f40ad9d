"""Where a client's command goes: to the node that owns its table, and back over the client's node.

Also what the lobby needs of the other nodes: their tables' lines, a user's seats there, who plays elsewhere.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import time
from collections.abc import AsyncIterator
from typing import Any

from redis.exceptions import RedisError

from server.game.cluster.bus import Bus
from server.game.cluster.state import ALL, BOTS, PREFIX, TABLES, inbox
from server.game.connection import Connection
from server.protocol import BotHello

USER_LOCK_MS = 5000
"""A user's portal lock lapses after this long (its holder stopped): opening a table takes milliseconds."""
USER_LOCK_WAIT_S = 5.0
"""How long opening or joining a table waits for the user's lock before it is refused."""
_RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0"


def _text(value: str | bytes) -> str:
    return value.decode() if isinstance(value, bytes) else value


class Routes(Bus):
    """Forwards local sockets' commands to the tables' owners and lists local bots for every node."""

    def connected(self, conn: Connection) -> None:
        """Number a new socket of this node (its address on the portal: NODE, number)."""
        self._cids += 1
        self.cid_of[conn] = self._cids
        self.local[self._cids] = conn

    async def disconnected(self, conn: Connection) -> None:
        """Tell the nodes that served this socket's tables that it is gone; unlist it if a bot."""
        cid = self.cid_of.pop(conn, None)
        if cid is None:
            return
        self.local.pop(cid, None)
        for node in set(self.routes.pop(conn, {}).values()):
            self._send(inbox(node), {"op": "gone", "from": self.node, "cid": cid})
        if conn.role == "bot":
            self._bot_entries.pop(cid, None)
            with contextlib.suppress(RedisError, OSError):
                await self.redis.hdel(BOTS, f"{self.node}:{cid}")
            self._send(ALL, {"op": "bots", "from": self.node})

    async def forward(self, conn: Connection, table_id: str, raw: str) -> bool:
        """Send a local socket's command to the node owning ``table_id``; False if no other node owns it.

        A node that cannot be reached (Redis away, or the node dead and its tables not yet taken over)
        answers ``table_unavailable`` for it, so the client knows to try again.
        """
        try:
            node = await self.owner_of(table_id)
        except (RedisError, OSError):
            node = None
            if not self._route_of(conn, table_id):
                await conn.send(self._unavailable(table_id, raw))
                return True
        node = node or self._route_of(conn, table_id)
        if node is None or node == self.node:
            if node is None and time.monotonic() < self._grace_until:  # Redis is being filled again
                await conn.send(self._unavailable(table_id, raw))
                return True
            return False
        if node not in self._alive:  # its tables move within a lease; until then, nobody can answer
            await conn.send(self._unavailable(table_id, raw))
            return True
        if conn in self.cid_of:  # else the socket is gone already: nothing to answer
            self._to_node(node, conn, table_id, {"op": "cmd", "raw": raw}, fails=(table_id, raw))
        return True

    def _route_of(self, conn: Connection, table_id: str) -> str | None:
        """Return the node this socket's commands for ``table_id`` went to last (if it still seems alive)."""
        node = self.routes.get(conn, {}).get(table_id)
        return node or None

    async def reroute(self, conn: Connection, table_id: str, raw: str) -> bool:
        """Send a command for a table this node just lost on to its new owner; False if none is known yet."""
        with contextlib.suppress(RedisError, OSError):
            entry = await self.redis.hget(TABLES, table_id)
            if entry is not None:
                self.registry[table_id] = json.loads(entry)
        node = self.registry.get(table_id, {}).get("node")
        if node is None or node == self.node:
            return False
        if conn.node is None:  # a local socket: its route now leads to the new owner
            if conn not in self.cid_of:
                return True
            self._to_node(node, conn, table_id, {"op": "cmd", "raw": raw}, fails=(table_id, raw))
            return True
        key = next((k for k, c in self.proxies.items() if c is conn), None)
        if key is None:
            return False
        # A client of a third node: the new owner answers it directly (its node learns the route from "moved").
        self._send(inbox(node), {"op": "cmd", "raw": raw, "from": key[0], "cid": key[1], "user": self._user(conn)})
        return True

    def forward_report(self, conn: Connection, job: str, raw: str) -> bool:
        """Send a bot's analysis to the node that gave the job out; False if it was this one."""
        node = job.split(".", 1)[0] if "." in job else self.node
        if node == self.node or conn not in self.cid_of:
            return False
        self._to_node(node, conn, f"node:{node}", {"op": "cmd", "raw": raw})  # one route per node, not per job
        return True

    def _to_node(self, node: str, conn: Connection, route: str, message: dict[str, Any],
                 fails: tuple[str, str] | None = None) -> None:
        """Send ``message`` for the local socket ``conn`` to ``node``, which is told when the socket goes.

        ``fails``: the table and command to answer ``table_unavailable`` for if it cannot be published.
        """
        self.routes.setdefault(conn, {})[route] = node
        self._send(inbox(node), {**message, "from": self.node, "cid": self.cid_of[conn], "user": self._user(conn)},
                   conn=conn if fails else None, fails=fails)

    def remote_seats(self, user_id: int) -> list[tuple[str, int, str]]:
        """Return the user's seats at other nodes' tables as ``(table_id, seat, status)``."""
        return [(table_id, entry["users"].index(user_id), entry["status"])
                for table_id, entry in self._seated_elsewhere(self.registry, user_id)]

    async def user_tables(self, user_id: int) -> list[tuple[str, str, bool]]:
        """Return the user's tables at other nodes as ``(table_id, status, both seats taken)``, read now.

        Read from Redis, not from the registry (a second old): under :meth:`user_lock` it holds every
        table another node opened or seated the user at before it let the lock go.
        """
        try:
            entries = {_text(t): json.loads(e) for t, e in (await self.redis.hgetall(TABLES)).items()}
        except (RedisError, OSError):  # Redis away: the registry, as of the last look
            entries = self.registry
        return [(table_id, entry["status"], None not in entry["users"])
                for table_id, entry in self._seated_elsewhere(entries, user_id)]

    def _seated_elsewhere(self, entries: dict[str, dict[str, Any]], user_id: int) -> list[tuple[str, dict[str, Any]]]:
        """Return the entries of other nodes' open tables where ``user_id`` sits."""
        return [(table_id, entry) for table_id, entry in entries.items()
                if entry["node"] != self.node and user_id in entry["users"] and entry["status"] != "closed"]

    @contextlib.asynccontextmanager
    async def user_lock(self, user_id: int) -> AsyncIterator[None]:
        """Hold the user's lock on the portal while a table is opened or joined for them (one at a time).

        A key with this holder's token, for USER_LOCK_MS at most (a holder that stops lets it go by
        itself); released only by its holder. Raises TimeoutError if it stays taken USER_LOCK_WAIT_S (or
        Redis cannot be reached).
        """
        key, token = f"{PREFIX}user-lock:{user_id}", secrets.token_hex(8)
        deadline = time.monotonic() + USER_LOCK_WAIT_S
        try:
            while not await self.redis.set(key, token, nx=True, px=USER_LOCK_MS):
                if time.monotonic() > deadline:
                    raise TimeoutError(f"user {user_id}'s tables are being changed elsewhere")
                await asyncio.sleep(0.02)
        except (RedisError, OSError) as exc:
            raise TimeoutError(f"the portal cannot be reached: {exc}") from None
        try:
            yield
        finally:
            with contextlib.suppress(RedisError, OSError):
                await self.redis.eval(_RELEASE, 1, key, token)

    def playing_elsewhere(self) -> set[Connection]:
        """Return this node's sockets seated in a running deal at another node's table (they need no lobby)."""
        busy = set()
        for conn, routes in self.routes.items():
            for table_id in routes:
                entry = self.registry.get(table_id)
                if entry is not None and entry["status"] == "playing" and conn.user_id in entry["users"]:
                    busy.add(conn)
                    break
        return busy

    def reclaim(self, conn: Connection, table_id: str) -> None:
        """Ask the owner of ``table_id`` to seat ``conn`` again (if no live socket holds the seat) or let it watch."""
        node = self.registry.get(table_id, {}).get("node")
        if node is None or node == self.node or conn not in self.cid_of:
            return
        self._to_node(node, conn, table_id, {"op": "reclaim", "table_id": table_id})

    async def bot_hello(self, conn: Connection, msg: BotHello) -> None:
        """List a local bot for every node (they seat it through proxies)."""
        if conn not in self.cid_of:
            return
        entry = {"user": self._user(conn), "levels": conn.levels, "capacity": conn.capacity,
                 "analysis": conn.analysis, "level_info": [i.model_dump() for i in msg.level_info],
                 "partnership": [i.model_dump() for i in msg.partnership_levels]}
        self._bot_entries[self.cid_of[conn]] = json.dumps(entry)
        await self.redis.hset(BOTS, f"{self.node}:{self.cid_of[conn]}", self._bot_entries[self.cid_of[conn]])
        self._send(ALL, {"op": "bots", "from": self.node})

    def broadcast(self, op: str, **fields: Any) -> None:
        """Tell every other node (``revoke``, ``rename``, ``unseek``)."""
        self._send(ALL, {"op": op, "from": self.node, **fields})

    def tell_paired(self, node: str, user_id: int, table_id: str) -> None:
        """Tell ``node`` that its socket's seek of ``user_id`` was paired at ``table_id`` (opened here)."""
        self._send(inbox(node), {"op": "paired", "from": self.node, "user_id": user_id, "table_id": table_id})

    def seat_paired(self, conn: Connection, table_id: str, node: str) -> None:
        """Ask ``node``, which opened ``table_id`` for a pair, to seat this node's socket ``conn`` there."""
        if conn in self.cid_of:
            self._to_node(node, conn, table_id, {"op": "reclaim", "table_id": table_id})

    async def owner_of(self, table_id: str) -> str | None:
        """Return the node owning ``table_id`` (None: no live table of that id)."""
        entry = self.registry.get(table_id)
        if entry is None:
            raw = await self.redis.hget(TABLES, table_id)
            if raw is None:
                return None
            entry = self.registry[table_id] = json.loads(raw)
        node: str = entry["node"]
        return node

    def remote_summaries(self) -> list[dict[str, Any]]:
        """Return the lobby lines of the other nodes' public tables."""
        return [e["summary"] for e in self.registry.values() if e["node"] != self.node and not e["private"]]
