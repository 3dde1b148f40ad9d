"""``python -m server.tools.loadtest``: N concurrent scripted games against running servers.

Each table has two guest players who play the first legal card when it is their turn (at once,
or after ``--think-ms`` on average, like people). Every table is set up first (accounts, sockets,
the table opened and waiting); then all deals start together and run side by side. Prints the
moves per second while they ran and the move round trip (sending ``play`` until the mover sees
its card on the table) at p50/p99/max, then, with ``--database-url``, checks that every move of
every deal played reached the database.

``--url`` may be given several times: tables go to the servers in turn (with ``--split``, a
table's second player connects to the next server: for servers that share their tables).
Traffic goes only to the given servers (use local ones); a server under test needs
``TRESET_GUESTS_PER_ADDRESS`` raised above twice the tables (docs/security.md).

``python -m server.tools.loadtest idle ...`` runs :mod:`server.tools.idleload` instead: N idle
clients in the lobby, with the server's memory per client.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import httpx
from sqlalchemy import create_engine, func, select
from sqlalchemy.orm import Session
from websockets.asyncio.client import ClientConnection, connect

from server.store.models import Game, Move

MOVES_PER_DEAL = 40


@dataclass
class Figures:
    """What the players measured."""

    rtts: list[float] = field(default_factory=list)
    game_ids: set[int] = field(default_factory=set)
    errors: dict[str, int] = field(default_factory=dict)
    finished: int = 0


async def _guest(client: httpx.AsyncClient, url: str) -> str:
    r = await client.post(f"{url}/api/auth/guest")
    r.raise_for_status()
    return str(r.json()["token"])


async def _open(ws_url: str, token: str, token_in_url: bool) -> ClientConnection:
    if token_in_url:  # servers before the auth message (a baseline from an older commit)
        return await connect(f"{ws_url}?token={token}", max_size=2**22, open_timeout=60, ping_interval=None)
    ws = await connect(ws_url, max_size=2**22, open_timeout=60, ping_interval=None)
    await ws.send(json.dumps({"type": "auth", "token": token}))  # the token goes in the first message
    return ws


async def _player(ws: ClientConnection, figures: Figures, think_ms: float, rng: random.Random,
                  created: asyncio.Future[tuple[str, str]] | None) -> None:
    """Play one seat until the deal is over."""
    sent_at: float | None = None
    last_play: dict[str, Any] | None = None
    async for raw in ws:
        msg: dict[str, Any] = json.loads(raw)
        kind = msg.get("type")
        if kind == "error":
            code = str(msg.get("code"))
            figures.errors[code] = figures.errors.get(code, 0) + 1
            if msg.get("ref") == "play" and last_play is not None:  # refused (e.g. internal): try again
                await asyncio.sleep(0.05)
                sent_at = time.perf_counter()
                await ws.send(json.dumps(last_play))
            continue
        if kind != "table":
            continue
        t = msg["table"]
        if created is not None and not created.done():
            created.set_result((t["id"], t["invite"]))
        if t.get("game_id") is not None:
            figures.game_ids.add(int(t["game_id"]))
        event = msg.get("event") or {}
        if sent_at is not None and event.get("seat") == t["you"] and event.get("kind") in ("play", "trick"):
            figures.rtts.append(time.perf_counter() - sent_at)
            sent_at = None
        if t["status"] == "finished":
            figures.finished += 1
            return
        view = t["view"]
        if t["status"] == "playing" and view and view["to_move"] == t["you"] and event and sent_at is None:
            if think_ms > 0:
                await asyncio.sleep(think_ms * rng.uniform(0.5, 1.5) / 1000)
            last_play = {"type": "play", "table_id": t["id"], "card": view["legal"][0]}
            sent_at = time.perf_counter()
            await ws.send(json.dumps(last_play))


async def _table(urls: tuple[str, str], http: httpx.AsyncClient, figures: Figures, setup: asyncio.Semaphore,
                 go: asyncio.Event, ready: list[int], think_ms: float, seed: int, token_in_url: bool) -> None:
    """Open one private table (two guests), wait for ``go``, then play its deal."""
    rng = random.Random(seed)
    async with setup:  # accounts and sockets are opened a few at a time; the deals then run together
        ta, tb = await _guest(http, urls[0]), await _guest(http, urls[1])
        a = await _open(_ws(urls[0]), ta, token_in_url)
        b = await _open(_ws(urls[1]), tb, token_in_url)
        created: asyncio.Future[tuple[str, str]] = asyncio.get_running_loop().create_future()
        task_a = asyncio.create_task(_player(a, figures, think_ms, rng, created))
        task_b = asyncio.create_task(_player(b, figures, think_ms, rng, None))  # reads (the lobby) from now on
        # Private (invite) tables: the creator's first table message carries the code.
        await a.send(json.dumps({"type": "create_table", "variant": "tressette", "opponent": "invite"}))
        table_id, invite = await asyncio.wait_for(created, 60)
    try:
        ready[0] += 1
        await go.wait()
        await b.send(json.dumps({"type": "join_table", "table_id": table_id, "invite": invite}))
        await asyncio.wait_for(asyncio.gather(task_a, task_b), timeout=1800)
    finally:
        await a.close()
        await b.close()


def _ws(url: str) -> str:
    return url.replace("http", "ws", 1).rstrip("/") + "/ws"


async def run(urls: list[str], tables: int, *, think_ms: float = 0.0, split: bool = False,
              seed: int = 1, token_in_url: bool = False) -> tuple[dict[str, Any], Figures]:
    """Set up ``tables`` tables over ``urls`` (in turn), play their deals at once; return the figures."""
    figures = Figures()
    go = asyncio.Event()
    ready = [0]
    limits = httpx.Limits(max_connections=100)
    async with httpx.AsyncClient(timeout=120, limits=limits) as http:
        setup_start = time.perf_counter()
        setup = asyncio.Semaphore(20)
        pairs = [(urls[i % len(urls)], urls[(i + int(split)) % len(urls)]) for i in range(tables)]
        jobs = asyncio.gather(*(_table(pairs[i], http, figures, setup, go, ready, think_ms, seed * 100_003 + i,
                                       token_in_url) for i in range(tables)))
        while ready[0] < tables:
            await asyncio.sleep(0.05)
            if jobs.done():  # a setup failed: raise it
                await jobs
        setup_s = time.perf_counter() - setup_start
        start = time.perf_counter()
        go.set()
        await jobs
        elapsed = time.perf_counter() - start
    rtts = sorted(figures.rtts)
    return {
        "servers": len(urls),
        "tables": tables,
        "think_ms": think_ms,
        "setup_seconds": round(setup_s, 1),
        "seconds": round(elapsed, 2),
        "moves": len(rtts),
        "moves_per_s": round(len(rtts) / elapsed, 1),
        "rtt_ms_p50": round(1000 * statistics.median(rtts), 1),
        "rtt_ms_p99": round(1000 * rtts[int(0.99 * (len(rtts) - 1))], 1),
        "rtt_ms_max": round(1000 * rtts[-1], 1),
        "errors": figures.errors,
    }, figures


def check_database(db_url: str, game_ids: set[int] | None) -> tuple[int, int]:
    """Return how many of ``game_ids`` are finished in the database, and how many moves they have.

    None: every game of the database (a fresh one, for a server whose snapshots carry no ``game_id``).
    """
    engine = create_engine(db_url)
    try:
        with Session(engine) as s:
            ids = sorted(game_ids) if game_ids is not None else list(s.scalars(select(Game.id)))
            games = moves = 0
            for i in range(0, len(ids), 1000):
                chunk = ids[i:i + 1000]
                games += s.scalar(select(func.count()).select_from(Game)
                                  .where(Game.id.in_(chunk), Game.end_reason == "finished")) or 0
                moves += s.scalar(select(func.count()).select_from(Move).where(Move.game_id.in_(chunk))) or 0
    finally:
        engine.dispose()
    return int(games), int(moves)


def main(argv: list[str] | None = None) -> int:
    """Run the load test and print its figures (JSON); exit 1 if a move is missing from the database."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["idle"]:
        from server.tools import idleload

        return idleload.main(argv[1:])
    parser = argparse.ArgumentParser(prog="python -m server.tools.loadtest", description=__doc__.splitlines()[0])
    parser.add_argument("--url", action="append", help="a running server (local); repeat for several "
                        "(default http://127.0.0.1:8000)")
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--think-ms", type=float, default=0.0,
                        help="each player's mean pause before a card (uniform over 0.5-1.5 times it)")
    parser.add_argument("--split", action="store_true", help="a table's two players on different servers")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--database-url", help="the servers' database, to check every move reached it")
    parser.add_argument("--token-in-url", action="store_true",
                        help="sign in with ?token= (servers older than the auth message: a baseline's commit)")
    args = parser.parse_args(argv)
    urls = [u.rstrip("/") for u in (args.url or ["http://127.0.0.1:8000"])]
    figures, seen = asyncio.run(run(urls, args.tables, think_ms=args.think_ms, split=args.split, seed=args.seed,
                                    token_in_url=args.token_in_url))
    ok = seen.finished == 2 * args.tables and len(seen.game_ids) in (args.tables, 0)
    if args.database_url:
        games, moves = check_database(args.database_url, seen.game_ids or None)
        figures["database"] = {"games_finished": games, "moves": moves}
        ok = ok and games == args.tables and moves == MOVES_PER_DEAL * args.tables
    figures["ok"] = ok
    print(json.dumps(figures, indent=2))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
