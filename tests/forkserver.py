"""Test servers forked from a process that has already imported the server.

A ``treset serve`` process spends about 1.1 s of CPU importing FastAPI, SQLAlchemy, Alembic and the server
before it serves anything; the suite starts well over a hundred of them. So each test process keeps one
*forkserver* (``python -m tests.forkserver``, started when the first test server is asked for): it imports
``server.cli`` and what a server imports, then forks a child per request. The child becomes the server as
``python -m server.cli ARGS`` would be: its own environment (read afresh, nothing was configured before the
fork), working directory, standard output and error (the log file), then ``server.cli.main(ARGS)``.

The test process sends signals to a child directly (its pid); the forkserver reaps the children and reports
each exit. The protocol is JSON lines: a request ``{"argv", "env", "cwd", "log"}`` on the forkserver's stdin
is answered by ``{"pid"}`` on its stdout; ``{"exit": pid, "code": c}`` follows when that child ends (``c`` as
:attr:`subprocess.Popen.returncode`: negative for a signal). When its stdin closes (the test process ended)
the forkserver terminates the children still running and exits.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import json
import os
import random
import selectors
import signal
import subprocess
import sys
import threading
import traceback
from pathlib import Path
from typing import IO, Any

ROOT = Path(__file__).resolve().parents[1]


class ForkedProcess:
    """A server forked by the forkserver, with the part of :class:`subprocess.Popen` the tests use."""

    def __init__(self, pid: int, exits: _Exits) -> None:
        self.pid = pid
        self._exits = exits

    @property
    def returncode(self) -> int | None:
        """Return the exit code once the process has ended (negative: killed by that signal), else None."""
        return self._exits.code(self.pid)

    def poll(self) -> int | None:
        """Return the exit code if the process has ended, else None."""
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        """Wait for the process to end; raise :class:`subprocess.TimeoutExpired` after ``timeout`` seconds."""
        code = self._exits.wait(self.pid, timeout)
        if code is None:
            raise subprocess.TimeoutExpired(f"forked server {self.pid}", timeout or 0.0)
        return code

    def send_signal(self, sig: int) -> None:
        """Send ``sig`` to the process (nothing once it has ended)."""
        if self.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, sig)

    def terminate(self) -> None:
        """Ask the process to stop (SIGTERM)."""
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        """Kill the process at once (SIGKILL)."""
        self.send_signal(signal.SIGKILL)


class _Exits:
    """The exit codes the forkserver reported, by pid."""

    def __init__(self) -> None:
        self._codes: dict[int, int] = {}
        self._changed = threading.Condition()

    def add(self, pid: int, code: int) -> None:
        with self._changed:
            self._codes[pid] = code
            self._changed.notify_all()

    def code(self, pid: int) -> int | None:
        with self._changed:
            return self._codes.get(pid)

    def wait(self, pid: int, timeout: float | None) -> int | None:
        with self._changed:
            self._changed.wait_for(lambda: pid in self._codes, timeout)
            return self._codes.get(pid)


class ForkServer:
    """The test process's side: start the forkserver, ask it for servers."""

    def __init__(self) -> None:
        self._proc = subprocess.Popen([sys.executable, "-m", "tests.forkserver"], cwd=ROOT, stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._stdin: IO[bytes] = self._proc.stdin
        self._exits = _Exits()
        self._pids: list[int] = []
        self._answer = threading.Condition()
        self._lock = threading.Lock()  # one request at a time: each answer is the next ``pid`` line
        threading.Thread(target=self._read, args=(self._proc.stdout,), daemon=True).start()

    def _read(self, out: IO[bytes]) -> None:
        for line in out:
            message = json.loads(line)
            if "exit" in message:
                self._exits.add(message["exit"], message["code"])
            else:
                with self._answer:
                    self._pids.append(message["pid"])
                    self._answer.notify_all()
        with self._answer:  # the forkserver is gone: wake a request waiting for its answer
            self._pids.append(-1)
            self._answer.notify_all()

    def start(self, argv: list[str], env: dict[str, str], log: Path) -> ForkedProcess:
        """Fork ``python -m server.cli ARGV`` with ``env``, its output appended to ``log``."""
        with self._lock, self._answer:
            self._stdin.write(json.dumps({"argv": argv, "env": env, "cwd": str(ROOT), "log": str(log)}).encode()
                              + b"\n")
            self._stdin.flush()
            if not self._answer.wait_for(lambda: bool(self._pids), 30):
                raise RuntimeError("the forkserver did not answer")
            pid = self._pids.pop(0)
        if pid < 0:
            raise RuntimeError("the forkserver exited")
        return ForkedProcess(pid, self._exits)


_server: list[ForkServer] = []


def fork_server(argv: list[str], env: dict[str, str], log: Path) -> ForkedProcess:
    """Start ``python -m server.cli ARGV`` with ``env`` through this process's forkserver (started once)."""
    if not _server:
        _server.append(ForkServer())
    return _server[0].start(argv, env, log)


# ----- the forkserver itself ------------------------------------------------------------------------------------

def _become_server(request: dict[str, Any]) -> int:
    """In the child: take the request's environment, directory and log, and run the server."""
    log = os.open(request["log"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.close(log)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    # New file objects: the parent's could hold a lock taken at the fork. Unbuffered, as PYTHONUNBUFFERED.
    sys.stdout = io.TextIOWrapper(open(1, "wb", buffering=0, closefd=False), write_through=True)  # noqa: SIM115
    sys.stderr = io.TextIOWrapper(open(2, "wb", buffering=0, closefd=False), write_through=True)  # noqa: SIM115
    os.environ.clear()
    os.environ.update(request["env"])
    os.chdir(request["cwd"])
    random.seed()  # not the parent's sequence
    sys.argv = [str(ROOT / "server" / "cli.py"), *request["argv"]]
    import server.cli

    try:
        return server.cli.main(request["argv"])
    except SystemExit as stop:
        return stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    except BaseException:  # noqa: BLE001 - what `python -m` would print before exiting with 1
        traceback.print_exc()
        return 1


def _code(status: int) -> int:
    return -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)


def serve() -> None:
    """Import the server, then fork one child per request on stdin until stdin closes."""
    import anyio.streams.memory  # noqa: F401
    import psycopg  # noqa: F401
    import sqlalchemy.dialects.postgresql.psycopg  # noqa: F401
    import sqlalchemy.dialects.sqlite.pysqlite  # noqa: F401
    import uvicorn  # noqa: F401 - imported before the fork, which is the point
    import uvicorn.lifespan.on  # noqa: F401
    import uvicorn.loops.auto  # noqa: F401
    import uvicorn.protocols.http.auto  # noqa: F401
    import uvicorn.protocols.websockets.auto  # noqa: F401
    import uvloop  # noqa: F401

    import server.api.app  # noqa: F401
    import server.cli  # noqa: F401
    import server.store.db  # noqa: F401

    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.signal(signal.SIGCHLD, lambda *_: None)  # a handler, so the wakeup fd hears of each exit
    signal.set_wakeup_fd(wake_w)
    out = sys.stdout.buffer
    children: set[int] = set()
    requests = sys.stdin.buffer
    sel = selectors.DefaultSelector()
    sel.register(requests, selectors.EVENT_READ)
    sel.register(wake_r, selectors.EVENT_READ)

    def reap() -> None:
        while children:
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                return
            children.discard(pid)
            out.write(json.dumps({"exit": pid, "code": _code(status)}).encode() + b"\n")
            out.flush()

    while True:
        for key, _ in sel.select():
            if key.fileobj == wake_r:
                with contextlib.suppress(BlockingIOError):
                    os.read(wake_r, 4096)
                reap()
                continue
            line = requests.readline()
            if not line:  # the test process is gone: so are its servers
                for pid in children:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGTERM)
                return
            request = json.loads(line)
            pid = os.fork()
            if pid == 0:
                signal.set_wakeup_fd(-1)
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                sel.close()
                os.close(wake_r)
                os.close(wake_w)
                code = _become_server(request)
                atexit._run_exitfuncs()  # as the interpreter does at a normal exit  # noqa: SLF001
                os._exit(code)
            children.add(pid)
            out.write(json.dumps({"pid": pid}).encode() + b"\n")
            out.flush()
            reap()  # a child that ended at once


if __name__ == "__main__":
    serve()
