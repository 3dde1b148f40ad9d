"""Test servers and command-line runs forked from a process that has already imported them.

A ``treset serve`` process spends about 1.1 s of CPU importing FastAPI, SQLAlchemy, Alembic and the server
before it serves anything, and a ``treset-agent`` one about 1 s importing numba and loading the search
kernels; the suite starts a few hundred of them. So each test process keeps one *forkserver*
(``python -m tests.forkserver``, started when the first one is asked for): it imports the server, the agent
(kernels loaded) and the ``treset`` commands, then forks a child per request. The child becomes
``python -m MODULE ARGS`` as the interpreter would make it: its own environment (read afresh, nothing was
configured before the fork), working directory, standard input, output and error (files), then the module
run as ``__main__`` by :func:`runpy.run_module`, as ``-m`` runs it, and the interpreter's exit steps (threads
joined, ``atexit``, streams flushed).

The test process sends signals to a child directly (its pid); the forkserver reaps the children and reports
each exit. The protocol is JSON lines: a request ``{"module", "argv", "env", "cwd", "stdin", "stdout",
"stderr"}`` on the forkserver's stdin is answered by ``{"pid"}`` on its stdout; ``{"exit": pid, "code": c}``
follows when that child ends (``c`` as :attr:`subprocess.Popen.returncode`: negative for a signal). When its
stdin closes (the test process ended) the forkserver terminates the children still running and exits.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import json
import locale
import os
import random
import runpy
import selectors
import signal
import subprocess
import sys
import tempfile
import threading
import traceback
from pathlib import Path
from typing import IO, Any

ROOT = Path(__file__).resolve().parents[1]


class ForkedProcess:
    """A process forked by the forkserver, with the part of :class:`subprocess.Popen` the tests use."""

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
            raise subprocess.TimeoutExpired(f"forked process {self.pid}", timeout or 0.0)
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
    """The test process's side: start the forkserver, ask it for processes."""

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

    def start(self, request: dict[str, Any]) -> ForkedProcess:
        """Fork a child for ``request`` (the module's protocol fields) and return it."""
        with self._lock, self._answer:
            self._stdin.write(json.dumps(request).encode() + b"\n")
            self._stdin.flush()
            if not self._answer.wait_for(lambda: bool(self._pids), 60):
                raise RuntimeError("the forkserver did not answer")
            pid = self._pids.pop(0)
        if pid < 0:
            raise RuntimeError("the forkserver exited")
        return ForkedProcess(pid, self._exits)


_server: list[ForkServer] = []


def fork_module(module: str, argv: list[str], env: dict[str, str], *, stdout: Path, stderr: Path | None = None,
                stdin: Path | None = None, cwd: Path = ROOT) -> ForkedProcess:
    """Start ``python -m MODULE ARGV`` with ``env`` in ``cwd`` through this process's forkserver (started once).

    Its output is appended to ``stdout`` (and ``stderr``, else the same file); it reads ``stdin`` (else
    nothing, as from ``/dev/null``).
    """
    if not _server:
        _server.append(ForkServer())
    return _server[0].start({"module": module, "argv": argv, "env": env, "cwd": str(cwd),
                             "stdin": str(stdin) if stdin else None, "stdout": str(stdout),
                             "stderr": str(stderr or stdout)})


def fork_server(argv: list[str], env: dict[str, str], log: Path) -> ForkedProcess:
    """Start ``python -m server.cli ARGV`` with ``env``, its output appended to ``log``."""
    return fork_module("server.cli", argv, env, stdout=log)


def run_module(module: str, argv: list[str], *, input: str = "", env: dict[str, str] | None = None,  # noqa: A002
               cwd: Path = ROOT, timeout: float = 120,
               check: bool = False) -> subprocess.CompletedProcess[str]:
    """Run ``python -m MODULE ARGV`` to its end as :func:`subprocess.run` with ``capture_output=True, text=True``
    would (``input`` on its stdin, ``env`` else this process's environment), forked instead of started."""
    with tempfile.TemporaryDirectory(prefix="treset-run-") as tmp:
        files = Path(tmp)
        (files / "in").write_text(input)
        proc = fork_module(module, argv, dict(os.environ if env is None else env), stdin=files / "in",
                           stdout=files / "out", stderr=files / "err", cwd=cwd)
        args = [sys.executable, "-m", module, *argv]
        try:
            code = proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
            raise subprocess.TimeoutExpired(args, timeout) from None
        done = subprocess.CompletedProcess(args, code, _read(files / "out"), _read(files / "err"))
    if check:
        done.check_returncode()
    return done


def _read(path: Path) -> str:
    return path.read_text() if path.exists() else ""


# ----- the forkserver itself ------------------------------------------------------------------------------------

def _text(fd: int, *, unbuffered: bool, errors: str) -> io.TextIOWrapper:
    """A text stream on ``fd`` as the interpreter opens its standard ones (buffered unless PYTHONUNBUFFERED)."""
    encoding = os.environ.get("PYTHONIOENCODING", "").partition(":")[0] or locale.getpreferredencoding(False)
    mode = "rb" if fd == 0 else "wb"
    raw = open(fd, mode, buffering=0 if unbuffered and fd else -1, closefd=False)  # noqa: SIM115
    return io.TextIOWrapper(raw, encoding=encoding, errors=errors, write_through=unbuffered,
                            line_buffering=fd == 2 and not unbuffered)


def _become(request: dict[str, Any]) -> int:
    """In the child: take the request's environment, directory and files, run the module; return the exit code."""
    for fd, path, flags in ((0, request["stdin"] or os.devnull, os.O_RDONLY),
                            (1, request["stdout"], os.O_WRONLY | os.O_CREAT | os.O_APPEND),
                            (2, request["stderr"], os.O_WRONLY | os.O_CREAT | os.O_APPEND)):
        opened = os.open(path, flags, 0o644)
        os.dup2(opened, fd)
        os.close(opened)
    os.environ.clear()
    os.environ.update(request["env"])
    os.chdir(request["cwd"])
    sys.path[0] = request["cwd"]  # as ``-m`` puts the working directory first
    unbuffered = bool(os.environ.get("PYTHONUNBUFFERED"))
    # New stream objects: the parent's could hold a lock taken at the fork, and its stdin is the request pipe.
    sys.stdin = _text(0, unbuffered=False, errors="strict")
    sys.stdout = _text(1, unbuffered=unbuffered, errors="strict")
    sys.stderr = _text(2, unbuffered=unbuffered, errors="backslashreplace")
    random.seed()  # not the parent's sequence
    # Run afresh as ``__main__``, as ``-m`` would find it: not the copy imported here (runpy warns about that).
    sys.modules.pop(request["module"], None)
    sys.argv = ["-m", *request["argv"]]  # runpy puts the module's file first, as ``-m`` does
    try:
        runpy.run_module(request["module"], run_name="__main__", alter_sys=True)
        code = 0
    except SystemExit as stop:
        if stop.code is None or isinstance(stop.code, int):
            code = stop.code or 0
        else:  # the interpreter prints any other exit value and exits with 1
            print(stop.code, file=sys.stderr)
            code = 1
    except BaseException:  # noqa: BLE001 - what `python -m` would print before exiting with 1
        traceback.print_exc()
        code = 1
    # The interpreter's exit: wait for the threads that are not daemons, run atexit, flush the streams.
    threading._shutdown()  # type: ignore[attr-defined]  # noqa: SLF001
    atexit._run_exitfuncs()  # noqa: SLF001
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    return code


def _code(status: int) -> int:
    return -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)


def serve() -> None:
    """Import the server and the agent, then fork one child per request on stdin until stdin closes."""
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

    import agent.cli  # noqa: F401
    import agent.decide
    import agent.serve  # noqa: F401
    import agent.service  # noqa: F401
    import server.api.app  # noqa: F401
    import server.cli  # noqa: F401
    import server.store.db  # noqa: F401
    import server.tools.bots  # noqa: F401
    import treset.cli  # noqa: F401

    agent.decide.warmup()  # the search kernels loaded from numba's cache (or compiled) once for every child
    for thread in threading.enumerate():  # the warm-up's cancelled timers: a thread at the fork would
        if thread is not threading.current_thread():  # be missing in every child
            thread.join(10)
    assert threading.active_count() == 1, threading.enumerate()

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
                os._exit(_become(request))
            children.add(pid)
            out.write(json.dumps({"pid": pid}).encode() + b"\n")
            out.flush()
            reap()  # a child that ended at once


if __name__ == "__main__":
    serve()
