"""The bot as its own process, playing the seats the server assigns it (run by ``treset-agent serve``, :mod:`agent.serve`).

A thin transport in the lichess-bot manner: connect to the server's WebSocket
with a bot token, announce the levels and capacity, answer every ``bot_turn``
with a card chosen by :mod:`agent.levels`, reconnect with back-off when the
connection drops, and on SIGTERM finish the decisions in flight and leave (the
server hands any later turn to another bot).  The bot keeps no game state:
each ``bot_turn`` carries the full agent state.

It also analyses finished deals (``analyse`` → ``analysis``, :mod:`agent.analysis`)
when the hello offers ``analysis`` > 0: in worker processes at the lowest OS
priority, never in the decision threads, so an analysis cannot delay a move
(``treset-agent bench analysis load`` measures it).  ``--analyse-only`` makes a
process that only analyses.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import multiprocessing
import os
import random
import signal
import sys
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, NotRequired, TypedDict
from urllib.parse import urlsplit, urlunsplit

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

from agent.levels import LEVELS, choose_card, level_info
from agent.load import Pool
from agent.partnership_turn import answer_partnership_turn
from tressette import InvalidStateError, card_name, parse_state

log = logging.getLogger("treset.agent.service")

AUTH_FAILED = 4401
"""Close code the server uses for a bad token: retrying cannot help."""
ANSWERS_KEPT = 64
"""Finished analyses kept to answer a re-sent job again without running it twice."""


class BotTurn(TypedDict):
    """The server's request for a card (docs/protocol.md, "Bots")."""

    type: str
    table_id: str
    turn: int
    level: str
    time_ms: int
    state: dict[str, Any]
    game: NotRequired[str]
    """``"partnership"`` for a four-player seat's turn (docs/protocol-four.md); absent at two-player tables."""


class AnalyseJob(TypedDict):
    """The server's request for a deal's analysis (docs/protocol.md, "Bots")."""

    type: str
    job: str
    game_id: int
    record: dict[str, Any]


Chooser = Callable[[dict[str, Any], str, int], str]
"""Turn a raw agent state, a level name and a time cap (ms) into a card name."""

Analyser = Callable[[dict[str, Any]], dict[str, Any]]
"""Turn a deal record into its analysis, raising ValueError for an invalid record.  It runs in the
analysis executor: with the default worker processes it must be a module-level function."""


def analyse_record(record: dict[str, Any]) -> dict[str, Any]:
    """Return the analysis of a deal record at the default settings (:func:`agent.analysis.analyse`; a
    four-player deal's, ``"game": "partnership"``: :func:`agent.partnership.analysis.analyse`)."""
    from agent.analysis import analyse
    from agent.partnership import analysis as four

    return four.analyse(record) if four.is_four(record) else analyse(record)


def warm_analysis() -> None:
    """Compile (or load) the analysis's kernels: a short analysis of a fixed deal's first and last moves."""
    from agent.analysis import analyse
    from tressette import Deal, Variant, card_name

    deal = Deal.new(Variant.TRESSETTE, 0, random.Random(0))
    moves = []
    while not deal.is_over:
        card = deal.legal_moves()[0]
        moves.append({"seat": deal.to_move, "card": card_name(card)})
        deal.play(card)
    record = {"variant": "tressette", "deck": [card_name(c) for c in deal.deck], "first_leader": 0}
    analyse({**record, "moves": moves[:1]}, iterations=16)
    analyse({**record, "moves": moves}, iterations=16)
    from agent.partnership.solver import warmup

    warmup()  # the four-player analysis's solver


WARMED = False
"""True in an analysis worker once its kernels are compiled (or loaded): it warmed before its first job."""


def _low_priority_worker(service_pid: int, warm: bool = True) -> None:
    """Start an analysis worker at the lowest OS priority, so it only gets CPU the moves leave idle, and
    (``warm``) compile its kernels before it takes a job.

    Each worker warms itself: a warm-up submitted as a job reaches one worker only, and the first job
    of another one spent 9-14 s compiling. The worker also ends with the service: a pool's idle
    workers outlive a killed parent (SIGKILL, a crash, ``treset up`` restarting the agent) and would
    pile up, one set per restart.
    """
    os.nice(19)
    if sys.platform.startswith("linux"):
        import ctypes

        pr_set_pdeathsig = 1  # <linux/prctl.h>: signal this process when its parent thread ends
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM)
    if os.getppid() != service_pid:  # the service died before the line above: nobody would signal us
        os._exit(0)
    if warm:
        global WARMED
        warm_analysis()
        WARMED = True


def worker_state() -> tuple[int, bool]:
    """Return this analysis worker's process id and whether it warmed (a job, to start and check workers)."""
    return os.getpid(), WARMED


def analysis_pool(workers: int, *, warm: bool = True) -> ProcessPoolExecutor:
    """Return a pool of ``workers`` analysis processes at the lowest OS priority (each warms itself first).

    Spawned rather than forked: the service's process runs threads (decisions, the event
    loop), which a fork must not copy mid-flight.  A spawned worker imports the main module
    again, so the program's entry point must sit under ``if __name__ == "__main__"`` (the
    ``treset-agent`` script's does).
    """
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                               initializer=_low_priority_worker, initargs=(os.getpid(), warm))


def choose_from_message(raw_state: dict[str, Any], level: str, time_ms: int) -> str:
    """Validate the state with the rules package and pick a card at ``level``."""
    state = parse_state(raw_state)
    return card_name(choose_card(state, level, time_cap_ms=time_ms))


def websocket_url(server: str) -> str:
    """Return the ``/ws`` URL for ``server`` (http(s):// or ws(s)://); the token goes in the first message."""
    parts = urlsplit(server if "://" in server else f"http://{server}")
    scheme = {"http": "ws", "https": "wss"}.get(parts.scheme, parts.scheme)
    path = parts.path.rstrip("/")
    if not path.endswith("/ws"):
        path += "/ws"
    return urlunsplit((scheme, parts.netloc, path, "", ""))


class BotService:
    """One connection's worth of bot: levels, capacity and the decision threads, and the analysis workers."""

    def __init__(
        self,
        *,
        server: str,
        token: str,
        levels: list[str],
        capacity: int,
        chooser: Chooser = choose_from_message,
        max_backoff_s: float = 30.0,
        analysis: int = 0,
        analyser: Analyser = analyse_record,
        analysis_executor: Executor | None = None,
        pool: Pool | None = None,
        partnership_levels: list[dict[str, Any]] | None = None,
    ) -> None:
        """Prepare a service for ``server``; nothing connects until :meth:`run`.

        ``analysis``: how many analyses run at once (0: none), in ``analysis_executor``
        (default: :func:`analysis_pool`, started at the first job or by :meth:`run`).
        ``pool``: the decisions in flight and their budgets under load (default: this machine's
        cores, budgets shrunk when overloaded; :mod:`agent.load`). ``partnership_levels``: the four-player
        levels to announce (``bot_hello``; ``treset-agent serve`` gives :data:`~agent.partnership_turn.PARTNERSHIP_LEVELS`);
        none: no four-player turns.
        """
        self.url = websocket_url(server)
        self.token = token
        self.levels = levels
        self.capacity = capacity
        self.chooser = chooser
        self.max_backoff_s = max_backoff_s
        self.analysis = analysis
        self.analyser = analyser
        self.pool = pool or Pool()
        self.partnership_levels = partnership_levels or []
        self.stop = asyncio.Event()
        self.turns_answered = 0
        self.analyses_answered = 0
        self._executor = ThreadPoolExecutor(max_workers=max(1, capacity), thread_name_prefix="decide")
        self._in_flight: dict[tuple[str, int], asyncio.Task[None]] = {}
        self._analysis_executor = analysis_executor
        self._jobs: dict[str, asyncio.Task[None]] = {}
        self._answers: OrderedDict[str, str] = OrderedDict()
        self._ws: ClientConnection | None = None
        self._jobs_sending: set[asyncio.Task[None]] = set()

    async def run(self) -> int:
        """Serve until :attr:`stop` is set; return a process exit status."""
        delay = 0.5
        if self.analysis > 0 and self._analysis_executor is None:
            # Start every worker now: each compiles its kernels (at its low priority) before any job. A pool
            # starts a worker per job submitted while none is idle, so one small job each starts them all.
            executor = self._analyses()
            for _ in range(self.analysis):
                executor.submit(worker_state)
        try:
            while not self.stop.is_set():
                try:
                    async with connect(self.url, open_timeout=10, max_size=2**20) as ws:
                        log.info("connected to %s", self.url)
                        delay = 0.5
                        await self._serve(ws)
                except InvalidStatus as exc:
                    if exc.response.status_code in (401, 403):
                        log.error("the server refused the bot token (HTTP %s)", exc.response.status_code)
                        return 2
                    log.warning("connection refused: %s", exc)
                except ConnectionClosed as exc:
                    if exc.rcvd is not None and exc.rcvd.code == AUTH_FAILED:
                        log.error("the server refused the bot token: %s", exc.rcvd.reason)
                        return 2
                    log.warning("connection closed: %s", exc)
                except (OSError, InvalidHandshake, TimeoutError) as exc:
                    log.warning("cannot reach the server: %s", exc)
                if self.stop.is_set():
                    break
                wait = delay * (0.5 + random.random())
                log.info("reconnecting in %.1f s", wait)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.stop.wait(), timeout=wait)
                delay = min(delay * 2, self.max_backoff_s)
            return 0
        finally:
            self._executor.shutdown(wait=True, cancel_futures=True)
            if self._analysis_executor is not None:
                self._stop_analyses(self._analysis_executor)

    def _analyses(self) -> Executor:
        if self._analysis_executor is None:
            self._analysis_executor = analysis_pool(self.analysis)
        return self._analysis_executor

    def _stop_analyses(self, executor: Executor) -> None:
        """Drop ``executor``'s analyses under way (the server re-sends them to a worker that stays) and stop it."""
        if self._analysis_executor is executor:
            self._analysis_executor = None  # the next job starts a new pool
        if isinstance(executor, ProcessPoolExecutor):
            # The pool has no public way to stop a running task; these are our own child processes.
            for process in list(getattr(executor, "_processes", {}).values()):
                process.terminate()
        executor.shutdown(wait=True, cancel_futures=True)

    async def _serve(self, ws: ClientConnection) -> None:
        await ws.send(json.dumps({"type": "auth", "token": self.token}))  # first, before anything else
        hello: dict[str, Any] = {"type": "bot_hello", "levels": self.levels, "level_info": level_info(self.levels),
                                 "capacity": self.capacity, "analysis": self.analysis}
        if self.capacity > 0 and self.partnership_levels:
            hello["partnership_levels"] = self.partnership_levels
        await ws.send(json.dumps(hello))
        self._ws = ws
        stop_wait = asyncio.ensure_future(self.stop.wait())
        try:
            while True:
                recv = asyncio.ensure_future(ws.recv())
                done, _ = await asyncio.wait({recv, stop_wait}, return_when=asyncio.FIRST_COMPLETED)
                if recv not in done:
                    recv.cancel()
                    break
                self._dispatch(ws, recv.result())
            # Shutting down: answer what we are already thinking about, then leave.
            if self._in_flight:
                await asyncio.wait(list(self._in_flight.values()), timeout=5)
            await ws.close()
        finally:
            self._ws = None
            stop_wait.cancel()

    def _dispatch(self, ws: ClientConnection, raw: str | bytes) -> None:
        try:
            msg = json.loads(raw)
            kind = msg.get("type")
        except (ValueError, AttributeError):
            log.warning("unreadable message from the server: %.200r", raw)
            return
        if kind == "bot_turn" and self.capacity < 1:
            log.warning("ignoring a bot_turn: this process only analyses")
        elif kind == "bot_turn":
            key = (str(msg.get("table_id")), int(msg.get("turn", -1)))
            log.debug("turn %s at %s", key[1], key[0])
            if key not in self._in_flight:  # the server may re-send a pending turn
                task = asyncio.create_task(self._answer(ws, msg))
                self._in_flight[key] = task
                task.add_done_callback(self._forget)
        elif kind == "analyse":
            self._take_job(msg)
        elif kind == "error":
            log.warning("server error %s: %s", msg.get("code"), msg.get("message"))
        elif kind == "welcome":
            log.info("signed in as %s", (msg.get("user") or {}).get("username"))

    def _take_job(self, msg: dict[str, Any]) -> None:
        job = msg.get("job")
        if not isinstance(job, str) or self.analysis < 1:
            log.warning("ignoring an analyse message (job %r, analyses offered: %d)", job, self.analysis)
            return
        if job in self._jobs:  # re-sent while under way: it is answered once done
            return
        if job in self._answers:  # re-sent after the answer went out (maybe on a lost connection)
            self._send_soon(self._answers[job])
            return
        task = asyncio.create_task(self._analyse(msg))  # type: ignore[arg-type]
        self._jobs[job] = task
        task.add_done_callback(lambda _: self._jobs.pop(job, None))

    async def _analyse(self, job: AnalyseJob) -> None:
        from agent.analysis import RecordError, parse_record, version
        from agent.partnership import analysis as four

        answer: dict[str, Any] = {"type": "analysis", "job": job["job"], "game_id": job.get("game_id"),
                                  "version": version()}
        loop = asyncio.get_running_loop()
        log.info("analysing game %s (job %s)", job.get("game_id"), job["job"])
        executor = self._analyses()
        try:
            record = job.get("record")
            (four.parse_record if four.is_four(record) else parse_record)(record)  # cheap: a bad one is not queued
            result = await loop.run_in_executor(executor, self.analyser, job.get("record"))
            answer["version"] = result.get("version", answer["version"])
            answer["analysis"] = result
        except RecordError as exc:
            answer["error"] = str(exc).splitlines()[0] if str(exc) else "invalid record"
        except BrokenProcessPool:
            log.error("the analysis worker died (job %s); starting a new one", job["job"])
            self._stop_analyses(executor)
            answer["error"] = "the analysis worker died"
        except Exception as exc:  # a bug must show in the log and still answer the job
            log.exception("failed to analyse job %s", job["job"])
            answer["error"] = f"analysis failed: {type(exc).__name__}"
        text = json.dumps(answer)
        self._answers[job["job"]] = text
        while len(self._answers) > ANSWERS_KEPT:
            self._answers.popitem(last=False)
        self.analyses_answered += 1
        await self._send(text)

    def _send_soon(self, text: str) -> None:
        task = asyncio.create_task(self._send(text))
        self._jobs_sending.add(task)
        task.add_done_callback(self._jobs_sending.discard)

    async def _send(self, text: str) -> None:
        """Send on the current connection; when there is none the server re-sends the job later."""
        if self._ws is None:
            return
        with contextlib.suppress(ConnectionClosed):
            await self._ws.send(text)

    def _forget(self, task: asyncio.Task[None]) -> None:
        for key, t in list(self._in_flight.items()):
            if t is task:
                del self._in_flight[key]

    async def _answer_partnership(self, ws: ClientConnection, turn: BotTurn) -> None:
        """Answer a four-player turn at its level, within its budget shrunk under load as two-player turns'."""
        loop = asyncio.get_running_loop()
        try:
            fields = await loop.run_in_executor(self._executor, answer_partnership_turn, turn, self.pool,
                                                time.perf_counter())
        except (InvalidStateError, KeyError, ValueError) as exc:
            log.error("cannot answer turn %s at %s: %s", turn.get("turn"), turn.get("table_id"), exc)
            return
        with contextlib.suppress(ConnectionClosed):
            await ws.send(json.dumps({"type": "play", "table_id": turn["table_id"], "turn": turn["turn"], **fields}))
            self.turns_answered += 1

    async def _answer(self, ws: ClientConnection, turn: BotTurn) -> None:
        if turn.get("game") == "partnership":
            await self._answer_partnership(ws, turn)
            return
        level = turn.get("level") or self.levels[-1]
        level_ms = LEVELS[level].time_ms if level in LEVELS else 1000
        time_ms = int(turn.get("time_ms") or level_ms)
        loop = asyncio.get_running_loop()
        arrived = time.perf_counter()

        def think() -> str:
            # The budget is set when a thread takes the turn: the load then, and the time it waited.
            budget = self.pool.start(level_ms, time_ms, (time.perf_counter() - arrived) * 1000)
            try:
                return self.chooser(turn["state"], level, budget)
            finally:
                self.pool.end()

        try:
            card = await loop.run_in_executor(self._executor, think)
        except (InvalidStateError, KeyError) as exc:
            log.error("cannot answer turn %s at %s: %s", turn.get("turn"), turn.get("table_id"), exc)
            return
        except Exception:  # a bug must show in the log, not silently stall the table
            log.exception("failed to decide turn %s at %s", turn.get("turn"), turn.get("table_id"))
            return
        log.debug("answer %s at %s: %s", turn.get("turn"), turn.get("table_id"), card)
        with contextlib.suppress(ConnectionClosed):
            await ws.send(json.dumps(
                {"type": "play", "table_id": turn["table_id"], "card": card, "turn": turn["turn"]}
            ))
            self.turns_answered += 1
