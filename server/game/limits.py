"""In-process rate limits: a token bucket, and buckets by key (an account, an address).

A process on its own keeps them in memory: a limit that resets when the process restarts is still
a limit. Several processes share theirs in Redis (:mod:`server.game.cluster.shared_limits`, the same
``Limiter`` interface), so two processes allow what one does. The figures live in ``Settings``.

>>> clock = [0.0]
>>> bucket = TokenBucket(rate=1.0, burst=2, clock=lambda: clock[0])
>>> bucket.take(), bucket.take(), bucket.take()
(True, True, False)
>>> round(bucket.wait(), 3)
1.0
>>> clock[0] = 1.0
>>> bucket.take()
True
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

Clock = Callable[[], float]


@dataclass(slots=True)
class TokenBucket:
    """``burst`` tokens, refilled at ``rate`` per second; each action takes one."""

    rate: float
    burst: int
    clock: Clock = time.monotonic
    tokens: float = field(init=False)
    stamp: float = field(init=False)

    def __post_init__(self) -> None:
        self.tokens = float(self.burst)
        self.stamp = self.clock()

    def _refill(self) -> None:
        now = self.clock()
        self.tokens = min(float(self.burst), self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now

    def take(self) -> bool:
        """Take a token if one is left; return whether the action may go ahead."""
        self._refill()
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False

    def wait(self) -> float:
        """Return the seconds until a token is back (0 when one is there now)."""
        self._refill()
        return 0.0 if self.tokens >= 1.0 else (1.0 - self.tokens) / self.rate if self.rate > 0 else math.inf

    @property
    def full(self) -> bool:
        """Return True when the bucket has refilled completely (it can then be forgotten)."""
        self._refill()
        return self.tokens >= self.burst


class Limiter(Protocol):
    """Budgets by key: what the sign-in throttles ask of a limiter, in memory or shared."""

    def hit(self, key: str) -> float:
        """Count one action for ``key``; return 0 if allowed, else the seconds to wait (nothing is counted)."""
        ...

    def blocked(self, key: str) -> float:
        """Return the seconds ``key`` must wait before its next action, without counting one."""
        ...

    def fresh(self, key: str) -> bool:
        """Return True when ``key`` has no action counted against it now (its budget is whole)."""
        ...


class Throttle:
    """Token buckets by key: ``limit`` actions per ``window_s`` seconds for each key, in bursts of ``limit``.

    Thread-safe (the HTTP routes run in a thread pool). Full buckets are dropped now and then,
    so the memory held is bounded by the keys active within one window.
    """

    def __init__(self, limit: int, window_s: float, clock: Clock = time.monotonic) -> None:
        """Allow ``limit`` actions per ``window_s`` seconds for each key."""
        self.limit, self.window_s, self.clock = limit, window_s, clock
        self._buckets: dict[str, TokenBucket] = {}
        self._lock = threading.Lock()
        self._swept = clock()

    def _bucket(self, key: str) -> TokenBucket:
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = TokenBucket(self.limit / self.window_s, self.limit, self.clock)
        return bucket

    def hit(self, key: str) -> float:
        """Count one action for ``key``; return 0 if allowed, else the seconds to wait (nothing is counted)."""
        with self._lock:
            self._sweep()
            bucket = self._bucket(key)
            return 0.0 if bucket.take() else max(bucket.wait(), 0.001)

    def blocked(self, key: str) -> float:
        """Return the seconds ``key`` must wait before its next action, without counting one."""
        with self._lock:
            bucket = self._buckets.get(key)
            return bucket.wait() if bucket is not None else 0.0

    def fresh(self, key: str) -> bool:
        """Return True when ``key`` has no action counted against it now (its bucket is full)."""
        with self._lock:
            bucket = self._buckets.get(key)
            return bucket is None or bucket.full

    def _sweep(self) -> None:
        now = self.clock()
        if now - self._swept < self.window_s:
            return
        self._swept = now
        for key in [k for k, b in self._buckets.items() if b.full]:
            del self._buckets[key]


def retry_after(seconds: float) -> str:
    """Return a ``Retry-After`` header value: whole seconds, at least 1.

    >>> retry_after(0.2), retry_after(3.01)
    ('1', '4')
    """
    return str(max(1, math.ceil(seconds)))
