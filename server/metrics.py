"""The process's event metrics (Prometheus): counters and histograms, declared once, updated where things happen.

Every metric of ``/metrics`` is named here or in :mod:`server.api.metrics` (the gauges read from
the game service at scrape time); docs/operations.md ("Metrics") describes each one. Each app has its
own :class:`Metrics` with its own registry, not the client library's global one, so several apps in
one process (tests) do not clash. Labels take few values: a variant, a bot level, a limit's name,
an error's code.

The move path calls :meth:`Metrics.move_stored` and :meth:`Metrics.move_told` once per card: a
cached child per variant (no label lookup) and one histogram observation each (a lock and a bucket
search): 5 µs for both on the busy 2-core machine, under 1% of a core at 1,650 moves/s.
"""

from __future__ import annotations

import asyncio

from prometheus_client import CollectorRegistry, Counter, Histogram, disable_created_metrics

# No ``*_created`` series: a third fewer lines per scrape, and nothing here reads them.
disable_created_metrics()  # type: ignore[no-untyped-call]

VARIANTS = ("tressette", "kifameno")
MOVE_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
"""A card's way through the server: a few ms with an idle database, group commits stretch it."""
BOT_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0, 15.0)
"""A bot thinks up to 5 s (``bot_turn.time_ms``); 15 s is when a turn is asked again."""
ANALYSIS_BUCKETS = (1.0, 5.0, 15.0, 30.0, 60.0, 120.0, 300.0, 600.0)
"""A deal's analysis: seconds to minutes; 600 s is ``TRESET_ANALYSIS_TIMEOUT_S``'s default."""
GROUP_BUCKETS = (1, 2, 5, 10, 20, 50, 100, 200, 500)
"""Writes per group commit; 500 is the writer's ``MAX_BATCH``."""
COMMIT_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)
LAG_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
"""How late the event loop ran a timer: under a ms when idle; every table waits behind a stall."""
LAG_EVERY_S = 0.1
"""How often the loop's lag is sampled: a stall of at least this long is always seen (10 timers a second)."""


class Metrics:
    """The event metrics of one app, in their own registry (``registry``), which ``/metrics`` exposes."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        """Declare every event metric in ``registry`` (a new one by default)."""
        self.registry = registry if registry is not None else CollectorRegistry()
        r = self.registry
        self.moves = Counter("treset_moves", "Cards committed to the database", ["variant"], registry=r)
        self._moves = {v: self.moves.labels(v) for v in VARIANTS}  # shown as 0 before the first card
        self.move_commit = Histogram(
            "treset_move_commit_seconds", "From a card received on a socket to its commit (durable)",
            buckets=MOVE_BUCKETS, registry=r)
        self.move_broadcast = Histogram(
            "treset_move_broadcast_seconds", "From a card received on a socket to its table told (every send done)",
            buckets=MOVE_BUCKETS, registry=r)
        self.writer_group = Histogram("treset_writer_group_size", "Writes committed in one group (transaction)",
                                      buckets=GROUP_BUCKETS, registry=r)
        self.writer_commit = Histogram("treset_writer_commit_seconds", "One group commit, from begin to commit",
                                       buckets=COMMIT_BUCKETS, registry=r)
        self.writer_failures = Counter("treset_writer_failures", "Writes the database refused (each alone)",
                                       registry=r)
        self.bot_answer = Histogram("treset_bot_answer_seconds", "From a bot turn sent to the bot's card received",
                                    ["level"], buckets=BOT_BUCKETS, registry=r)
        self.analysis = Histogram("treset_analysis_seconds", "From an analysis handed to a bot to its answer",
                                  buckets=ANALYSIS_BUCKETS, registry=r)
        self.signins_refused = Counter("treset_signins_refused", "Sign-ins, registrations and guest accounts "
                                       "refused by a throttle (429)", ["limit"], registry=r)
        for limit in ("account", "address", "guests"):
            self.signins_refused.labels(limit)
        self.errors = Counter("treset_errors_sent", "WebSocket error messages sent, by code", ["code"], registry=r)
        self.loop_lag = Histogram("treset_event_loop_lag_seconds", f"How late the event loop ran a timer due every "
                                  f"{LAG_EVERY_S} s (every table waits behind a stall)", buckets=LAG_BUCKETS, registry=r)

    def move_stored(self, variant: str, seconds: float) -> None:
        """Count a card committed ``seconds`` after it was received."""
        child = self._moves.get(variant)
        (child if child is not None else self.moves.labels(variant)).inc()
        self.move_commit.observe(seconds)

    def move_told(self, seconds: float) -> None:
        """Note that a card's table was told ``seconds`` after the card was received."""
        self.move_broadcast.observe(seconds)

    def group_committed(self, size: int, seconds: float) -> None:
        """Note a group commit of ``size`` writes that took ``seconds`` (called from the writer's thread)."""
        self.writer_group.observe(size)
        self.writer_commit.observe(seconds)

    async def watch_loop_lag(self, every_s: float = LAG_EVERY_S) -> None:
        """Sample the event loop's lag forever: sleep ``every_s``, observe how much later than that it woke.

        A background task of the app. Every message waits behind a callback that holds the loop, so
        a stall shows here whatever caused it (a collection, work that grows with the tables done at once).
        """
        loop = asyncio.get_running_loop()
        while True:
            due = loop.time() + every_s
            await asyncio.sleep(every_s)
            self.loop_lag.observe(max(0.0, loop.time() - due))

    def error_sent(self, code: str) -> None:
        """Count an ``error`` message with ``code`` sent to a client."""
        self.errors.labels(code).inc()
