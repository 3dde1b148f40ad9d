"""Messages between the nodes of the portal: published in order, read, and handed to proxies of remote clients.

A client of another node is a *proxy* here (a :class:`~server.game.connection.Connection` whose ``node``
is the client's node); what a proxy is sent goes back over that node's channel to the socket.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable
from typing import Any

from redis.exceptions import RedisError

from server.game.cluster.state import ALL, PUBLISH_WAIT_S, NodeState, Outgoing, inbox, log
from server.game.connection import Connection


class Bus(NodeState):
    """Publishes this node's messages (one publisher: each socket's messages in order) and reads its channels."""

    def _receive(self, msg: dict[str, Any]) -> None:
        """Act on one message from another node (:class:`~server.game.cluster.node.Cluster`)."""
        raise NotImplementedError

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

    def _proxy(self, node: str, cid: int, user: list[Any]) -> Connection:
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
            await self.service.disconnect(proxy)

    def _in_order(self, key: tuple[str, int], work: Awaitable[None]) -> None:
        """Run ``work`` after the earlier messages of the same client (a lock per proxy, FIFO)."""
        lock = self._proxy_locks.setdefault(key, asyncio.Lock())

        async def run() -> None:
            async with lock:
                await work

        self._spawn(run())

    def _keep(self, task: asyncio.Task[Any]) -> None:
        self.service.tasks.add(task)
        task.add_done_callback(self.service.tasks.discard)

    def _spawn(self, work: Awaitable[Any]) -> None:
        async def run() -> None:
            try:
                await work
            except Exception:
                log.exception("a cluster task failed")

        task = asyncio.create_task(run())
        self.service.tasks.add(task)
        task.add_done_callback(self.service.tasks.discard)
