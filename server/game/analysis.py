"""Post-game analyses: the queue of finished games handed to bots with free analysis slots.

A game's analysis is one ``analyses`` row (``queued`` → ``running`` → ``done``/``failed``); a
re-run replaces it. Bots announce how many analyses a connection runs at once (``bot_hello``'s
``analysis``); each gets at most that many ``analyse`` jobs, apart from its play capacity. A
connection that drops gives its jobs back to the front of the queue, a job a bot holds longer
than the timeout goes back too, and after a restart the queued and running rows are queued again.
Without an analysis-capable bot, jobs wait.
"""

from __future__ import annotations

import asyncio
import logging
import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from server.metrics import Metrics
from server.protocol import Analyse, AnalysisReport, out
from server.store.analyses import accuracies, bot_games, game_record, move_rows, queue_position
from server.store.models import Analysis, Game, Move, MoveAnalysis
from server.store.puzzle_log import store_from_analysis

log = logging.getLogger("treset.analysis")
MAX_ATTEMPTS = 3
"""A job whose bot vanished (or timed out) this many times fails: it may be what kills the bots."""


class Worker(Protocol):
    """What the queue needs of a bot connection (``server.game.connection.Connection``)."""

    analysis: int
    closed: bool

    async def send(self, msg: dict[str, Any]) -> None:
        """Send a message to the bot."""


@dataclass(eq=False)
class Job:
    """An analysis handed to one bot connection."""

    id: str
    game_id: int
    worker: Worker
    started: float


def version_key(version: str | None) -> tuple[tuple[int, str], ...]:
    """Return a sort key for an agent version: its numbers compare as numbers.

    >>> version_key("1.10") > version_key("1.9")
    True
    """
    return tuple((int(p), "") if p.isdigit() else (-1, p) for p in re.findall(r"\d+|[A-Za-z]+", version or ""))


RETRY_S = 2.0
"""How often answers and jobs the database could not take are tried again."""


class AnalysisQueue:
    """The analyses waiting for and running on bots, for one server process (the game service owns it)."""

    def __init__(self, sessions: Callable[[], Session], *, timeout_s: float = 600.0,
                 metrics: Metrics | None = None) -> None:
        """Create an empty queue persisting through ``sessions``; a job held ``timeout_s`` goes back."""
        self.sessions = sessions
        self.timeout_s = timeout_s
        self.metrics = metrics
        self.waiting: list[int] = []
        """The queued games this process hands out, in order: games with a person first, then bot games."""
        self.bot_games: set[int] = set()
        """Those of ``waiting`` played by two bots (asked for by someone): they wait behind every person's game."""
        self.queued_at: dict[int, float] = {}
        """When each waiting job was queued (``time.time``): the queue's oldest age (metrics)."""
        self.jobs: dict[str, Job] = {}
        self.workers: list[Worker] = []
        self.latest_version: str | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.job_prefix = ""
        """Starts every job id: with several processes (``server.game.cluster``), the process's own id."""
        self.unstored: list[tuple[int, AnalysisReport]] = []
        """Answers the database could not take (it was away): stored by a later tick."""
        self._retry_at = 0.0
        self.unqueued: list[tuple[int, str]] = []
        """Jobs taken back that the database could not mark queued again: retried by a later tick."""

    # ----- the bots ----------------------------------------------------------------------

    def live_workers(self) -> list[Worker]:
        """Return the connected bots that run analyses."""
        return [w for w in self.workers if not w.closed and w.analysis > 0]

    def load(self, worker: Worker) -> int:
        """Return how many analyses ``worker`` is running."""
        return sum(1 for j in self.jobs.values() if j.worker is worker)

    async def hello(self, worker: Worker) -> None:
        """Take note of a bot's ``bot_hello`` (its ``analysis`` slots) and give it waiting jobs."""
        if worker.analysis > 0 and worker not in self.workers:
            self.workers.append(worker)
        await self.dispatch()

    async def connection_lost(self, worker: Worker) -> None:
        """Give a vanished bot's jobs back to the front of the queue (another bot takes them)."""
        if worker in self.workers:
            self.workers.remove(worker)
        await self._take_back([j for j in self.jobs.values() if j.worker is worker],
                              "the bot analysing it disconnected")

    async def _take_back(self, jobs: list[Job], why: str) -> None:
        """Take ``jobs`` from their bots, queue them again (first) and hand out what can be."""
        if not jobs:
            return
        for j in jobs:
            del self.jobs[j.id]
        await self._requeue([j.game_id for j in jobs], why)
        await self.dispatch()

    async def _requeue(self, game_ids: list[int], why: str) -> None:
        try:
            back = await asyncio.to_thread(self._requeue_rows, game_ids, why)
        except Exception as exc:  # noqa: BLE001 - the database is away: a later tick queues them again
            log.warning("analyses %s could not be queued again yet: %s", game_ids, str(exc).splitlines()[0])
            self.unqueued += [(g, why) for g in game_ids]
            return
        log.info("analyses back in the queue (%s): %s", why, back)
        self.waiting[:0] = [g for g in back if g not in self.waiting]  # taken back: first in line again
        self._note_queued(back)

    def _requeue_rows(self, game_ids: list[int], why: str) -> list[int]:
        """Store running analyses as queued again (failed past MAX_ATTEMPTS); return those queued."""
        with self.sessions() as session:
            back = []
            for game_id in game_ids:
                row = session.get(Analysis, game_id)
                if row is None or row.status != "running":
                    continue
                if row.attempts >= MAX_ATTEMPTS:
                    row.status, row.error, row.finished_at = "failed", f"{why} {row.attempts} times", _now()
                else:
                    row.status = "queued"
                    back.append(game_id)
            session.commit()
        return back

    # ----- requests ----------------------------------------------------------------------

    async def request(self, game_id: int, *, force: bool = False) -> bool:
        """Queue ``game_id``'s analysis unless it is queued, running, or done by the latest version known.

        ``force`` re-runs a done analysis anyway. Returns True if the game was (re)queued. The caller
        has checked that the game exists and is finished.
        """
        queued = await asyncio.to_thread(self._mark_queued, game_id, force=force)
        if queued is None:
            return False
        self._enqueue(game_id, bots_only=queued)
        self.kick()
        return True

    def _enqueue(self, game_id: int, *, bots_only: bool) -> None:
        """Add ``game_id`` to the waiting games: a person's game before every bot game, each kind in arrival order."""
        if game_id in self.waiting:
            return
        self._note_queued([game_id])
        if bots_only:
            self.bot_games.add(game_id)
            self.waiting.append(game_id)
            return
        first_bot = next((i for i, g in enumerate(self.waiting) if g in self.bot_games), len(self.waiting))
        self.waiting.insert(first_bot, game_id)

    def _mark_queued(self, game_id: int, *, force: bool) -> bool | None:
        """Store ``game_id``'s analysis as queued (see :meth:`request`); return None if it needs none, else
        whether two bots played it."""
        with self.sessions() as session:
            row = session.get(Analysis, game_id)
            if row is not None and row.status in ("queued", "running"):
                return None
            if row is not None and row.status == "done" and not force and not self.outdated(row.version):
                return None
            if row is None:
                row = Analysis(game_id=game_id)
                session.add(row)
            # A re-run keeps the older result (and its per-move rows) until the new one replaces it.
            row.status, row.error, row.attempts, row.requested_at = "queued", None, 0, _now()
            row.started_at = row.finished_at = None
            session.commit()
            return game_id in bot_games(session, [game_id])

    @staticmethod
    def wanted(*, bots_only: bool, moves: int) -> bool:
        """Return True if a deal that just ended is analysed by itself.

        Deals between two bots (series of hundreds) and deals without a card played are not;
        anyone allowed may still ask for them.
        """
        return not bots_only and moves > 0

    def deal_ended(self, game_id: int) -> None:
        """Take up a deal whose end was stored with its analysis queued (the store writes both together).

        Only deals with a person are analysed by themselves (:meth:`wanted`): they go before bot games.
        """
        self._enqueue(game_id, bots_only=False)
        self.kick()

    def _note_queued(self, game_ids: list[int]) -> None:
        """Note when ``game_ids`` joined the queue (now); kept while they wait."""
        self.queued_at.update({g: time.time() for g in game_ids if g not in self.queued_at})

    def oldest_age(self) -> float:
        """Return how long the oldest waiting job has waited, in seconds (0 with none)."""
        now = time.time()
        return max(0.0, now - min((self.queued_at.get(g, now) for g in self.waiting), default=now))

    def outdated(self, version: str | None) -> bool:
        """Return True if ``version`` is older than the newest analysis version seen."""
        return self.latest_version is not None and version_key(version) < version_key(self.latest_version)

    def kick(self) -> None:
        """Schedule a dispatch (from code that cannot await)."""
        try:
            task = asyncio.get_running_loop().create_task(self.dispatch())
        except RuntimeError:  # no loop (a script): the next dispatch picks the job up
            return
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # ----- handing jobs out and taking answers -------------------------------------------

    async def dispatch(self) -> None:
        """Hand waiting jobs to bots with free analysis slots, least loaded first, oldest job first."""
        while self.waiting:
            free = [w for w in self.live_workers() if self.load(w) < w.analysis]
            if not free:
                return
            worker = min(free, key=self.load)
            game_id = self.waiting.pop(0)
            self.bot_games.discard(game_id)
            job = Job(self.job_prefix + secrets.token_hex(8), game_id, worker, time.monotonic())
            self.jobs[job.id] = job  # holds the bot's slot while the record is read (off the event loop)
            try:
                record = await asyncio.to_thread(self._start, game_id)
            except Exception as exc:  # noqa: BLE001 - the database is away: the job waits at the front
                log.warning("analysis of game %s could not start: %s", game_id, str(exc).splitlines()[0])
                self.jobs.pop(job.id, None)
                self.waiting.insert(0, game_id)
                return
            self.queued_at.pop(game_id, None)
            if self.jobs.get(job.id) is not job:  # the bot left meanwhile: the job goes back
                if record is not None:
                    await self._requeue([game_id], "the bot left as it was handed the job")
                continue
            if record is None:  # no longer queued (done, or taken by another process)
                del self.jobs[job.id]
                continue
            await worker.send(out(Analyse(job=job.id, game_id=game_id, record=record)))

    def _start(self, game_id: int) -> dict[str, Any] | None:
        """Mark a queued job running and return its game record (None if it is no longer queued)."""
        with self.sessions() as session:
            row = session.get(Analysis, game_id)
            game = session.get(Game, game_id)
            if row is None or row.status != "queued" or game is None:
                return None
            moves = list(session.scalars(select(Move).where(Move.game_id == game_id).order_by(Move.move_number)))
            row.status, row.started_at, row.attempts = "running", _now(), row.attempts + 1
            session.commit()
            return game_record(game, moves)

    async def report(self, worker: Worker, msg: AnalysisReport) -> None:
        """Store a bot's answer; one for a job it does not hold (stale, reassigned, unknown) is ignored."""
        job = self.jobs.get(msg.job)
        if job is None or job.worker is not worker or job.game_id != msg.game_id:
            log.info("ignored a stale analysis answer (job %s, game %s)", msg.job, msg.game_id)
            return
        del self.jobs[job.id]
        if self.metrics is not None:
            self.metrics.analysis.observe(time.monotonic() - job.started)
        await self._keep(job.game_id, msg)
        await self.dispatch()

    async def _keep(self, game_id: int, msg: AnalysisReport) -> bool:
        """Store an answer; one the database refuses waits in ``unstored`` for a later tick. True if stored."""
        try:
            version = await asyncio.to_thread(self._store, game_id, msg)
        except Exception as exc:  # noqa: BLE001 - the database is away: the answer is kept, not lost
            log.warning("the analysis of game %s waits to be stored: %s", game_id, str(exc).splitlines()[0])
            self.unstored.append((game_id, msg))
            return False
        if version is not None and (self.latest_version is None
                                    or version_key(version) > version_key(self.latest_version)):
            self.latest_version = version
        return True

    def _store(self, game_id: int, msg: AnalysisReport) -> str | None:
        """Store an answer (the analysis and its per-move rows, or the failure); return the version stored."""
        with self.sessions() as session:
            row = session.get(Analysis, game_id)
            if row is None:
                return None
            error = msg.error
            rows: list[MoveAnalysis] = []
            if error is None and msg.analysis is not None:
                moves = list(session.scalars(select(Move).where(Move.game_id == game_id)
                                             .order_by(Move.move_number)))
                try:
                    rows = move_rows(game_id, msg.analysis, moves)
                except ValueError as exc:
                    error = f"malformed analysis: {exc}"
            version = None
            if error is not None:
                row.status, row.error, row.finished_at = "failed", error[:500], _now()
                log.warning("analysis of game %s failed: %s", game_id, error)
            else:
                assert msg.analysis is not None
                version = (msg.version or str(msg.analysis.get("version") or ""))[:64]
                session.execute(delete(MoveAnalysis).where(MoveAnalysis.game_id == game_id))
                session.add_all(rows)
                row.status, row.version, row.result, row.error = "done", version, msg.analysis, None
                row.accuracy0, row.accuracy1, row.accuracy2, row.accuracy3 = accuracies(msg.analysis)
                row.finished_at = _now()
                store_from_analysis(session=session, game_id=game_id, result=msg.analysis, moves=moves)
            session.commit()
        return version

    async def tick(self) -> None:
        """Give back jobs held longer than the timeout (a stuck bot keeps its connection but not the job)."""
        now = time.monotonic()
        await self._take_back([j for j in self.jobs.values() if now - j.started > self.timeout_s],
                              "the bot took too long")
        if (self.unstored or self.unqueued) and now < self._retry_at:
            return
        self._retry_at = now + RETRY_S
        if self.unstored:  # answers that came while the database was away
            answers, self.unstored = self.unstored, []
            for i, (game_id, msg) in enumerate(answers):
                if not await self._keep(game_id, msg):
                    self.unstored += answers[i + 1:]
                    break
        if self.unqueued:
            jobs, self.unqueued = self.unqueued, []
            for why in dict.fromkeys(w for _, w in jobs):
                await self._requeue([g for g, w in jobs if w == why], why)
            await self.dispatch()

    # ----- restart and status ------------------------------------------------------------

    def restore(self, *, running: bool = True) -> int:
        """Queue again the analyses left queued (and ``running``) by the last process; return how many.

        ``running`` False: other processes of the portal are alive and may be running some.
        """
        statuses = ("queued", "running") if running else ("queued",)
        with self.sessions() as session:
            rows = list(session.scalars(select(Analysis).where(Analysis.status.in_(statuses))
                                        .order_by(Analysis.requested_at, Analysis.game_id)))
            for row in rows:
                row.status = "queued"
            versions = session.scalars(select(Analysis.version).where(Analysis.status == "done").distinct())
            self.latest_version = max((v for v in versions if v), key=version_key, default=None)
            session.commit()
            self.bot_games = bot_games(session, [r.game_id for r in rows])
        self.waiting = sorted((r.game_id for r in rows), key=lambda g: g in self.bot_games)  # stable: in time order
        self.queued_at = {r.game_id: r.requested_at.timestamp() if r.requested_at else time.time() for r in rows}
        return len(rows)

    def status(self, session: Session, game_id: int) -> tuple[int, dict[str, Any]]:
        """Return the HTTP status and body for ``GET /api/games/{id}/analysis`` (the game exists, finished)."""
        row = session.get(Analysis, game_id)
        bots = len(self.live_workers())
        if row is None:
            return 200, {"status": "none", "bots": bots}
        if row.status == "queued":
            return 202, {"status": "queued", "position": queue_position(session, game_id), "bots": bots}
        if row.status == "running":
            return 202, {"status": "running", "position": 0, "bots": bots}
        if row.status == "failed":
            return 200, {"status": "failed", "error": row.error, "bots": bots}
        return 200, {**(row.result or {}), "status": "done", "version": row.version, "game_id": game_id,
                     "outdated": self.outdated(row.version)}

    def health(self) -> dict[str, Any]:
        """Return the queue's figures for ``/healthz``."""
        return {"analysis_bots": len(self.live_workers()), "analysis_waiting": len(self.waiting),
                "analysis_running": len(self.jobs), "analysis_unstored": len(self.unstored) + len(self.unqueued)}


def _now() -> datetime:
    return datetime.now(UTC)
