"""Which node owns which table: leases renewed each second, the portal read, tables taken over from dead nodes.

A refused fence in the database (:mod:`server.game.records`) is the last word; the leases keep
two live nodes from serving one table in the first place.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import time
from typing import Any

from redis.exceptions import RedisError

from server.game.cluster.routes import Routes
from server.game.cluster.state import (
    ALL,
    BOTS,
    EPOCH,
    ONLINE,
    PREFIX,
    TABLES,
    _text,
    lease_key,
    log,
    node_key,
)
from server.game.partnership.table import FourTable
from server.game.records import SavedGame
from server.game.tables import Table
from server.protocol import LevelInfo


class Leases(Routes):
    """Owns this node's tables in Redis: leases, listings, takeovers, Redis restarts."""

    async def own(self, table: Table | FourTable) -> None:
        """Take the lease of a table this node just opened and list it (before anyone is told of it)."""
        # This node's other tables whose entries changed since the last renewal go with it: the portal
        # never sees the new table beside an older state of the others (a deal just started, say).
        changed = self._changed_entries()
        changed.pop(table.id, None)
        pipe = self.redis.pipeline(transaction=False)
        pipe.set(lease_key(table.id), self.node, px=self.lease_ms)
        entries: dict[Any, Any] = {**changed, table.id: self._entry(table)}  # redis types want unions
        pipe.hset(TABLES, mapping=entries)
        await pipe.execute()
        self._listed(changed)
        if changed:
            self._send(ALL, {"op": "lobby", "from": self.node})

    def _changed_entries(self) -> dict[str, str]:
        """Return the entries of this node's tables that differ from what it last wrote to ``treset:tables``."""
        return {t: e for t, table in self.service.tables.items() if self._published.get(t) != (e := self._entry(table))}

    def _listed(self, entries: dict[str, str]) -> None:
        """Note ``entries`` as written to ``treset:tables`` (and as this node's registry sees them)."""
        self._published.update(entries)
        for table_id, entry in entries.items():
            self.registry[table_id] = json.loads(entry)

    def _entry(self, table: Table | FourTable) -> str:
        return json.dumps({"node": self.node, "users": [s.user_id if s else None for s in table.seats],
                           "status": table.status, "private": table.opponent == "invite",
                           "summary": table.summary()})

    async def claim_unfinished(self) -> int:
        """Take every unfinished deal in the database that no live node owns (at start); return how many."""
        games = await asyncio.to_thread(self.service.store.unfinished_games)
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
            fences, games = await asyncio.to_thread(self.service.store.claim, won)
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
        if not games or table_id in self.service.tables:
            return 0
        table = self.service.restore_game(games[-1], fence=fence)
        await self.own(table)
        self.registry[table_id] = json.loads(self._entry(table))
        self.taken_over += 1
        log.info("took table %s over (game %s, %d moves)", table_id, table.game_id, table.move_number)
        self._send(ALL, {"op": "moved", "from": self.node, "table_id": table_id})
        self._send(ALL, {"op": "lobby", "from": self.node})
        await self.service.ask_bot(table_id)
        for conn, routes in list(self.routes.items()):  # this node's sockets that were at the table elsewhere
            if routes.pop(table_id, None) is not None and not conn.closed:
                await self.service.reclaim(conn, table_id)
        return 1

    def drop(self, table_id: str) -> None:
        """Forget a table another node serves now (this node stalled past its lease), telling no one."""
        there = self.service.forget(table_id)
        if there is None:
            return
        log.warning("lost the lease of table %s: another node serves it now", table_id)
        for conn in there:
            if conn.node is None:
                self.routes.setdefault(conn, {})[table_id] = ""
        self._published.pop(table_id, None)
        self.registry.pop(table_id, None)  # read again: the new owner has listed it
        # Its local players and spectators are seated at the new owner (its "moved" may have been lost).
        self._spawn(self._moved(table_id, ""))

    async def renew(self) -> None:
        """Keep this node and its leases alive; list its tables and its people online.

        Takes care of a Redis that lost its keys first (:meth:`_check_epoch`): everything is written again.
        """
        started = time.monotonic()
        await self._check_epoch(_text(await self.redis.get(EPOCH)))
        # The leases first: a table another node holds now is dropped before this node lists it as its own.
        held = list(self.service.tables)
        lost = await self._renew(keys=[lease_key(t) for t in held], args=[self.node, self.lease_ms]) if held else []
        for key in lost:
            self.drop(key.removeprefix(PREFIX + "lease:"))
        tables = self.service.tables
        pipe = self.redis.pipeline(transaction=False)
        pipe.set(node_key(self.node), "1", px=self.lease_ms)
        changed = self._changed_entries()
        gone = [t for t in self._published if t not in tables]
        if changed:
            pipe.hset(TABLES, mapping=changed)  # type: ignore[arg-type]  # redis types want a Mapping of unions
        if gone:
            pipe.hdel(TABLES, *gone)
        online = len(self.service.online)
        if online != self._online_written:
            pipe.hset(ONLINE, self.node, online)
        await pipe.execute()
        self._renewed_at = started
        for table_id in gone:
            self._published.pop(table_id, None)
            self.registry.pop(table_id, None)
        self._listed(changed)
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
            self.service.online_dirty = True
        if self.remote_summaries() != before:
            self.service.lobby_dirty = True
        await self._sync_bots({k: e for k, e in bot_entries.items() if k.split(":")[0] in self._alive},
                              keep_missing=grace)
        for key in list(self.proxies):
            if key[0] not in self._alive:
                await self._proxy_gone(key)
        orphans = [t for t, entry in self.registry.items() if entry["node"] in dead and t not in self.service.tables]
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
            if proxy in self.service.pool.bots and proxy.levels == entry["levels"] and proxy.capacity == capacity:
                continue
            infos = [LevelInfo.model_validate(i) for i in entry["level_info"]]
            four = [LevelInfo.model_validate(i) for i in entry.get("partnership", ())]
            await self.service.register_bot(proxy, levels=entry["levels"], capacity=capacity,
                                            analysis=int(entry["analysis"]), level_info=infos, partnership=four)
        listed = set(entries)
        if keep_missing:
            return
        for key, proxy in list(self.proxies.items()):
            if proxy.role == "bot" and proxy in self.service.pool.bots and f"{key[0]}:{key[1]}" not in listed:
                await self._proxy_gone(key)

    async def _moved(self, table_id: str, node: str) -> None:
        """Seat the local sockets that were at ``table_id`` again, at its new owner."""
        entry = await self.redis.hget(TABLES, table_id)
        if entry is not None:
            self.registry[table_id] = json.loads(entry)
        for conn, routes in list(self.routes.items()):
            if table_id in routes and not conn.closed:
                self.reclaim(conn, table_id)

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
