"""Locks by key (a user's id, say), made when first wanted and forgotten when nobody holds or waits for them."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Hashable


class KeyedLocks:
    """An :class:`asyncio.Lock` per key; a key's lock is kept only while someone holds or waits for it.

    >>> import asyncio
    >>> locks = KeyedLocks()
    >>> async def twice() -> int:
    ...     async with locks.hold("ann"):
    ...         return len(locks)
    >>> asyncio.run(twice()), len(locks)
    (1, 0)
    """

    def __init__(self) -> None:
        """Start with no lock."""
        self._locks: dict[Hashable, tuple[asyncio.Lock, int]] = {}

    def __len__(self) -> int:
        """Return how many keys have a lock now."""
        return len(self._locks)

    @contextlib.asynccontextmanager
    async def hold(self, key: Hashable) -> AsyncIterator[None]:
        """Hold ``key``'s lock (waiting for it in turn)."""
        lock, users = self._locks.get(key, (asyncio.Lock(), 0))
        self._locks[key] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._locks[key]
            if users == 1:
                del self._locks[key]
            else:
                self._locks[key] = (lock, users - 1)
