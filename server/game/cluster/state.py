"""The state of this node's part in the portal, the Redis keys and channels it uses (see :mod:`server.game.cluster`)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from dataclasses import dataclass
from typing import Any

from redis.asyncio import Redis

from server.game.cluster.seeks import RedisQueue
from server.game.connection import Connection
from server.game.ports import Service
from server.protocol import table_unavailable

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


class NodeState:
    """What this node knows of the portal: its sockets, proxies, routes, the tables listed, its leases."""

    _pubsub: Any
    """This node's subscription (its channel and the one every node hears), from :meth:`Cluster.start` on."""

    def __init__(self, service: Service, url: str, *, lease_s: float) -> None:
        """Join ``service`` to the portal of ``url`` (call :meth:`start` once the event loop runs)."""
        self.service = service
        self.node = secrets.token_hex(6)
        # Timeouts: with Redis away, a command must fail in seconds (the table's players are answered).
        self.redis: Redis = Redis.from_url(url, decode_responses=True, socket_timeout=1, socket_connect_timeout=1)
        self.lease_ms = int(lease_s * 1000)
        self.every_s = min(1.0, lease_s / 3)
        self._renew = self.redis.register_script(RENEW)
        self.seeks = RedisQueue(self.redis, alive=lambda node: node in self._alive)
        """The portal's queue of seeks (quick pairing)."""
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

    def _user(self, conn: Connection) -> list[Any]:
        return [conn.user_id, conn.username, conn.role, conn.token_hash]

    @staticmethod
    def _unavailable(table_id: str, raw: str) -> dict[str, Any]:
        kind = None
        with contextlib.suppress(ValueError, AttributeError, RecursionError):
            kind = json.loads(raw).get("type")
        return table_unavailable(table_id, kind if isinstance(kind, str) else None)
