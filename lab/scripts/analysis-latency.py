#!/usr/bin/env python3
"""The post-game analyses' latency through the real server and one agent, in two measurements.

Both start a server on a fresh PostgreSQL database and one ``treset-agent serve``.

``answers`` (issue #21): a scripted person plays ``--games`` deals against the bot at ``--level``,
first with the agent's analysis slots off, then again with ``--analysis`` slots busy on queued
games (two scripted guests fill the queue first). Each answer is timed from the table message that
hands the bot its turn to the one with its card. Prints the median, 90th percentile and maximum of
each phase, and how many analyses finished meanwhile.

``queue`` (issue #34): ``--tables`` scripted people play at once against the bot at ``--level``,
each taking ``--think-ms`` per card, ``--deals`` deals each (a new table per deal), from the
moment the agent connects (its workers warm themselves meanwhile). Prints, from the database, the
wait from each deal's end to its analysis (queued, started, finished), the analyses' own time, and
the throughput: analyses an hour per slot at that time.

    python lab/scripts/analysis-latency.py answers --level normal --games 3 --fill 6
    python lab/scripts/analysis-latency.py queue --tables 5 --deals 4 --think-ms 2000
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import psycopg

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.server.client import Client, guest_token, is_table, my_turn, open_pair, play_until_over  # noqa: E402

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


def _spread(name: str, values: list[float], unit: str = "ms") -> str:
    """``name``: the median, 90th percentile and maximum of ``values`` (seconds), in ``unit`` (ms or s)."""
    ordered = sorted(values)
    p90 = ordered[math.ceil(0.9 * len(ordered)) - 1]  # nearest rank: never below the median

    def shown(x: float) -> str:
        return f"{x * 1000:.0f} ms" if unit == "ms" else f"{x:.1f} s"

    return f"{name}: median {shown(statistics.median(values))}, p90 {shown(p90)}, max {shown(ordered[-1])}"


@contextlib.contextmanager
def _server(db: str, logs: Path) -> Iterator[tuple[str, str]]:
    """Run a server on ``db``; yield its HTTP and WebSocket URLs."""
    port = _port()
    url, ws = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}/ws"
    env = {**os.environ, "DATABASE_URL": db, "TRESET_BOT_TOKEN": TOKEN, "PYTHONUNBUFFERED": "1"}
    with open(logs / "latency-server.log", "wb") as out:
        server = subprocess.Popen([sys.executable, "-m", "server.cli", "--port", str(port)], cwd=ROOT, env=env,
                                  stdout=out, stderr=subprocess.STDOUT)
    try:
        end = time.time() + 60
        while time.time() < end:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                    break
            time.sleep(0.3)
        yield url, ws
    finally:
        server.terminate()
        server.wait(30)


def _stop(agent: subprocess.Popen[bytes] | None) -> None:
    if agent is not None and agent.poll() is None:
        agent.terminate()
        agent.wait(30)


def answers(args: argparse.Namespace, db: str, logs: Path) -> None:
    """Bot answer times with no analyses running, then with the analysis slots busy."""
    with _server(db, logs) as (url, ws):
        agent = None
        try:
            agent = _agent(url, 0, logs / "latency-agent.log")
            _wait(url, "bots_connected", 1)
            quiet = [t for _ in range(args.games) for t in _play_bot(url, ws, args.level)]
            _stop(agent)
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
            print(_spread(f"{args.level}, no analyses: {len(quiet)} answers", quiet))
            print(_spread(f"{args.level}, {args.analysis} analysis slot(s) busy: {len(busy)} answers", busy))
            print(f"analysis queue meanwhile: {args.fill} games queued, phase took {elapsed:.0f} s")
        finally:
            _stop(agent)


def _person(url: str, ws: str, args: argparse.Namespace, delay: float, errors: list[str]) -> None:
    """One scripted person: after ``delay`` s, ``args.deals`` deals against the bot, each on a new table,
    ``args.think_ms`` a card."""
    try:
        time.sleep(delay)
        human = Client(ws, guest_token(url)[0])
        done: set[str] = set()
        for _ in range(args.deals):
            human.send({"type": "create_table", "variant": "tressette", "opponent": "bot",
                        "bot_level": args.level})
            end = time.time() + 600
            while True:
                if time.time() > end:
                    raise TimeoutError("a deal did not finish")
                m = human.recv(timeout=120)
                if m.get("type") == "error":
                    raise RuntimeError(m)
                if not is_table(m) or m["table"]["id"] in done:
                    continue
                table = m["table"]
                if table["status"] == "finished":
                    if (m.get("event") or {}).get("reason"):
                        raise RuntimeError(f"the deal was forfeited: {m['event']}")
                    done.add(table["id"])
                    human.send({"type": "leave_table", "table_id": table["id"]})
                    break
                if my_turn(m) and (m.get("event") or {}).get("kind") in ("start", "play", "trick"):
                    time.sleep(args.think_ms / 1000)
                    human.send({"type": "play", "table_id": table["id"], "card": table["view"]["legal"][0]})
        human.close()
    except Exception as exc:  # noqa: BLE001 - reported by the caller
        errors.append(repr(exc))


def _connect(db: str) -> psycopg.Connection[Any]:
    """Connect to the SQLAlchemy URL ``db`` with psycopg."""
    return psycopg.connect(db.replace("postgresql+psycopg://", "postgresql://"))


def _analysis_rows(db: str) -> list[tuple[float, float, float, float]]:
    """Each analysed deal's (end → queued, end → started, end → finished, started → finished), seconds."""
    with _connect(db) as conn:
        rows = conn.execute(
            "SELECT extract(epoch FROM a.requested_at - g.ended_at), extract(epoch FROM a.started_at - g.ended_at),"
            " extract(epoch FROM a.finished_at - g.ended_at), extract(epoch FROM a.finished_at - a.started_at)"
            " FROM analyses a JOIN games g ON g.id = a.game_id WHERE a.status = 'done' ORDER BY g.ended_at"
        ).fetchall()
    return [(float(a), float(b), float(c), float(d)) for a, b, c, d in rows]


def _pending(db: str) -> tuple[int, int]:
    with _connect(db) as conn:
        row = conn.execute("SELECT count(*) FILTER (WHERE status = 'finished'),"
                           " (SELECT count(*) FROM analyses WHERE status = 'done') FROM games").fetchone()
    assert row is not None
    return int(row[0]), int(row[1])


def queue(args: argparse.Namespace, db: str, logs: Path) -> None:
    """Concurrent tables of people against the bot; the wait from each deal's end to its analysis."""
    with _server(db, logs) as (url, ws):
        agent = None
        try:
            agent = _agent(url, args.analysis, logs / "latency-agent.log")
            _wait(url, "bots_connected", 1)
            errors: list[str] = []
            started = time.time()
            # The tables start spread over about one deal (a person's 20 cards at think-ms each, and the
            # bot's answers besides), as people sit down at different times: deals do not all end at once.
            spread = 30 * args.think_ms / 1000 if args.spread is None else args.spread
            people = [threading.Thread(target=_person, args=(url, ws, args, spread * i / args.tables, errors))
                      for i in range(args.tables)]
            for person in people:
                person.start()
            for person in people:
                person.join()
            played = time.time() - started
            if errors:
                raise SystemExit(f"a person failed: {errors}")
            end = time.time() + 900
            while time.time() < end:
                finished, done = _pending(db)
                if done >= finished:
                    break
                time.sleep(1)
            rows = _analysis_rows(db)
        finally:
            _stop(agent)
    finished, done = _pending(db)
    print(f"{args.tables} tables of a person ({args.think_ms} ms a card) against the bot at {args.level}, "
          f"{args.deals} deals each, one agent with {args.analysis} analysis slot(s), {os.cpu_count()} cores: "
          f"{finished} deals in {played:.0f} s, {done} analysed")
    print(_spread("deal end -> queued", [r[0] for r in rows], "s"))
    print(_spread("deal end -> started", [r[1] for r in rows], "s"))
    print(_spread("deal end -> analysis ready (the wait)", [r[2] for r in rows], "s"))
    print(_spread("one analysis (started -> finished)", [r[3] for r in rows], "s"))
    print(f"throughput: {3600 / statistics.mean([r[3] for r in rows]):.0f} analyses per slot-hour "
          f"while the bot played beside them")


def main() -> int:
    """Run the chosen measurement and print its figures."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pg", default="host=127.0.0.1 port=5432 user=postgres dbname=postgres",
                    help="admin conninfo of a PostgreSQL server (a throwaway database is made there)")
    sub = ap.add_subparsers(dest="measure", required=True)
    one = sub.add_parser("answers", help="bot answer times with and without analyses running")
    one.add_argument("--level", default="normal")
    one.add_argument("--games", type=int, default=3, help="bot games per phase")
    one.add_argument("--fill", type=int, default=6, help="games queued for analysis before the second phase")
    one.add_argument("--analysis", type=int, default=1, help="the agent's analysis slots in the second phase")
    two = sub.add_parser("queue", help="the wait from a deal's end to its analysis under load")
    two.add_argument("--level", default="normal")
    two.add_argument("--tables", type=int, default=5, help="people playing the bot at once")
    two.add_argument("--deals", type=int, default=4, help="deals each person plays")
    two.add_argument("--think-ms", type=int, default=2000, help="each person's time per card")
    two.add_argument("--analysis", type=int, default=1, help="the agent's analysis slots (its default: 1)")
    two.add_argument("--spread", type=float, default=None,
                     help="seconds over which the tables start (default: about one deal; 0: all at once)")
    args = ap.parse_args()
    logs = ROOT / "test-artifacts"
    logs.mkdir(exist_ok=True)
    with _database(args.pg) as db:
        (answers if args.measure == "answers" else queue)(args, db, logs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
