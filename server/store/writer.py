"""The move writer: one thread with its own database connection, committing the game's writes in groups.

The game service awaits :meth:`MoveWriter.run` for each write (a move, a new game, a game's end)
and tells no one of a move before that returns. Writes that arrive while a commit is under way
wait in a queue; the thread then takes them all and commits them in one transaction (group
commit: one round of WAL flushing for many tables' moves). Writes are committed in the order they
were submitted, so one table's moves stay in order. If a group's transaction fails, each of its
writes is retried alone, so one bad write refuses only its own move. Plain row inserts
(:meth:`MoveWriter.insert`, a move) are sent as one multi-row ``INSERT`` per group.

**Fencing.** A write for a table carries the table's fencing token (:data:`server.game.records.Fence`).
Each group first checks every token it carries against ``table_fences`` and holds those rows (a
share lock) to its commit (on PostgreSQL, in the same statement as the group's moves); the writes
of a table whose token is stale are not made, and their waiters get
:class:`~server.game.records.FenceRefused`, while the rest of the group commits. A process paused
past its lease, whose tables another process took (and re-fenced), thus stores nothing more for
them, whatever it had queued.

The event loop never waits on the database: a commit under way does not stall other tables.
SQLite (the embedded default) works the same way; this thread is then the game's only writer.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast

from sqlalchemy import Table, insert
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import DeclarativeBase, Session

from server.game.records import Fence, FenceRefused
from server.metrics import Metrics
from server.store.fences import fences_held, insert_fenced

log = logging.getLogger("treset.writer")
T = TypeVar("T")
MAX_BATCH = 500
"""At most this many writes in one transaction."""


@dataclass(slots=True)
class _Job(Generic[T]):
    work: Callable[[Session], T] | None
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[T]
    model: type[DeclarativeBase] | None = None
    row: dict[str, Any] | None = None
    fence: Fence | None = None


def _settle(future: asyncio.Future[Any], result: Any, exc: BaseException | None) -> None:
    if future.done():  # the waiter was cancelled; the write itself stands
        return
    if exc is not None:
        future.set_exception(exc)
    else:
        future.set_result(result)


class MoveWriter:
    """A writer thread that commits submitted writes in groups (see the module's docstring).

    ``sessions`` makes the sessions the thread writes with (``expire_on_commit=False``, so the
    objects a write returns stay readable). A write is a function of a session that adds or
    changes rows and does nothing else: it may run twice (alone, after its group failed), so it
    must build its rows itself and have no effect outside the session.
    """

    def __init__(self, sessions: Callable[[], Session], *, max_batch: int = MAX_BATCH,
                 metrics: Metrics | None = None) -> None:
        """Create a stopped writer over ``sessions`` (its groups noted in ``metrics``); :meth:`start` starts it."""
        self.sessions = sessions
        self.metrics = metrics
        self.max_batch = max_batch
        self._queue: queue.SimpleQueue[_Job[Any] | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self.batches = 0
        self.writes = 0
        self.largest = 0
        self.failures = 0

    def start(self) -> None:
        """Start the writer thread (once)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name="move-writer", daemon=True)
            self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        """Commit what is queued, then stop the thread."""
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join(timeout)
            self._thread = None

    async def run(self, work: Callable[[Session], T], *, fence: Fence | None = None) -> T:
        """Commit ``work`` (with whatever else is queued) and return its result once it is durable.

        Raises whatever the database raised for it (the write is then not committed), and
        :class:`FenceRefused` if ``fence`` is not the table's stored token (``work`` does not run).
        """
        self.start()
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self._queue.put(_Job(work, loop, future, fence=fence))
        return await future

    async def insert(self, model: type[DeclarativeBase], row: dict[str, Any], *, fence: Fence | None = None) -> None:
        """Insert one ``model`` row (its columns in ``row``) and return once it is durable.

        The cheap path for the bulk of the writes (moves): a group's rows of one model go to
        the database as one multi-row ``INSERT``, in their order among the group's other writes.
        """
        self.start()
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        self._queue.put(_Job(None, loop, future, model, row, fence))
        await future

    def queued(self) -> int:
        """Return how many writes wait for the thread (approximately: it may be taking some now)."""
        return self._queue.qsize()

    def health(self) -> dict[str, Any]:
        """Return the writer's figures for ``/healthz``: groups committed, writes, the largest group."""
        return {"writer_batches": self.batches, "writer_writes": self.writes, "writer_largest_batch": self.largest,
                "writer_failures": self.failures}

    # ----- the thread --------------------------------------------------------------------

    def _loop(self) -> None:
        stopping = False
        while not stopping:
            job = self._queue.get()
            if job is None:
                return
            batch = [job]
            while len(batch) < self.max_batch:
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    stopping = True
                    break
                batch.append(more)
            self._commit(batch)

    def _commit(self, batch: list[_Job[Any]], *, again: bool = True) -> None:
        started = time.perf_counter()
        try:
            with self.sessions() as session:
                results = self._write(session, batch)
                session.commit()
        except Exception as exc:  # noqa: BLE001 - reported to the waiters, never lost
            if again and isinstance(exc, DBAPIError) and exc.connection_invalidated:
                # A connection the database dropped (a restart): the writer's pool does not ping before
                # use (server.store.db.writer_sessions), so the group goes once more, on a fresh one.
                log.warning("a group of %d writes lost its connection; trying it again", len(batch))
                self._commit(batch, again=False)
                return
            if len(batch) > 1:
                log.warning("a group of %d writes failed (%s); retrying each alone", len(batch), exc)
                for job in batch:
                    self._commit([job])
                return
            self.failures += 1
            if self.metrics is not None:
                self.metrics.writer_failures.inc()
            log.warning("a write failed: %s", exc)
            self._tell(batch[0], None, exc)
            return
        self.batches += 1
        self.writes += len(batch)
        self.largest = max(self.largest, len(batch))
        took = time.perf_counter() - started
        if self.metrics is not None:
            self.metrics.group_committed(len(batch), took)
        if took > 1.0:
            log.warning("a group of %d writes took %.1f s to commit", len(batch), took)
        for job, (result, refused) in zip(batch, results, strict=True):
            self._tell(job, result, refused)

    @staticmethod
    def _write(session: Session, batch: list[_Job[Any]]) -> list[tuple[Any, BaseException | None]]:
        """Run ``batch``'s writes in ``session``; return each job's result, or the refusal of a stale fence's.

        On PostgreSQL the fenced plain inserts (the moves) go first, with the check of every fence of the
        group, in one statement per model (:func:`~server.store.fences.insert_fenced`); the other writes
        follow in order. That reordering is safe: a table has one write in flight at a time (its lock is
        held until the write is durable), and were a group's order ever to matter, the failed group is
        retried write by write in the order submitted. Elsewhere plain inserts go together, as one
        multi-row ``INSERT``, before the next other write.
        """
        fences = {job.fence for job in batch if job.fence is not None}
        done: set[int] = set()
        held: set[Fence] | None = None
        if fences and session.get_bind().dialect.name == "postgresql":
            groups: dict[tuple[type[DeclarativeBase], tuple[str, ...]], list[int]] = {}
            for i, job in enumerate(batch):
                if job.work is None and job.fence is not None:
                    assert job.model is not None and job.row is not None
                    groups.setdefault((job.model, tuple(job.row)), []).append(i)
            for (model, _), indices in groups.items():
                rows = [(cast(Fence, batch[i].fence), cast(dict[str, Any], batch[i].row)) for i in indices]
                held = insert_fenced(session=session, table=cast(Table, model.__table__), rows=rows, fences=fences)
                done.update(indices)
        if held is None:
            held = fences_held(session=session, fences=fences) if fences else set()
        pending: dict[type[DeclarativeBase], list[dict[str, Any]]] = {}

        def flush() -> None:
            for model, rows in pending.items():
                session.execute(insert(cast(Table, model.__table__)), rows)  # Core: no ORM bookkeeping per row
            pending.clear()

        results: list[tuple[Any, BaseException | None]] = []
        for i, job in enumerate(batch):
            if job.fence is not None and job.fence not in held:
                results.append((None, FenceRefused(f"table {job.fence[0]}: token {job.fence[1]} is stale; "
                                                   "another process serves it")))
            elif i in done:
                results.append((None, None))
            elif job.work is None:
                assert job.model is not None and job.row is not None
                pending.setdefault(job.model, []).append(job.row)
                results.append((None, None))
            else:
                flush()
                results.append((job.work(session), None))
        flush()
        return results

    @staticmethod
    def _tell(job: _Job[Any], result: Any, exc: BaseException | None) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is closed (shutdown): nobody is waiting any more
            job.loop.call_soon_threadsafe(_settle, job.future, result, exc)
