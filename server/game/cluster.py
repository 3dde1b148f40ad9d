"""Several server processes, one portal: each table owned by one process, the rest shared over Redis.

Without ``TRESET_REDIS_URL`` a process serves alone from its own memory (:class:`~server.game.hub.Hub`).
With it, any number of processes (nodes) share one lobby and one set of tables:

- **Ownership.** A table lives in the memory of the node that opened it (or took it over), its
  *owner*, which keeps the table's lease ``treset:lease:ID`` alive in Redis. ``treset:tables`` lists
  every live table with its owner, its players and its lobby line.
- **Routing.** A client may be connected to any node. A command for a table another node owns is
  published on the owner's channel ``treset:to:NODE``; the owner handles it for a *proxy* (a
  :class:`~server.game.hub.Connection` whose ``node`` is the client's), and what the owner sends the
  proxy goes back over the client's node channel to its socket. One publisher per node keeps every
  socket's messages in order. Bots are clients like any other: a ``bot_hello`` is listed in
  ``treset:bots`` and every node seats bots connected anywhere (through proxies); analyses go back
  to the node that handed the job out (its id starts with the node's).
- **Shared lobby and presence.** Each node writes its tables and how many people it has online; a
  change is announced on ``treset:all`` and every node sends its own lobby clients the union.
- **Takeover.** A node that stops renewing (kill -9) loses its leases ``cluster_lease_s`` later;
  another takes each table (``SET NX`` on the lease), raises the table's fencing token in the
  database and rebuilds it from there in the same transaction (the committed moves: nothing in
  Redis is authoritative, so no move is lost or doubled), starts its clock afresh (the outage is
  not charged) and announces it: clients that were at the table through a proxy are seated again
  at once, players whose socket died with the node reconnect to any other one.
- **Fencing.** A node that was paused (SIGSTOP, a long GC, a VM migration) cannot know it was: it
  checks its leases before acting on what waited while it could not run (:meth:`Cluster.ensure_leases`),
  and whatever slips past that is refused by the database, where every write for a table carries
  the token of the node that took it last (``server.store.writer``). A refused write drops the
  table here at once; the command goes on to the new owner (:meth:`Cluster.reroute`). The tokens
  live in the database, not in Redis: a Redis that restarts empty would hand out old numbers again.
- **Redis restarts.** ``treset:epoch`` names Redis's current life; a node that finds it gone or
  changed (a restart, a flush, a failover) announces everything it holds again (tables with their
  leases, bots, people online), sends its tables' players a fresh snapshot (messages may have been
  lost), and for ``2 × cluster_lease_s`` judges no node dead for keys that vanished with Redis.
  A command for a table whose node cannot be reached gets ``table_unavailable`` (try again).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from redis.asyncio import Redis
from redis.exceptions import RedisError

from server.game.records import SavedGame
from server.protocol import BotHello, LevelInfo, table_unavailable

if TYPE_CHECKING:
    from server.game.connection import Connection
    from server.game.hub import Hub
    from server.game.tables import Table

log = logging.getLogger("treset.cluster")

PREFIX = "treset:"
TABLES = PREFIX + "tables"
"""Hash: table id -> {"node", "users", "status", "private", "summary"} for every live table."""
BOTS = PREFIX + "bots"
"""Hash: "NODE:CID" -> a bot's ``bot_hello`` (its levels, capacity, analysis slots, level info)."""
ONLINE = PREFIX + "online"
"""Hash: node -> how many people it has online."""
PUBLISH_WAIT_S = 1.5
"""How long one try to publish may take before it counts as failed (Redis away)."""
EPOCH = PREFIX + "epoch"
"""A random value set by the first node that finds it missing: it changes when Redis loses its keys."""
ALL = PREFIX + "all"
"""The channel every node hears: lobby and bot changes, tables moved, sign-outs, renames."""
RENEW = """
local lost = {}
for i, key in ipairs(KEYS) do
  local owner = redis.call('get', key)
  if owner == ARGV[1] then redis.call('pexpire', key, ARGV[2])
  elseif not owner then redis.call('set', key, ARGV[1], 'PX', ARGV[2])
  else lost[#lost + 1] = key end
end
return lost
"""
"""Renew this node's leases (taking back one that expired while nobody took it: this node stalled);
return the keys of those another node holds now."""


@dataclass(slots=True)
class Outgoing:
    """A message waiting to be published: where, what, and whom to tell if it cannot go."""

    channel: str
    payload: str
    conn: Connection | None = None
    fails: tuple[str, str] | None = None
    """The table and raw command to answer ``table_unavailable`` for, if the message is dropped."""


def _text(value: object) -> str | None:
    """Return a Redis reply as text (the client decodes replies; its types do not say so)."""
    return None if value is None else str(value)


def lease_key(table_id: str) -> str:
    """Return the Redis key of a table's lease (its value: the owner node)."""
    return f"{PREFIX}lease:{table_id}"


def node_key(node: str) -> str:
    """Return the Redis key that exists while ``node`` is alive."""
    return f"{PREFIX}node:{node}"


def inbox(node: str) -> str:
    """Return the channel of the messages to ``node``."""
    return f"{PREFIX}to:{node}"


class Cluster:
    """This node's part in a portal of several server processes sharing one Redis."""

    def __init__(self, hub: Hub, url: str, *, lease_s: float) -> None:
        """Join ``hub`` to the portal of ``url`` (call :meth:`start` once the event loop runs)."""
        self.hub = hub
        self.node = secrets.token_hex(6)
        # Timeouts: with Redis away, a command must fail in seconds (the table's players are answered).
        self.redis: Redis = Redis.from_url(url, decode_responses=True, socket_timeout=1, socket_connect_timeout=1)
        self.lease_ms = int(lease_s * 1000)
        self.every_s = min(1.0, lease_s / 3)
        self._renew = self.redis.register_script(RENEW)
        self._outbox: asyncio.Queue[Outgoing] = asyncio.Queue()
        self._tasks: list[asyncio.Task[None]] = []
        self._cids = 0
        self.cid_of: dict[Connection, int] = {}
        self.local: dict[int, Connection] = {}
        """The sockets of this node, by their connection number."""
        self.routes: dict[Connection, dict[str, str]] = {}
        """Per local socket: the tables its commands went to elsewhere, and to which node."""
        self.proxies: dict[tuple[str, int], Connection] = {}
        """Clients of other nodes (people and bots) as this node's tables see them."""
        self._proxy_locks: dict[tuple[str, int], asyncio.Lock] = {}
        self.registry: dict[str, dict[str, Any]] = {}
        """The last read of ``treset:tables``: every live table of the portal."""
        self.remote_online = 0
        self._published: dict[str, str] = {}
        self._online_written = -1
        self._alive: set[str] = {self.node}
        self.taken_over = 0
        self._refreshing = False
        self._again = False
        self._renewed_at = float("-inf")
        """When (monotonic) the last renewal that succeeded began: the leases hold a lease's time from then."""
        self._renew_failed_at = float("-inf")
        self._renew_lock = asyncio.Lock()
        self.epoch: str | None = None
        self._grace_until = 0.0
        """Until then (monotonic), no node is judged dead: Redis lost its keys, the nodes are announcing again."""
        self.redis_resets = 0
        self._resend = False
        """Messages may have been lost (a publish failed): send this node's tables a fresh snapshot."""
        self._bot_entries: dict[int, str] = {}
        """The ``bot_hello`` of each local bot as listed in ``treset:bots`` (announced again after a reset)."""

    # ----- life --------------------------------------------------------------------------

    async def start(self) -> None:
        """Announce this node, listen on its channels and start the upkeep (raises if Redis is down)."""
        self.hub.analysis.job_prefix = f"{self.node}."
        await self.redis.set(EPOCH, secrets.token_hex(8), nx=True)
        self.epoch = str(await self.redis.get(EPOCH))
        await self.redis.set(node_key(self.node), "1", px=self.lease_ms)
        self._pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        await self._pubsub.subscribe(inbox(self.node), ALL)
        self._tasks = [asyncio.create_task(self._read()), asyncio.create_task(self._publish()),
                       asyncio.create_task(self._upkeep())]
        await self.refresh()

    async def stop(self) -> None:
        """Leave the portal: free this node's tables for the others at once, then close."""
        for task in self._tasks:
            task.cancel()
        with contextlib.suppress(RedisError, OSError):
            keys = [lease_key(t) for t in self.hub.tables]
            pipe = self.redis.pipeline(transaction=False)
            if keys:
                pipe.delete(*keys)
            # The tables stay listed: with this node gone, the others take them over at their next look.
            bots = [f"{self.node}:{cid}" for cid, c in self.local.items() if c.role == "bot"]
            if bots:
                pipe.hdel(BOTS, *bots)
            pipe.hdel(ONLINE, self.node)
            pipe.delete(node_key(self.node))
            pipe.publish(ALL, json.dumps({"op": "lobby", "from": self.node}))
            await pipe.execute()
        with contextlib.suppress(RedisError, OSError, RuntimeError):
            await self._pubsub.aclose()  # type: ignore[no-untyped-call]
            await self.redis.aclose()

    def health(self) -> dict[str, Any]:
        """Return this node's figures for ``/healthz``."""
        return {"node": self.node, "nodes": len(self._alive), "proxies": len(self.proxies),
                "portal_tables": len(self.registry), "taken_over": self.taken_over,
                "redis_resets": self.redis_resets}

    # ----- local sockets -----------------------------------------------------------------

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

    def _user(self, conn: Connection) -> list[Any]:
        return [conn.user_id, conn.username, conn.role, conn.token_hash]

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

    @staticmethod
    def _unavailable(table_id: str, raw: str) -> dict[str, Any]:
        kind = None
        with contextlib.suppress(ValueError, AttributeError, RecursionError):
            kind = json.loads(raw).get("type")
        return table_unavailable(table_id, kind if isinstance(kind, str) else None)

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
                for table_id, entry in self.registry.items()
                if entry["node"] != self.node and user_id in entry["users"] and entry["status"] != "closed"]

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
                 "analysis": conn.analysis, "level_info": [i.model_dump() for i in msg.level_info]}
        self._bot_entries[self.cid_of[conn]] = json.dumps(entry)
        await self.redis.hset(BOTS, f"{self.node}:{self.cid_of[conn]}", self._bot_entries[self.cid_of[conn]])
        self._send(ALL, {"op": "bots", "from": self.node})

    def broadcast(self, op: str, **fields: Any) -> None:
        """Tell every other node (``revoke``, ``rename``)."""
        self._send(ALL, {"op": op, "from": self.node, **fields})

    # ----- tables ------------------------------------------------------------------------

    async def own(self, table: Table) -> None:
        """Take the lease of a table this node just opened and list it (before anyone is told of it)."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.set(lease_key(table.id), self.node, px=self.lease_ms)
        pipe.hset(TABLES, table.id, self._entry(table))
        await pipe.execute()

    def _entry(self, table: Table) -> str:
        return json.dumps({"node": self.node, "users": [s.user_id if s else None for s in table.seats],
                           "status": table.status, "private": table.opponent == "invite",
                           "summary": table.summary()})

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

    async def claim_unfinished(self) -> int:
        """Take every unfinished deal in the database that no live node owns (at start); return how many."""
        games = await asyncio.to_thread(self.hub.store.unfinished_games)
        won = [g.table_id for g in games
               if await self.redis.set(lease_key(g.table_id), self.node, nx=True, px=self.lease_ms)]
        return await self._claim(won) if won else 0

    async def _take_over(self, table_ids: list[str]) -> None:
        """Take the tables of dead nodes whose leases this node wins, with one read of the database."""
        pipe = self.redis.pipeline(transaction=False)
        for table_id in table_ids:
            pipe.set(lease_key(table_id), self.node, nx=True, px=self.lease_ms)
        won = [t for t, ok in zip(table_ids, await pipe.execute(), strict=True) if ok]  # others took the rest
        if won:
            await self._claim(won)

    async def _claim(self, won: list[str]) -> int:
        """Fence the tables whose leases this node won, read their deals (one transaction), adopt them."""
        try:
            fences, games = await asyncio.to_thread(self.hub.store.claim, won)
        except Exception:  # noqa: BLE001 - the database is away: let the leases go, the next look tries again
            log.warning("could not take tables %s over: the database refused", won, exc_info=True)
            with contextlib.suppress(RedisError, OSError):
                await self.redis.delete(*[lease_key(t) for t in won])
            return 0
        by_table: dict[str, list[SavedGame]] = {}
        for game in games:
            by_table.setdefault(game.table_id, []).append(game)
        count = 0
        for table_id in won:
            if await self._adopt(table_id, by_table.get(table_id, []), fences[table_id]):
                count += 1
            else:  # no deal under way: it died with its node
                await self.redis.delete(lease_key(table_id))
                await self.redis.hdel(TABLES, table_id)
                self.registry.pop(table_id, None)
                self._send(ALL, {"op": "lobby", "from": self.node})
        return count

    async def _adopt(self, table_id: str, games: list[SavedGame], fence: int) -> int:
        """Rebuild ``table_id`` from its stored deal, list it, and announce where it is now."""
        if not games or table_id in self.hub.tables:
            return 0
        table = self.hub.restore_game(games[-1], fence=fence)
        await self.own(table)
        self.registry[table_id] = json.loads(self._entry(table))
        self.taken_over += 1
        log.info("took table %s over (game %s, %d moves)", table_id, table.game_id, table.move_number)
        self._send(ALL, {"op": "moved", "from": self.node, "table_id": table_id})
        self._send(ALL, {"op": "lobby", "from": self.node})
        async with table.lock:
            await self.hub._dispatch_bot(table)
        for conn, routes in list(self.routes.items()):  # this node's sockets that were at the table elsewhere
            if routes.pop(table_id, None) is not None and not conn.closed:
                await self.hub.reclaim(conn, table_id)
        return 1

    def drop(self, table_id: str) -> None:
        """Forget a table another node serves now (this node stalled past its lease), telling no one."""
        table = self.hub.tables.pop(table_id, None)
        if table is None:
            return
        log.warning("lost the lease of table %s: another node serves it now", table_id)
        for seat in (0, 1):
            conn = self.hub.seat_conn.pop((table_id, seat), None)
            if conn is not None:
                conn.seats.discard((table_id, seat))
                if conn.node is None:
                    self.routes.setdefault(conn, {})[table_id] = ""
        for conn in self.hub.watchers.pop(table_id, set()):
            conn.watching.discard(table_id)
            if conn.node is None:
                self.routes.setdefault(conn, {})[table_id] = ""
        self.hub.pool.turns.pop(table_id, None)
        self._published.pop(table_id, None)
        self.registry.pop(table_id, None)  # read again: the new owner has listed it
        # Its local players and spectators are seated at the new owner (its "moved" may have been lost).
        self._spawn(self._moved(table_id, ""))

    # ----- upkeep ------------------------------------------------------------------------

    async def _upkeep(self) -> None:
        while True:
            await asyncio.sleep(self.every_s)
            try:
                async with self._renew_lock:
                    await self.renew()
                await self.refresh()
                if self._resend:  # what a failed publish lost: every player of this node's tables sees the table again
                    self._resend = False
                    await self.hub.resend_tables()
            except (RedisError, OSError) as exc:  # Redis away: keep serving this node's tables, retry
                log.warning("cluster upkeep failed: %s", exc)
            except Exception:
                log.exception("cluster upkeep failed")

    def leases_fresh(self) -> bool:
        """Return True if this node's leases were renewed recently enough to still hold (no pause since)."""
        return time.monotonic() - self._renewed_at < self.lease_ms / 2000

    async def ensure_leases(self) -> None:
        """Before acting: if the leases may have run out (this node could not run), renew them now.

        Tables another node took meanwhile are dropped here, before the command or the clock acts on
        them. With Redis away nothing can be known: the database's fencing refuses what is stale.
        """
        if self.leases_fresh() or time.monotonic() - self._renew_failed_at < 1.0:
            return
        async with self._renew_lock:
            if self.leases_fresh():
                return
            try:
                await self.renew()
            except (RedisError, OSError) as exc:
                self._renew_failed_at = time.monotonic()
                log.warning("could not check this node's leases: %s", exc)

    async def renew(self) -> None:
        """Keep this node and its leases alive; list its tables and its people online.

        Takes care of a Redis that lost its keys first (:meth:`_check_epoch`): everything is written again.
        """
        started = time.monotonic()
        await self._check_epoch(_text(await self.redis.get(EPOCH)))
        # The leases first: a table another node holds now is dropped before this node lists it as its own.
        held = list(self.hub.tables)
        lost = await self._renew(keys=[lease_key(t) for t in held], args=[self.node, self.lease_ms]) if held else []
        for key in lost:
            self.drop(key.removeprefix(PREFIX + "lease:"))
        tables = self.hub.tables
        pipe = self.redis.pipeline(transaction=False)
        pipe.set(node_key(self.node), "1", px=self.lease_ms)
        changed: dict[str, str] = {}
        for table_id, table in tables.items():
            entry = self._entry(table)
            if self._published.get(table_id) != entry:
                changed[table_id] = entry
        gone = [t for t in self._published if t not in tables]
        if changed:
            pipe.hset(TABLES, mapping=changed)  # type: ignore[arg-type]  # redis types want a Mapping of unions
        if gone:
            pipe.hdel(TABLES, *gone)
        online = len(self.hub.online)
        if online != self._online_written:
            pipe.hset(ONLINE, self.node, online)
        await pipe.execute()
        self._renewed_at = started
        for table_id in gone:
            self._published.pop(table_id, None)
            self.registry.pop(table_id, None)
        self._published.update(changed)
        for table_id, entry in changed.items():
            self.registry[table_id] = json.loads(entry)
        if changed or gone or online != self._online_written:
            self._online_written = online
            self._send(ALL, {"op": "lobby", "from": self.node})

    async def _check_epoch(self, epoch: str | None) -> None:
        """If Redis lost its keys (restarted empty, flushed, failed over), announce everything again.

        The other nodes' keys vanished with Redis, not with the nodes: none is judged dead for two
        leases' time, while each writes its part again.
        """
        if epoch is not None and epoch == self.epoch:
            return
        if epoch is None:
            await self.redis.set(EPOCH, secrets.token_hex(8), nx=True)
            epoch = _text(await self.redis.get(EPOCH))
        if epoch == self.epoch:
            return
        self.epoch = epoch
        self.redis_resets += 1
        self._grace_until = time.monotonic() + 2 * self.lease_ms / 1000
        log.warning("Redis lost its keys (a restart or a flush): announcing this node's tables, bots and people again")
        self._published.clear()  # the next renewal lists every table again, and takes its lease back
        self._online_written = -1
        if self._bot_entries:
            await self.redis.hset(BOTS, mapping={f"{self.node}:{cid}": e for cid, e in self._bot_entries.items()})
            self._send(ALL, {"op": "bots", "from": self.node})
        self._resend = True

    async def refresh(self) -> None:
        """Read the portal (tables, bots, people online, live nodes); take over the tables of dead nodes."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.hgetall(TABLES)
        pipe.hgetall(BOTS)
        pipe.hgetall(ONLINE)
        pipe.get(EPOCH)
        tables, bots, online, epoch = await pipe.execute()
        if epoch != self.epoch:  # Redis lost its keys since the last renewal: a grace first, then judge
            await self._check_epoch(epoch)
        registry = {t: json.loads(e) for t, e in tables.items()}
        bot_entries = {k: json.loads(e) for k, e in bots.items()}
        nodes = ({e["node"] for e in registry.values()} | {k.split(":")[0] for k in bot_entries} | set(online)
                 | {node for node, _ in self.proxies}) - {self.node}
        nodes_sorted = sorted(nodes)
        alive = await self.redis.mget([node_key(n) for n in nodes_sorted]) if nodes_sorted else []
        grace = time.monotonic() < self._grace_until
        seen = {n for n, a in zip(nodes_sorted, alive, strict=True) if a}
        # In the grace, a node known alive before stays so until it has had time to write itself again.
        self._alive = seen | {self.node} | (self._alive if grace else set())
        dead = nodes - self._alive
        if dead:  # tidy what the dead left behind (any node may; HDEL twice is harmless)
            pipe = self.redis.pipeline(transaction=False)
            if stale := [k for k in bot_entries if k.split(":")[0] in dead]:
                pipe.hdel(BOTS, *stale)
            pipe.hdel(ONLINE, *dead)
            await pipe.execute()
        before = self.remote_summaries()
        if grace:  # what the other nodes have not written again yet is still theirs
            registry = {**{t: e for t, e in self.registry.items() if e["node"] != self.node}, **registry}
        registry.update({t: json.loads(e) for t, e in self._published.items()})
        self.registry = registry
        remote_online = sum(int(n) for node, n in online.items() if node in self._alive and node != self.node)
        if remote_online != self.remote_online:
            self.remote_online = remote_online
            self.hub.online_dirty = True
        if self.remote_summaries() != before:
            self.hub.lobby_dirty = True
        await self._sync_bots({k: e for k, e in bot_entries.items() if k.split(":")[0] in self._alive},
                              keep_missing=grace)
        for key in list(self.proxies):
            if key[0] not in self._alive:
                await self._proxy_gone(key)
        orphans = [t for t, entry in self.registry.items() if entry["node"] in dead and t not in self.hub.tables]
        if orphans:
            await self._take_over(orphans)

    async def _sync_bots(self, entries: dict[str, dict[str, Any]], *, keep_missing: bool = False) -> None:
        """Seat bots of other nodes: a proxy for each listed one, none for those that left.

        ``keep_missing``: Redis lost its keys lately; a bot not listed yet is not taken for gone.
        """
        live = len(self._alive)
        for name, entry in entries.items():
            node, cid = name.split(":")
            if node == self.node:
                continue
            proxy = self._proxy(node, int(cid), entry["user"])
            # The bot's capacity is shared by every node that seats it: each takes its part.
            capacity = max(1, -(-int(entry["capacity"]) // live)) if entry["capacity"] else 0
            if proxy in self.hub.pool.bots and proxy.levels == entry["levels"] and proxy.capacity == capacity:
                continue
            infos = [LevelInfo.model_validate(i) for i in entry["level_info"]]
            await self.hub.register_bot(proxy, levels=entry["levels"], capacity=capacity,
                                        analysis=int(entry["analysis"]), level_info=infos)
        listed = set(entries)
        if keep_missing:
            return
        for key, proxy in list(self.proxies.items()):
            if proxy.role == "bot" and proxy in self.hub.pool.bots and f"{key[0]}:{key[1]}" not in listed:
                await self._proxy_gone(key)

    # ----- messages ----------------------------------------------------------------------

    def _send(self, channel: str, message: dict[str, Any], *, conn: Connection | None = None,
              fails: tuple[str, str] | None = None) -> None:
        self._outbox.put_nowait(Outgoing(channel, json.dumps(message), conn, fails))

    async def _publish(self) -> None:
        """Publish the outbox in order, many messages per round trip.

        What cannot be published within a few tries is dropped: a command's sender is answered
        ``table_unavailable``, and this node's tables are sent again once Redis is back.
        """
        while True:
            batch = [await self._outbox.get()]
            while not self._outbox.empty() and len(batch) < 1000:
                batch.append(self._outbox.get_nowait())
            for attempt in range(3):
                pipe = self.redis.pipeline(transaction=False)  # a fresh one each time: a failed one is spent
                for item in batch:
                    pipe.publish(item.channel, item.payload)
                try:
                    await asyncio.wait_for(pipe.execute(), PUBLISH_WAIT_S)
                    break
                except (RedisError, OSError, TimeoutError) as exc:
                    log.warning("publishing %d messages failed (%s); retrying", len(batch), exc)
                    await asyncio.sleep(0.1 * (attempt + 1))
            else:
                self._resend = True
                for item in batch:
                    if item.conn is not None and item.fails is not None:
                        self._spawn(item.conn.send(self._unavailable(*item.fails)))

    async def _read(self) -> None:
        failed = False
        while True:
            try:
                message = await self._pubsub.get_message(timeout=1.0)
            except (RedisError, OSError) as exc:
                if not failed:
                    log.warning("reading from Redis failed: %s", exc)
                failed = True
                await asyncio.sleep(0.5)
                continue
            if failed:  # subscribed again: what was published to this node meanwhile is lost; ask for it again
                failed = False
                log.info("reading from Redis again: asking every node to send its tables again")
                self._send(ALL, {"op": "resend", "from": self.node})
                self._resend = True  # and this node's own: the others may have missed them too
            if message is None:
                continue
            try:
                data: str = message["data"]
                if data.startswith(">"):  # the frequent one, framed without JSON: ">CID TEXT"
                    cid, text = data[1:].split(" ", 1)
                    conn = self.local.get(int(cid))
                    if conn is not None:
                        self._keep(asyncio.create_task(conn.send_encoded(text)))  # in order: the socket's lock
                else:
                    self._receive(json.loads(data))
            except Exception:
                log.exception("a cluster message could not be handled")

    def _receive(self, msg: dict[str, Any]) -> None:
        op = msg["op"]
        if msg.get("from") == self.node and op not in ("cmd", "reclaim", "gone"):
            return  # this node's own news
        if op == "close":
            conn = self.local.get(msg["cid"])
            if conn is not None and conn.close_socket is not None:
                self._spawn(conn.close_socket(msg["code"], msg["reason"]))
        elif op == "cmd":
            proxy = self._proxy(msg["from"], msg["cid"], msg["user"])
            self._in_order((msg["from"], msg["cid"]), self.hub.handle(proxy, msg["raw"]))
        elif op == "reclaim":
            proxy = self._proxy(msg["from"], msg["cid"], msg["user"])
            self._in_order((msg["from"], msg["cid"]), self.hub.reclaim(proxy, msg["table_id"]))
        elif op == "gone":
            key = (msg["from"], msg["cid"])
            if key in self.proxies:
                self._in_order(key, self._proxy_gone(key))
        elif op in ("lobby", "bots"):
            self._refresh_soon()
        elif op == "moved":
            self._spawn(self._moved(msg["table_id"], msg["from"]))
        elif op == "resend":
            self._resend = True  # sent by the next upkeep
        elif op == "revoke":
            self._spawn(self.hub.revoke_here(set(msg["hashes"])))
        elif op == "rename":
            self._spawn(self.hub.rename_here(user_id=msg["user_id"], username=msg["username"], role=msg["role"]))

    def _refresh_soon(self) -> None:
        """Read the portal again: at once, or right after the read under way (news coalesce)."""
        if self._refreshing:
            self._again = True
            return
        self._refreshing = True

        async def run() -> None:
            try:
                while True:
                    self._again = False
                    await self.refresh()
                    if not self._again:
                        return
            finally:
                self._refreshing = False

        self._spawn(run())

    async def _moved(self, table_id: str, node: str) -> None:
        """Seat the local sockets that were at ``table_id`` again, at its new owner."""
        entry = await self.redis.hget(TABLES, table_id)
        if entry is not None:
            self.registry[table_id] = json.loads(entry)
        for conn, routes in list(self.routes.items()):
            if table_id in routes and not conn.closed:
                self.reclaim(conn, table_id)

    def _proxy(self, node: str, cid: int, user: list[Any]) -> Connection:
        from server.game.connection import Connection

        key = (node, cid)
        proxy = self.proxies.get(key)
        if proxy is None:
            channel = inbox(node)

            async def send_text(text: str) -> None:
                self._outbox.put_nowait(Outgoing(channel, f">{cid} {text}"))

            async def close_socket(code: int, reason: str) -> None:
                self._send(channel, {"op": "close", "cid": cid, "code": code, "reason": reason})

            proxy = Connection(send_text=send_text, user_id=user[0], username=user[1], role=user[2],
                               token_hash=user[3], close_socket=close_socket, node=node)
            self.proxies[key] = proxy
        else:
            proxy.username, proxy.role = user[1], user[2]
        return proxy

    async def _proxy_gone(self, key: tuple[str, int]) -> None:
        proxy = self.proxies.pop(key, None)
        self._proxy_locks.pop(key, None)
        if proxy is not None:
            await self.hub.disconnect(proxy)

    def _in_order(self, key: tuple[str, int], work: Awaitable[None]) -> None:
        """Run ``work`` after the earlier messages of the same client (a lock per proxy, FIFO)."""
        lock = self._proxy_locks.setdefault(key, asyncio.Lock())

        async def run() -> None:
            async with lock:
                await work

        self._spawn(run())

    def _keep(self, task: asyncio.Task[Any]) -> None:
        self.hub._tasks.add(task)
        task.add_done_callback(self.hub._tasks.discard)

    def _spawn(self, work: Awaitable[Any]) -> None:
        async def run() -> None:
            try:
                await work
            except Exception:
                log.exception("a cluster task failed")

        task = asyncio.create_task(run())
        self.hub._tasks.add(task)
        task.add_done_callback(self.hub._tasks.discard)
