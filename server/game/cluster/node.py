"""Several server processes, one portal: each table owned by one process, the rest shared over Redis.

Without ``TRESET_REDIS_URL`` a process serves alone from its own memory (:class:`~server.game.hub.Hub`, which never imports this module).
With it, any number of processes (nodes) share one lobby and one set of tables:

- **Ownership.** A table lives in the memory of the node that opened it (or took it over), its
  *owner*, which keeps the table's lease ``treset:lease:ID`` alive in Redis. ``treset:tables`` lists
  every live table with its owner, its players and its lobby line.
- **Routing.** A client may be connected to any node. A command for a table another node owns is
  published on the owner's channel ``treset:to:NODE``; the owner handles it for a *proxy* (a
  :class:`~server.game.connection.Connection` whose ``node`` is the client's), and what the owner sends the
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
import secrets
from typing import Any

from redis.exceptions import RedisError

from server.game.cluster.leases import Leases
from server.game.cluster.state import ALL, BOTS, EPOCH, ONLINE, RENEW, inbox, lease_key, log, node_key

__all__ = ["Cluster", "RENEW", "lease_key"]


class Cluster(Leases):
    """This node's part in a portal of several server processes sharing one Redis.

    Its parts, each a module: :mod:`~server.game.cluster.state` (what it knows),
    :mod:`~server.game.cluster.bus` (messages), :mod:`~server.game.cluster.routes` (where commands go),
    :mod:`~server.game.cluster.leases` (who owns which table). It drives the game service only through
    :class:`~server.game.ports.Service` and offers it :class:`~server.game.ports.Portal`.
    """

    async def start(self) -> None:
        """Announce this node, listen on its channels and start the upkeep (raises if Redis is down)."""
        self.service.analysis.job_prefix = f"{self.node}."
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
            keys = [lease_key(t) for t in self.service.tables]
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
            await self._pubsub.aclose()
            await self.redis.aclose()

    def health(self) -> dict[str, Any]:
        """Return this node's figures for ``/healthz``."""
        return {"node": self.node, "nodes": len(self._alive), "proxies": len(self.proxies),
                "portal_tables": len(self.registry), "taken_over": self.taken_over,
                "redis_resets": self.redis_resets}

    async def _upkeep(self) -> None:
        while True:
            await asyncio.sleep(self.every_s)
            try:
                async with self._renew_lock:
                    await self.renew()
                await self.refresh()
                if self._resend:  # what a failed publish lost: every player of this node's tables sees the table again
                    self._resend = False
                    await self.service.resend_tables()
            except (RedisError, OSError) as exc:  # Redis away: keep serving this node's tables, retry
                log.warning("cluster upkeep failed: %s", exc)
            except Exception:
                log.exception("cluster upkeep failed")

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
            self._in_order((msg["from"], msg["cid"]), self.service.handle(proxy, msg["raw"]))
        elif op == "reclaim":
            proxy = self._proxy(msg["from"], msg["cid"], msg["user"])
            self._in_order((msg["from"], msg["cid"]), self.service.reclaim(proxy, msg["table_id"]))
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
            self._spawn(self.service.revoke_here(set(msg["hashes"])))
        elif op == "paired":
            self._spawn(self.service.pairing.paired_here(msg["user_id"], msg["table_id"], msg["from"]))
        elif op == "unseek":
            if msg["node"] == self.node:
                self._spawn(self.service.pairing.unseek_here(msg["user_id"], msg["reason"]))
        elif op == "rename":
            self._spawn(self.service.rename_here(user_id=msg["user_id"], username=msg["username"], role=msg["role"]))

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
