"""``python -m server.tools.idleload`` (or ``loadtest idle``): N idle clients sitting in the lobby of one server.

Each client signs in (``{"type":"auth","token"}``), must get ``welcome`` then ``lobby``, and then
only reads what the server sends (the lobby as it changes), for ``--hold`` seconds, while the
server's keepalive pings come and go. Connects run ``--concurrency`` at a time. Once everyone is
in, one client opens a public table (the probe) and the tool times how long until every client
has a lobby listing it: the lobby's fan-out to N sockets. Prints (JSON) how many clients got in,
the failures (by reason: no welcome/lobby, an error message, a socket closed by the server), the
time to connect them all, and, with ``--server-pid`` or ``--serve``, the server's RSS
(``/proc/PID/status`` VmRSS) before the clients, after them, and per client, and its CPU time
while they connected, while they sat, and for the probe's one lobby to everyone.

Accounts: with ``--database-url`` they are written straight into the server's database (no HTTP,
no per-address limit); otherwise each client asks ``POST /api/auth/guest``, which needs
``TRESET_GUESTS_PER_ADDRESS`` raised above N on the server. ``--serve`` starts the server itself
(``python -m server.cli`` on ``--database-url``, migrated, on a free port) and stops it at the end.
Many sockets need many descriptors: the tool raises its RLIMIT_NOFILE to the hard limit (a server
it starts inherits it; one started by hand needs ``ulimit -n`` or ``prlimit``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import resource
import secrets
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import insert
from sqlalchemy.orm import Session
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from server.store import repos
from server.store.db import make_engine
from server.store.models import AuthToken, User

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Client:
    """One idle client: what it received and how it ended."""

    index: int
    token: str
    username: str = ""
    ws: ClientConnection | None = None
    welcome: bool = False
    lobby: bool = False
    lobbies: int = 0
    online_seen: int = 0
    connect_s: float = 0.0
    probe_at: float | None = None
    """When a lobby listing the probe's table arrived (perf_counter)."""
    failure: str | None = None


@dataclass
class Run:
    """The clients, and what the run is waiting for."""

    clients: list[Client]
    probe_name: str = ""
    """The username whose table is the probe; empty until the probe is sent."""
    stopping: bool = False
    signed_in: int = 0
    """Clients whose sign-in is over (in or failed)."""
    errors: dict[str, int] = field(default_factory=dict)


# ----- descriptors, memory ----------------------------------------------------------------


def raise_nofile() -> int:
    """Raise this process's soft RLIMIT_NOFILE to its hard limit; return the soft limit in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        target = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def proc_status_kb(pid: int, key: str) -> int | None:
    """Return a ``/proc/PID/status`` figure in kB (e.g. ``VmRSS``, ``VmHWM``), or None if unreadable."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def cpu_seconds(pid: int | None) -> float | None:
    """Return the CPU time (user + system) process ``pid`` has used so far, or None."""
    if not pid:
        return None
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def _spent(before: float | None, after: float | None) -> float | None:
    return round(after - before, 2) if before is not None and after is not None else None


def fd_limit(pid: int) -> int | None:
    """Return the soft open-files limit of process ``pid`` (``/proc/PID/limits``), or None."""
    try:
        for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
            if line.startswith("Max open files"):
                return int(line.split()[3])
    except (OSError, ValueError, IndexError):
        return None
    return None


# ----- accounts ---------------------------------------------------------------------------


def make_accounts(db_url: str, count: int) -> list[tuple[str, str]]:
    """Write ``count`` guest accounts with a session token each into ``db_url``; return (username, token)."""
    run_id = secrets.token_hex(3)
    names = [f"idle-{run_id}-{i:05d}" for i in range(count)]
    tokens = [secrets.token_urlsafe(32) for _ in range(count)]
    engine = make_engine(db_url)
    try:
        with Session(engine) as session:
            for start in range(0, count, 2000):
                chunk = names[start:start + 2000]
                rows = session.execute(insert(User).returning(User.id, User.username),
                                       [{"username": n, "password_hash": None, "role": "guest"} for n in chunk])
                ids = {name: uid for uid, name in rows}
                session.execute(insert(AuthToken), [
                    {"token_hash": repos.hash_token(tokens[start + j]), "user_id": ids[n], "kind": "session"}
                    for j, n in enumerate(chunk)])
            session.commit()
    finally:
        engine.dispose()
    return list(zip(names, tokens, strict=True))


async def guest_accounts(url: str, count: int, concurrency: int) -> list[tuple[str, str]]:
    """Ask the server for ``count`` guest accounts (``POST /api/auth/guest``); return (username, token)."""
    gate = asyncio.Semaphore(concurrency)

    async def one(http: httpx.AsyncClient) -> tuple[str, str]:
        async with gate:
            r = await http.post(f"{url}/api/auth/guest")
            r.raise_for_status()
            body = r.json()
            return str(body["user"]["username"]), str(body["token"])

    async with httpx.AsyncClient(timeout=120, limits=httpx.Limits(max_connections=concurrency)) as http:
        return list(await asyncio.gather(*(one(http) for _ in range(count))))


# ----- the clients ------------------------------------------------------------------------


async def _client(c: Client, run: Run, ws_url: str, gate: asyncio.Semaphore, timeout: float,
                  compression: bool) -> None:
    """Sign ``c`` in (``--concurrency`` at a time), then read all the server sends it until the run stops.

    Reading starts as soon as a client is in: a client that stopped reading would stop answering
    the server's keepalive pings, and be closed for it.
    """
    async with gate:
        start = time.perf_counter()
        try:
            c.ws = await connect(ws_url, open_timeout=timeout, ping_interval=None, close_timeout=5,
                                 max_size=2**22, compression="deflate" if compression else None)
            await c.ws.send(json.dumps({"type": "auth", "token": c.token}))
            async with asyncio.timeout(timeout):
                while not (c.welcome and c.lobby) and c.failure is None:
                    _take(c, json.loads(await c.ws.recv()), run)
        except TimeoutError:
            c.failure = "no welcome+lobby in time" if c.ws else "connect timeout"
        except ConnectionClosed as exc:
            c.failure = f"closed while signing in: {exc.rcvd.code if exc.rcvd else 'no close frame'}"
        except (OSError, ValueError) as exc:  # refused, reset, too many open files, a bad handshake
            c.failure = f"connect: {type(exc).__name__}: {str(exc)[:80]}"
        c.connect_s = time.perf_counter() - start
        run.signed_in += 1
    if c.ws is None or c.failure is not None:
        return
    try:
        async for raw in c.ws:
            _take(c, json.loads(raw), run)
    except ConnectionClosed:
        pass
    if not run.stopping and c.failure is None:
        rcvd = c.ws.protocol.close_rcvd
        c.failure = (f"closed by the server: {rcvd.code} {rcvd.reason}".strip() if rcvd
                     else "connection lost (no close frame)")


def _take(c: Client, msg: dict[str, Any], run: Run) -> None:
    """Account for one message to ``c``."""
    kind = msg.get("type")
    if kind == "welcome":
        c.welcome = True
        c.username = str(msg.get("user", {}).get("username", ""))
    elif kind == "lobby":
        if not c.welcome:
            c.failure = "lobby before welcome"
        c.lobby = True
        c.lobbies += 1
        c.online_seen = int(msg.get("online", 0))
        if (run.probe_name and c.probe_at is None
                and any(run.probe_name in (t.get("players") or []) for t in msg.get("tables", []))):
            c.probe_at = time.perf_counter()
    elif kind == "error":
        code = str(msg.get("code"))
        run.errors[code] = run.errors.get(code, 0) + 1
        if code == "auth_failed":
            c.failure = "auth_failed"


async def _wait(pred: Callable[[], bool], timeout: float) -> float | None:
    """Wait until ``pred()`` holds; return the seconds it took, or None past ``timeout``."""
    start = time.perf_counter()
    while not pred():
        if time.perf_counter() - start > timeout:
            return None
        await asyncio.sleep(0.1)
    return time.perf_counter() - start


def _rss(pid: int | None) -> int | None:
    return proc_status_kb(pid, "VmRSS") if pid else None


async def run(url: str, accounts: list[tuple[str, str]], *, hold_s: float = 30.0, concurrency: int = 200,
              server_pid: int | None = None, probe: bool = True, timeout: float = 60.0,
              compression: bool = True) -> dict[str, Any]:
    """Connect one idle client per account, hold them ``hold_s`` seconds, close them; return the figures."""
    ws_url = url.replace("http", "ws", 1).rstrip("/") + "/ws"
    n = len(accounts)
    clients = [Client(i, token) for i, (_, token) in enumerate(accounts)]
    r = Run(clients)
    rss_before = _rss(server_pid)
    cpu_start = cpu_seconds(server_pid)
    gate = asyncio.Semaphore(concurrency)
    start = time.perf_counter()
    tasks = [asyncio.create_task(_client(c, r, ws_url, gate, timeout, compression)) for c in clients]
    while r.signed_in < n:
        await asyncio.sleep(0.05)
    connect_s = time.perf_counter() - start
    cpu_connected = cpu_seconds(server_pid)
    live = [c for c in clients if c.ws is not None and c.failure is None]
    held_from = time.perf_counter()
    peak = rss_before or 0

    async def sample() -> None:
        nonlocal peak
        while True:
            peak = max(peak, _rss(server_pid) or 0)
            await asyncio.sleep(0.5)

    sampler = asyncio.create_task(sample())
    # Everyone online: every client is told (by a coalesced lobby) that at least n are online.
    settle_s = await _wait(lambda: all(c.online_seen >= len(live) or c.failure for c in live), max(timeout, hold_s))
    probe_s = cpu_probe = None
    if probe and live:
        prober = live[0]
        assert prober.ws is not None
        r.probe_name = prober.username
        sent, cpu_sent = time.perf_counter(), cpu_seconds(server_pid)
        await prober.ws.send(json.dumps({"type": "create_table", "variant": "tressette", "opponent": "anyone"}))
        if await _wait(lambda: all(c.probe_at is not None or c.failure for c in live), max(timeout, hold_s)) is not None:
            probe_s = max((c.probe_at - sent for c in live if c.probe_at is not None), default=0.0)
            cpu_probe = _spent(cpu_sent, cpu_seconds(server_pid))
    await asyncio.sleep(max(0.0, hold_s - (time.perf_counter() - held_from)))
    held_s = time.perf_counter() - held_from
    rss_after = _rss(server_pid)
    cpu_held = cpu_seconds(server_pid)
    sampler.cancel()
    r.stopping = True

    # Close everyone, a bounded number at a time (each close is a handshake with the server).
    async def close(c: Client) -> None:
        async with gate:
            if c.ws is not None:
                with contextlib.suppress(Exception):
                    await c.ws.close()

    await asyncio.gather(*(close(c) for c in clients))
    await asyncio.gather(*tasks, return_exceptions=True)
    released = None
    if server_pid:
        await asyncio.sleep(2)  # the server forgets the connections
        released = _rss(server_pid)
    failures: dict[str, int] = {}
    for c in clients:
        if c.failure:
            failures[c.failure] = failures.get(c.failure, 0) + 1
    good = [c for c in clients if c.failure is None and c.welcome and c.lobby]
    times = sorted(c.connect_s for c in clients if c.ws is not None)
    lobbies = [c.lobbies for c in live]
    per_client = (round((rss_after - rss_before) * 1024 / len(good)) if rss_after and rss_before and good else None)
    return {
        "clients": n,
        "connected": len(good),
        "failures": sum(failures.values()),
        "failure_reasons": failures,
        "error_messages": r.errors,
        "connect_seconds": round(connect_s, 2),
        "connects_per_s": round(n / connect_s, 1) if connect_s else None,
        "connect_ms_p50": round(1000 * statistics.median(times), 1) if times else None,
        "connect_ms_p99": round(1000 * times[int(0.99 * (len(times) - 1))], 1) if times else None,
        "connect_ms_max": round(1000 * times[-1], 1) if times else None,
        "held_seconds": round(held_s, 1),
        "lobby_settle_seconds": round(settle_s, 2) if settle_s is not None else None,
        "probe_fanout_seconds": round(probe_s, 2) if probe_s is not None else None,
        "lobbies_per_client_mean": round(statistics.mean(lobbies), 1) if lobbies else None,
        "lobbies_per_client_max": max(lobbies) if lobbies else None,
        "server_cpu_seconds_connecting": _spent(cpu_start, cpu_connected),
        "server_cpu_seconds_held": _spent(cpu_connected, cpu_held),
        "server_cpu_seconds_probe": cpu_probe,
        "server_pid": server_pid,
        "server_fd_limit": fd_limit(server_pid) if server_pid else None,
        "server_rss_kb_before": rss_before,
        "server_rss_kb_after": rss_after,
        "server_rss_kb_peak_sampled": peak or None,
        "server_rss_kb_after_close": released,
        "bytes_per_client": per_client,
        "tool_rss_kb": proc_status_kb(os.getpid(), "VmRSS"),
        "ok": len(good) == n,
    }


# ----- a server of its own ----------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(db_url: str, clients: int, log_path: Path) -> tuple[subprocess.Popen[bytes], str]:
    """Start ``python -m server.cli`` on ``db_url`` (migrated, a free port); return it and its URL once it answers."""
    port = _free_port()
    limit = str(max(100_000, 2 * clients))
    env = {**os.environ, "DATABASE_URL": db_url, "PYTHONUNBUFFERED": "1",
           "TRESET_GUESTS_PER_ADDRESS": limit, "TRESET_AUTH_PER_ADDRESS": limit}
    with open(log_path, "wb") as log:  # the child inherits the raised RLIMIT_NOFILE
        proc = subprocess.Popen([sys.executable, "-m", "server.cli", "--port", str(port)], cwd=ROOT, env=env,
                                stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 120
    while time.time() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the server exited; see {log_path}")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                return proc, url
        time.sleep(0.2)
    proc.kill()
    raise SystemExit(f"the server did not start; see {log_path}")


def main(argv: list[str] | None = None) -> int:
    """Run the idle test and print its figures (JSON); exit 1 unless every client got in and stayed."""
    parser = argparse.ArgumentParser(prog="python -m server.tools.idleload", description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000", help="a running server (local)")
    parser.add_argument("--clients", type=int, default=1000)
    parser.add_argument("--hold", type=float, default=30.0, help="seconds the clients stay once all are in")
    parser.add_argument("--concurrency", type=int, default=200, help="connects under way at once")
    parser.add_argument("--timeout", type=float, default=60.0, help="a client's limit for welcome + lobby")
    parser.add_argument("--server-pid", type=int, help="the server's process, to read its RSS")
    parser.add_argument("--database-url", help="the server's database: accounts are written there directly")
    parser.add_argument("--serve", action="store_true", help="start a server on --database-url (and stop it)")
    parser.add_argument("--server-log", default="idleload-server.log", help="where --serve's server writes")
    parser.add_argument("--no-probe", action="store_true", help="open no table to time the lobby's fan-out")
    parser.add_argument("--no-compression", action="store_true", help="clients offer no permessage-deflate")
    args = parser.parse_args(argv)
    if args.serve and not args.database_url:
        parser.error("--serve needs --database-url")
    nofile = raise_nofile()
    if nofile < args.clients + 64:
        print(f"warning: RLIMIT_NOFILE is {nofile}, too few for {args.clients} sockets", file=sys.stderr)
    proc = None
    url, pid = args.url.rstrip("/"), args.server_pid
    try:
        if args.serve:
            proc, url = start_server(args.database_url, args.clients, Path(args.server_log))
            pid = proc.pid
        made = time.perf_counter()
        if args.database_url:
            accounts = make_accounts(args.database_url, args.clients)
        else:
            accounts = asyncio.run(guest_accounts(url, args.clients, 50))
        accounts_s = time.perf_counter() - made
        figures = asyncio.run(run(url, accounts, hold_s=args.hold, concurrency=args.concurrency, server_pid=pid,
                                  probe=not args.no_probe, timeout=args.timeout,
                                  compression=not args.no_compression))
        figures["accounts_seconds"] = round(accounts_s, 1)
    finally:
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
    print(json.dumps(figures, indent=2))
    return 0 if figures["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
