"""Rate limits every server process shares through Redis, or the process's own when there is no Redis.

Each key's budget is a token bucket kept in one Redis hash (``tokens``, ``stamp``) and changed by a Lua
script, so a check and its count are one atomic step whichever process makes them, on Redis's clock
(``TIME``). The hash expires once its bucket would be full again, so Redis holds only the keys active
within a window. When Redis does not answer, the limits fail open to the process's own buckets
(:class:`server.game.limits.Throttle`) with a warning, never an error to the client, and Redis is
tried again a few seconds later.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from redis import Redis
from redis.exceptions import RedisError

from server.game.limits import Clock, Limiter, Throttle

log = logging.getLogger("treset.limits")

BUCKET = """
local rate, burst = tonumber(ARGV[1]), tonumber(ARGV[2])
local now = redis.call('TIME')
now = tonumber(now[1]) + tonumber(now[2]) / 1000000
local saved = redis.call('HMGET', KEYS[1], 'tokens', 'stamp')
local tokens = burst
if saved[1] then
  tokens = math.min(burst, tonumber(saved[1]) + math.max(0, now - tonumber(saved[2])) * rate)
end
local wait = 0
if tokens >= 1 then
  if ARGV[3] == '1' then
    tokens = tokens - 1
    redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'stamp', tostring(now))
    redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) / rate * 1000) + 1000)
  end
else
  wait = (1 - tokens) / rate
end
return {tostring(wait), tostring(burst - tokens)}
"""
"""KEYS[1] the bucket; ARGV rate (tokens/s), burst, 1 to take a token (0 to look); returns the wait
(s, 0 when a token is there or was taken) and the tokens spent after the call, as strings (Redis
would truncate Lua's numbers to integers)."""

RETRY_S = 5.0
"""After Redis failed to answer, the seconds the limits count in the process before asking it again."""

LimiterFactory = Callable[[str, int, float], Limiter]
"""Build a limiter from a name (one budget per name and key), a limit and its window in seconds."""


class RedisLimits:
    """A process's connection to the shared limits, and what it does while Redis is away."""

    def __init__(self, client: Redis, prefix: str, clock: Clock = time.monotonic) -> None:
        """Keep every bucket under ``prefix`` in ``client``'s database."""
        self.client, self.prefix, self.clock = client, prefix, clock
        self._bucket = client.register_script(BUCKET)
        self._down_until = 0.0
        self._away = False  # between a failure's warning and the answer that ends it
        self._lock = threading.Lock()

    def throttle(self, name: str, limit: int, window_s: float) -> SharedThrottle:
        """Return ``limit`` actions per ``window_s`` seconds for each key, shared under ``name``."""
        return SharedThrottle(self, name, limit, window_s)

    def bucket(self, key: str, rate: float, burst: int, take: bool) -> tuple[float, float] | None:
        """Run the bucket script on ``key``; return (wait, tokens spent), or None while Redis is away."""
        if self.clock() < self._down_until:
            return None
        try:
            wait, spent = self._bucket(keys=[self.prefix + key], args=[rate, burst, 1 if take else 0])
        except RedisError as exc:
            with self._lock:
                if not self._away:
                    log.warning("shared limits: Redis did not answer (%s: %s); counting in this process "
                                "until it does (asked again every %.0f s)", type(exc).__name__, exc, RETRY_S)
                self._away, self._down_until = True, self.clock() + RETRY_S
            return None
        if self._away:
            with self._lock:
                if self._away:
                    log.warning("shared limits: Redis answers again; counting there")
                self._away = False
        return float(wait), float(spent)


class SharedThrottle:
    """``limit`` actions per ``window_s`` seconds for each key, counted in Redis by every process."""

    def __init__(self, limits: RedisLimits, name: str, limit: int, window_s: float) -> None:
        """Count under ``name``; while Redis is away, in a bucket of this process with the same figures."""
        self.limits, self.name = limits, name
        self.rate, self.burst = limit / window_s, limit
        self.fallback = Throttle(limit, window_s, limits.clock)

    def _key(self, key: str) -> str:
        return f"{self.name}:{key}"

    def hit(self, key: str) -> float:
        """Count one action for ``key``; return 0 if allowed, else the seconds to wait (nothing is counted)."""
        answer = self.limits.bucket(self._key(key), self.rate, self.burst, take=True)
        if answer is None:
            return self.fallback.hit(key)
        return 0.0 if answer[0] == 0 else max(answer[0], 0.001)

    def blocked(self, key: str) -> float:
        """Return the seconds ``key`` must wait before its next action, without counting one."""
        answer = self.limits.bucket(self._key(key), self.rate, self.burst, take=False)
        return self.fallback.blocked(key) if answer is None else answer[0]

    def fresh(self, key: str) -> bool:
        """Return True when ``key`` has no action counted against it now (its bucket is full)."""
        answer = self.limits.bucket(self._key(key), self.rate, self.burst, take=False)
        return self.fallback.fresh(key) if answer is None else answer[1] <= 0


def limiters(redis_url: str | None, prefix: str) -> LimiterFactory:
    """Return how to build the process's limiters: shared through ``redis_url``, else in this process.

    The client gives up on Redis within half a second, so an unreachable Redis delays a request at
    most that long once every ``RETRY_S`` seconds.
    """
    if not redis_url:
        return lambda _name, limit, window_s: Throttle(limit, window_s)
    client = Redis.from_url(redis_url, socket_timeout=0.5, socket_connect_timeout=0.5)
    return RedisLimits(client, prefix).throttle
