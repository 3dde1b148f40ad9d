"""The queue of seeks in Redis, where every process of the portal sees it (:mod:`server.game.pairing.policy`).

One hash, ``treset:seeks``: user id -> the seek (JSON). A user's seek is put and taken with
``MULTI`` (the earlier one read in the same transaction). Pairs are taken optimistically: ``WATCH``
the hash, read it, pair with the pure policy (:func:`~server.game.pairing.policy.match`), and delete the
pairs in a ``MULTI``; if anyone changed the hash meanwhile (another process took a pair, someone
came or cancelled), Redis refuses the transaction and the look starts again. So two processes never
take the same seeker.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from redis.asyncio import Redis
from redis.exceptions import WatchError

from server.game.pairing.policy import SeekEntry, Widening, groups

SEEKS = "treset:seeks"
"""Hash: user id -> that user's seek (:meth:`SeekEntry.encode`)."""
TRIES = 20
"""Looks at the queue before giving up for this round (the next tick tries again)."""
DEAD_AFTER_S = 60.0
"""A seek of a process not seen alive is ignored, and dropped once this old (the process died with it)."""


class RedisQueue:
    """The portal's queue of seeks (see the module's docstring)."""

    def __init__(self, redis: Redis, alive: Callable[[str], bool]) -> None:
        """Keep the queue in ``redis``; ``alive(node)`` says whether a seek's process still serves its socket."""
        self.redis = redis
        self.alive = alive

    async def add(self, seek: SeekEntry) -> SeekEntry | None:
        """Put ``seek`` in the queue; return the user's earlier seek."""
        pipe = self.redis.pipeline(transaction=True)
        pipe.hget(SEEKS, str(seek.user_id))
        pipe.hset(SEEKS, str(seek.user_id), seek.encode())
        earlier, _ = await pipe.execute()
        return SeekEntry.decode(earlier) if earlier else None

    async def remove(self, user_id: int) -> SeekEntry | None:
        """Take the user's seek out of the queue; return it."""
        pipe = self.redis.pipeline(transaction=True)
        pipe.hget(SEEKS, str(user_id))
        pipe.hdel(SEEKS, str(user_id))
        earlier, _ = await pipe.execute()
        return SeekEntry.decode(earlier) if earlier else None

    async def all(self) -> list[SeekEntry]:
        """Return every seek of a live process."""
        raw = await self.redis.hgetall(SEEKS)
        return [s for s in (SeekEntry.decode(str(v)) for v in raw.values()) if self.alive(s.node)]

    async def take_pairs(self, *, now: float, widening: Widening,
                         mine: Callable[[SeekEntry], bool]) -> list[tuple[SeekEntry, ...]]:
        """Take the pairs to make now in which a seek is ``mine`` (and drop the seeks of dead processes)."""
        async with self.redis.pipeline(transaction=True) as pipe:
            for _ in range(TRIES):
                try:
                    await pipe.watch(SEEKS)
                    raw = await pipe.hgetall(SEEKS)
                    seeks = [SeekEntry.decode(str(v)) for v in raw.values()]
                    dead = [str(s.user_id) for s in seeks if not self.alive(s.node) and now - s.since > DEAD_AFTER_S]
                    pairs = [g for g in groups([s for s in seeks if self.alive(s.node)], now=now, widening=widening)
                             if any(mine(s) for s in g)]
                    gone = dead + [str(s.user_id) for pair in pairs for s in pair]
                    if not gone:
                        await pipe.unwatch()  # type: ignore[no-untyped-call]
                        return []
                    pipe.multi()  # type: ignore[no-untyped-call]
                    pipe.hdel(SEEKS, *gone)
                    await pipe.execute()
                    return pairs
                except WatchError:
                    continue
        return []

    def health(self) -> dict[str, Any]:
        """Return nothing of its own (the queue is the portal's)."""
        return {}
