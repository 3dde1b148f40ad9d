"""On time under load: how many games a bot process takes, and each move's budget when it is busy.

A decision searches until its deadline, so decisions in flight share the cores: with more
of them than cores each gets fewer iterations but still answers on time.  What makes
answers late is a queue: turns waiting for a free decision slot (in the server, past the
capacity the bot announced, or in the bot's own thread pool).  So the bot announces a
capacity well above its cores (:func:`default_capacity`: 12 per core), gives full budgets
while at most a third of it is in flight (:data:`FULL_PER_CORE` per core), and beyond that
shrinks each new decision's budget in proportion (:meth:`Pool.budget_ms`): the bot plays
weaker but on time, and shorter answers keep fewer decisions in flight, so turns do not
queue.  (Shrinking sooner, at the cores, was measured: it answers sooner but no stronger,
since the cores are shared either way.)  A decision that started late (its turn waited)
gets what is left of the level's time.
"""

from __future__ import annotations

import os
import threading

TABLES_PER_CORE = 12
"""Decisions a process takes at once per core (the default capacity): see docs/agent.md, "On time under load"."""
FULL_PER_CORE = 4
"""Decisions in flight per core that still get their level's full time."""
MIN_BUDGET_MS = 20
"""The least a decision gets, however loaded the pool (a move of the search's first chunks)."""
SHRUNK = 0.9
"""A decision counts as shrunk by the load when it gets less than this share of its full budget."""


def cores() -> int:
    """Return the cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def default_capacity(n_cores: int | None = None) -> int:
    """Return the games a bot process takes at once by default: :data:`TABLES_PER_CORE` per core."""
    return TABLES_PER_CORE * (cores() if n_cores is None else n_cores)


class Pool:
    """The decisions in flight in one process, and the budget a new one gets.

    Thread-safe: decisions start and end in the service's worker threads.
    """

    def __init__(self, n_cores: int | None = None, *, slots: int | None = None, shed: bool = True) -> None:
        """Track decisions on ``n_cores`` (default: this process's), ``slots`` of them at full budget
        (default :data:`FULL_PER_CORE` per core); ``shed=False`` keeps full budgets."""
        self.cores = cores() if n_cores is None else max(1, n_cores)
        self.slots = FULL_PER_CORE * self.cores if slots is None else max(1, slots)
        self.shed = shed
        self.in_flight = 0
        self.peak = 0
        self.shrunk = 0
        """Decisions that got less than :data:`SHRUNK` of their level's time because of the load."""
        self._lock = threading.Lock()

    def start(self, level_ms: int, cap_ms: int, waited_ms: float) -> int:
        """Count a decision as started and return its budget in ms (see :meth:`budget_ms`)."""
        with self._lock:
            self.in_flight += 1
            self.peak = max(self.peak, self.in_flight)
            budget = self.budget_ms(level_ms, cap_ms, waited_ms, self.in_flight)
            if budget < SHRUNK * min(level_ms, cap_ms):
                self.shrunk += 1
            return budget

    def end(self) -> None:
        """Count a decision as finished."""
        with self._lock:
            self.in_flight -= 1

    def budget_ms(self, level_ms: int, cap_ms: int, waited_ms: float, in_flight: int) -> int:
        """Return a decision's budget: the level's time, times slots / decisions in flight when that is
        below 1, no more than what is left of the level's time after ``waited_ms`` in a queue, nor than
        the server's cap ``cap_ms``; at least :data:`MIN_BUDGET_MS`.

        >>> Pool(2).budget_ms(1000, 5000, 0, 8), Pool(2).budget_ms(1000, 5000, 0, 16)
        (1000, 500)
        >>> Pool(2).budget_ms(1000, 5000, 700, 1), Pool(2, shed=False).budget_ms(1000, 5000, 700, 16)
        (300, 1000)
        """
        if not self.shed:
            return max(MIN_BUDGET_MS, min(level_ms, cap_ms))
        share = min(1.0, self.slots / max(1, in_flight))
        budget = min(level_ms * share, level_ms - waited_ms, cap_ms)
        return max(MIN_BUDGET_MS, int(budget))

    def figures(self) -> dict[str, int]:
        """Return the pool's load: decisions in flight, the peak, cores, full-budget slots, decisions shrunk."""
        return {"in_flight": self.in_flight, "peak": self.peak, "cores": self.cores, "slots": self.slots,
                "shrunk": self.shrunk}
