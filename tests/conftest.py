"""Shared fixtures: a real PostgreSQL database and live server processes.

- ``pg_url``: a fresh, empty PostgreSQL database for one test (SQLAlchemy URL), on the server at
  ``TEST_DATABASE_URL``'s host or 127.0.0.1:5432 when one answers, else on a throwaway cluster
  started from the local PostgreSQL binaries (``initdb`` runs as ``postgres`` when we are root;
  ``TEST_PG_THROWAWAY=1`` forces the throwaway cluster). Every database made is dropped at the end.
- ``make_pg_db()`` (session fixture): the factory behind ``pg_url``, for tests needing several.
- ``pg_admin`` (session fixture): the admin conninfo (libpq string) of that PostgreSQL.
- ``sqlite_url``: a fresh SQLite file (the embedded default).
- ``start_server(db_url, port=None, **env)``: start ``treset serve`` (``python -m server.cli``) as a
  real process of its own on a free port (forked from a process that imported the server once:
  ``tests/forkserver.py``), migrated, with extra environment (e.g.
  ``TRESET_MOVE_TIMEOUT_S="1.5"``); returns a :class:`LiveServer` (``.url``, ``.ws_url``,
  ``.kill()`` for SIGKILL, ``.stop()``, ``.log()``); every server is stopped after the test.
- ``launch_server(db_url, tmp, port=None, **env)`` and ``free_port()``: the same, as plain functions.
- ``wait_for_bots(url, count, agent, log)``: wait until a server counts that many bots connected.
"""

from __future__ import annotations

import contextlib
import glob
import os
import random
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import psycopg
import pytest

from tests import local_http
from tests.forkserver import ForkedProcess, fork_server

ROOT = Path(__file__).resolve().parents[1]


PORTS_PER_WORKER = 3000
"""Each test process takes its ports from its own range (below the kernel's ephemeral ports, 32768 on)."""
_last_port: list[int] = []


def free_port() -> int:
    """Return a free TCP port on the loopback interface, from this test process's own range.

    Asking the kernel for any free port (bind to 0) races between the two workers of ``make test``: a
    port handed to one and released before its server binds it could be handed to the other, and a
    test would then talk to the other worker's server. Each worker (``PYTEST_XDIST_WORKER`` gw0, gw1,
    ...) counts through a range of its own instead, checking each port is free.
    """
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    index = int(worker[2:]) + 1 if worker[:2] == "gw" and worker[2:].isdigit() else 0
    low = 14000 + PORTS_PER_WORKER * (index % 6)
    if not _last_port:
        _last_port.append(low + random.randrange(PORTS_PER_WORKER))
    for _ in range(PORTS_PER_WORKER):
        port = low + (_last_port[0] + 1 - low) % PORTS_PER_WORKER
        _last_port[0] = port
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue  # taken (or lingering): the next one
            return port
    raise RuntimeError(f"no free port in {low}..{low + PORTS_PER_WORKER - 1}")


def _answers(conninfo: str) -> bool:
    try:
        with psycopg.connect(conninfo, connect_timeout=3):
            return True
    except psycopg.Error:
        return False


@contextlib.contextmanager
def _throwaway_cluster() -> Iterator[str]:
    """Start a private PostgreSQL cluster; yield its admin conninfo."""
    initdb = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb")) or [shutil.which("initdb") or ""]
    if not initdb[-1]:
        pytest.fail("no PostgreSQL reachable and no initdb binary to start one")
    bindir = Path(initdb[-1]).parent
    data = Path(tempfile.mkdtemp(prefix="treset-pg-"))
    port = free_port()
    as_pg = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    if as_pg:
        shutil.chown(data, "postgres", "postgres")
    subprocess.run([*as_pg, str(bindir / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres"],
                   check=True, capture_output=True)
    subprocess.run([*as_pg, str(bindir / "pg_ctl"), "-D", str(data), "-w", "-l", str(data / "log"), "-o",
                    f"-p {port} -k {data} -c listen_addresses=127.0.0.1", "start"], check=True, capture_output=True)
    try:
        yield f"host=127.0.0.1 port={port} user=postgres dbname=postgres"
    finally:
        subprocess.run([*as_pg, str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
                       capture_output=True)
        shutil.rmtree(data, ignore_errors=True)


@pytest.fixture(scope="session")
def pg_admin() -> Iterator[str]:
    """Yield an admin conninfo for a reachable PostgreSQL (local, configured or throwaway)."""
    if os.environ.get("TEST_PG_THROWAWAY") == "1":
        with _throwaway_cluster() as info:
            yield info
        return
    configured = os.environ.get("TEST_DATABASE_URL")
    if configured:
        info = psycopg.conninfo.make_conninfo(configured.replace("postgresql+psycopg://", "postgresql://"))
        if _answers(info):
            yield info
            return
    local = "host=127.0.0.1 port=5432 user=postgres dbname=postgres"
    if _answers(local):
        yield local
        return
    with _throwaway_cluster() as info:
        yield info


@pytest.fixture(scope="session")
def make_pg_db(pg_admin: str) -> Iterator[Callable[[], str]]:
    """Return a factory of fresh databases (SQLAlchemy URLs), all dropped at the end."""
    made: list[str] = []

    def make() -> str:
        name = f"treset_test_{uuid.uuid4().hex[:10]}"
        with psycopg.connect(pg_admin, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        made.append(name)
        params = psycopg.conninfo.conninfo_to_dict(pg_admin)
        return (f"postgresql+psycopg://{params.get('user', 'postgres')}@{params.get('host', '127.0.0.1')}:"
                f"{params.get('port', 5432)}/{name}")

    yield make
    with psycopg.connect(pg_admin, autocommit=True) as conn:
        for name in made:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def pg_url(make_pg_db: Callable[[], str]) -> str:
    """Return a fresh, empty PostgreSQL database URL."""
    return make_pg_db()


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    """Return a fresh SQLite database URL (the embedded default)."""
    return f"sqlite:///{tmp_path / 'treset.sqlite3'}"


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    """Yield the URL of an empty Redis: a throwaway ``redis-server``, else ``TEST_REDIS_URL`` or the local one.

    A throwaway server keeps tests apart; a shared one has database 15 flushed before and after.
    """
    binary = shutil.which("redis-server")
    if binary:
        port = free_port()
        proc = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly",
                                 "no", "--dir", str(tmp_path)], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        url = f"redis://127.0.0.1:{port}/0"
        deadline = time.time() + 10
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                break
            assert proc.poll() is None and time.time() < deadline, "redis-server did not start"
            time.sleep(0.05)
        yield url
        proc.terminate()
        proc.wait(10)
        return
    url = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/15")
    import redis

    client = redis.Redis.from_url(url)
    client.flushdb()
    yield url
    client.flushdb()
    client.close()


@dataclass
class LiveServer:
    """A ``treset serve`` process (forked by :mod:`tests.forkserver`)."""

    proc: ForkedProcess
    port: int
    db_url: str
    log_path: Path

    @property
    def url(self) -> str:
        """Return the HTTP base URL."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        """Return the WebSocket URL (without the token)."""
        return f"ws://127.0.0.1:{self.port}/ws"

    def kill(self) -> None:
        """Kill the process at once (SIGKILL), as a crash would."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        """Stop the process cleanly (SIGTERM)."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()

    def log(self) -> str:
        """Return what the server printed."""
        return self.log_path.read_text(errors="replace")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Put the modules with the most tests marked ``slow`` first, each module's tests kept together in order.

    ``make test`` hands whole modules to its workers (``--dist loadfile``: a module's browser or virtualenv
    is made once), in this order, as they become free: a long module taken last would leave the other workers
    idle at the end while it runs.
    """
    slow = Counter(item.path for item in items if item.get_closest_marker("slow"))
    items.sort(key=lambda item: -slow[item.path])


TEST_LIMITS = {"TRESET_GUESTS_PER_ADDRESS": "100000", "TRESET_AUTH_PER_ADDRESS": "100000"}
"""Every test client comes from 127.0.0.1: per-address limits are lifted unless a test sets them."""


def launch_server(db_url: str, tmp: Path, port: int | None = None, **env: str) -> LiveServer:
    """Start a migrated server on ``db_url`` and wait until ``/healthz`` answers."""
    port = port or free_port()
    log_path = tmp / f"server-{port}-{time.time_ns()}.log"
    full_env = {**os.environ, "DATABASE_URL": db_url, "PYTHONUNBUFFERED": "1", **TEST_LIMITS, **env}
    proc = fork_server(["--port", str(port)], full_env, log_path)
    server = LiveServer(proc, port, db_url, log_path)
    deadline = time.time() + 60
    while time.time() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"the server exited: {server.log()[-3000:]}")
        with contextlib.suppress(httpx.HTTPError):
            if local_http.get(f"{server.url}/healthz", timeout=2).status_code == 200:
                return server
        time.sleep(0.2)
    server.kill()
    pytest.fail(f"the server did not start: {server.log()[-3000:]}")


def wait_for_bots(url: str, count: int, agent: ForkedProcess, log: Path, timeout: float = 90) -> None:
    """Wait until the server at ``url`` counts ``count`` bots connected; fail with ``log`` if ``agent`` exits."""
    deadline = time.time() + timeout
    while local_http.get(f"{url}/healthz").json()["bots_connected"] < count:
        assert agent.poll() is None, log.read_text()
        assert time.time() < deadline, f"the agent did not connect: {log.read_text()[-3000:]}"
        time.sleep(0.3)


@pytest.fixture
def start_server(tmp_path: Path) -> Iterator[Callable[..., LiveServer]]:
    """Return a function that starts live servers; all are stopped after the test."""
    started: list[LiveServer] = []

    def start(db_url: str, port: int | None = None, **env: str) -> LiveServer:
        server = launch_server(db_url, tmp_path, port, **env)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()
