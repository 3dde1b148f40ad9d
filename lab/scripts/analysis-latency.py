#!/usr/bin/env python3
"""Time a bot's answers through the server with and without post-game analyses running (issue #21).

Starts a server on a fresh PostgreSQL database and one ``treset-agent serve``; a scripted person
plays ``--games`` deals against the bot at ``--level``, first with the agent's analysis slots off,
then again with ``--analysis`` slots busy on queued games (two scripted guests fill the queue
first). Each answer is timed from the table message that hands the bot its turn to the one with
its card. Prints the median, 90th percentile and maximum of each phase, and how many analyses
finished meanwhile.

    python scripts/analysis-latency.py --level normal --games 3 --fill 6
"""

from __future__ import annotations

import argparse
import contextlib
import os
import socket
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import psycopg

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.server.client import Client, guest_token, is_table, open_pair, play_until_over  # noqa: E402

TOKEN = "latency-bot-token-0123456789"


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def _database(admin: str) -> Iterator[str]:
    name = f"treset_latency_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    params = psycopg.conninfo.conninfo_to_dict(admin)
    try:
        yield f"postgresql+psycopg://{params.get('user', 'postgres')}@{params.get('host', '127.0.0.1')}:" \
              f"{params.get('port', 5432)}/{name}"
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _wait(url: str, key: str, at_least: int) -> None:
    end = time.time() + 120
    while time.time() < end:
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{url}/healthz", timeout=2).json().get(key, 0) >= at_least:
                return
        time.sleep(0.3)
    raise SystemExit(f"{key} never reached {at_least}")


def _agent(url: str, analysis: int, log: Path) -> subprocess.Popen[bytes]:
    with open(log, "ab") as out:
        return subprocess.Popen([sys.executable, "-m", "agent.cli", "serve", "--server", url,
                                 "--capacity", "2", "--analysis", str(analysis)], cwd=ROOT, stdout=out,
                                stderr=subprocess.STDOUT, env={**os.environ, "TRESET_BOT_TOKEN": TOKEN})


def _play_bot(url: str, ws: str, level: str) -> list[float]:
    """Play one deal against the bot; return its answer times in seconds."""
    human = Client(ws, guest_token(url)[0])
    human.send({"type": "create_table", "variant": "tressette", "opponent": "bot", "bot_level": level})
    answers: list[float] = []
    asked: float | None = None
    end = time.time() + 300
    try:
        while time.time() < end:
            m = human.recv(timeout=60)
            if not is_table(m):
                continue
            event = m.get("event") or {}
            table = m["table"]
            if asked is not None and event.get("kind") in ("play", "trick") and event.get("seat") == 1:
                answers.append(time.monotonic() - asked)
                asked = None
            if table["status"] == "finished" and event.get("kind") == "end":
                human.send({"type": "leave_table", "table_id": table["id"]})
                return answers
            view = table["view"]
            if view and table["status"] == "playing" and view["to_move"] == 1 and asked is None:
                asked = time.monotonic()
            if view and table["status"] == "playing" and view["to_move"] == 0 and event.get("kind") in (
                    "start", "play", "trick"):
                human.send({"type": "play", "table_id": table["id"], "card": view["legal"][0]})
    finally:
        human.close()
    raise SystemExit("a bot game did not finish")


def _summary(name: str, times: list[float]) -> str:
    ordered = sorted(times)
    p90 = ordered[int(0.9 * (len(ordered) - 1))]
    return (f"{name}: {len(times)} answers, median {statistics.median(times) * 1000:.0f} ms, "
            f"p90 {p90 * 1000:.0f} ms, max {ordered[-1] * 1000:.0f} ms")


def main() -> int:
    """Run both phases and print their answer times."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pg", default="host=127.0.0.1 port=5432 user=postgres dbname=postgres",
                    help="admin conninfo of a PostgreSQL server (a throwaway database is made there)")
    ap.add_argument("--level", default="normal")
    ap.add_argument("--games", type=int, default=3, help="bot games per phase")
    ap.add_argument("--fill", type=int, default=6, help="games queued for analysis before the second phase")
    ap.add_argument("--analysis", type=int, default=1, help="the agent's analysis slots in the second phase")
    args = ap.parse_args()
    logs = ROOT / "test-artifacts"
    logs.mkdir(exist_ok=True)
    with _database(args.pg) as db:
        port = _port()
        url, ws = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}/ws"
        env = {**os.environ, "DATABASE_URL": db, "TRESET_BOT_TOKEN": TOKEN, "PYTHONUNBUFFERED": "1"}
        with open(logs / "latency-server.log", "wb") as out:
            server = subprocess.Popen([sys.executable, "-m", "server.cli", "--port", str(port)], cwd=ROOT, env=env,
                                      stdout=out, stderr=subprocess.STDOUT)
        agent = None
        try:
            end = time.time() + 60
            while time.time() < end:
                with contextlib.suppress(httpx.HTTPError):
                    if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                        break
                time.sleep(0.3)
            agent = _agent(url, 0, logs / "latency-agent.log")
            _wait(url, "bots_connected", 1)
            quiet = [t for _ in range(args.games) for t in _play_bot(url, ws, args.level)]
            agent.terminate()
            agent.wait(30)
            time.sleep(1)  # the server forgets the agent's connection
            for _ in range(args.fill):
                a, b, table_id = open_pair(url, ws)
                play_until_over(a, b, table_id)
                a.close()
                b.close()
            agent = _agent(url, args.analysis, logs / "latency-agent.log")
            _wait(url, "analysis_running", 1)
            started = time.time()
            busy = []
            for _ in range(args.games):
                busy += _play_bot(url, ws, args.level)
                health = httpx.get(f"{url}/healthz").json()
                print(f"  after a game: analyses running {health['analysis_running']}, "
                      f"waiting {health['analysis_waiting']}", flush=True)
            elapsed = time.time() - started
            print(_summary(f"{args.level}, no analyses", quiet))
            print(_summary(f"{args.level}, {args.analysis} analysis slot(s) busy", busy))
            print(f"analysis queue meanwhile: {args.fill} games queued, phase took {elapsed:.0f} s")
        finally:
            if agent is not None and agent.poll() is None:
                agent.terminate()
                agent.wait(30)
            server.terminate()
            server.wait(30)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
