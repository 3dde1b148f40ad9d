"""``python -m server.loadtest``: N concurrent scripted games against a running server.

Each table has two guest players who play the first legal card whenever it is
their turn.  Prints games per second and the move round trip (sending ``play``
until the mover sees its card on the table) at p50/p99, then checks that every
move reached the database.  Traffic goes only to the given server (use a local one).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from typing import Any

import httpx
from sqlalchemy import create_engine, func, select
from sqlalchemy.orm import Session
from websockets.asyncio.client import ClientConnection, connect

from server.models import Game, Move


async def _guest(client: httpx.AsyncClient, url: str) -> str:
    r = await client.post(f"{url}/api/auth/guest")
    r.raise_for_status()
    return str(r.json()["token"])


async def _player(ws: ClientConnection, table_id: str | None, rtts: list[float], done: asyncio.Event,
                  created: asyncio.Future[tuple[str, str]] | None) -> None:
    sent_at: float | None = None
    async for raw in ws:
        msg: dict[str, Any] = json.loads(raw)
        if msg.get("type") != "table":
            continue
        t = msg["table"]
        if created is not None and not created.done():
            created.set_result((t["id"], t["invite"]))
        table_id = t["id"]
        event = msg.get("event") or {}
        if sent_at is not None and event.get("seat") == t["you"] and event.get("kind") in ("play", "trick"):
            rtts.append(time.perf_counter() - sent_at)
            sent_at = None
        if t["status"] == "finished":
            done.set()
            return
        view = t["view"]
        if t["status"] == "playing" and view and view["to_move"] == t["you"] and msg.get("event") and sent_at is None:
            sent_at = time.perf_counter()
            await ws.send(json.dumps({"type": "play", "table_id": table_id, "card": view["legal"][0]}))


async def _table(url: str, ws_url: str, http: httpx.AsyncClient, rtts: list[float], setup: asyncio.Semaphore) -> None:
    async with setup:  # accounts and sockets are opened a few at a time; the games then run together
        ta, tb = await _guest(http, url), await _guest(http, url)
        a_cm, b_cm = connect(f"{ws_url}?token={ta}", max_size=2**22), connect(f"{ws_url}?token={tb}", max_size=2**22)
        a = await a_cm.__aenter__()
        b = await b_cm.__aenter__()
    try:
        created: asyncio.Future[tuple[str, str]] = asyncio.get_running_loop().create_future()
        done_a, done_b = asyncio.Event(), asyncio.Event()
        task_a = asyncio.create_task(_player(a, None, rtts, done_a, created))
        # Private (invite) tables: the creator's first table message carries the code.
        await a.send(json.dumps({"type": "create_table", "variant": "tressette", "opponent": "invite"}))
        table_id, invite = await asyncio.wait_for(created, 30)
        task_b = asyncio.create_task(_player(b, table_id, rtts, done_b, None))
        await b.send(json.dumps({"type": "join_table", "table_id": table_id, "invite": invite}))
        await asyncio.wait_for(asyncio.gather(task_a, task_b), timeout=900)
    finally:
        await a_cm.__aexit__(None, None, None)
        await b_cm.__aexit__(None, None, None)


async def run(url: str, tables: int) -> dict[str, Any]:
    """Play ``tables`` games at once; return the figures."""
    ws_url = url.replace("http", "ws", 1).rstrip("/") + "/ws"
    rtts: list[float] = []
    limits = httpx.Limits(max_connections=200)
    async with httpx.AsyncClient(timeout=60, limits=limits) as http:
        start = time.perf_counter()
        setup = asyncio.Semaphore(20)
        await asyncio.gather(*(_table(url, ws_url, http, rtts, setup) for _ in range(tables)))
        elapsed = time.perf_counter() - start
    rtts.sort()
    return {
        "tables": tables,
        "seconds": elapsed,
        "games_per_s": tables / elapsed,
        "moves": len(rtts),
        "rtt_ms_p50": 1000 * statistics.median(rtts),
        "rtt_ms_p99": 1000 * rtts[int(0.99 * (len(rtts) - 1))],
    }


def main(argv: list[str] | None = None) -> int:
    """Run the load test and print its figures."""
    parser = argparse.ArgumentParser(prog="python -m server.loadtest", description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000", help="a running server (local)")
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--database-url", help="the server's database, to check every move reached it")
    args = parser.parse_args(argv)
    before = _count(args.database_url) if args.database_url else None
    figures = asyncio.run(run(args.url, args.tables))
    print(json.dumps(figures, indent=2))
    if args.database_url and before is not None:
        after = _count(args.database_url)
        games, moves = after[0] - before[0], after[1] - before[1]
        ok = games == args.tables and moves == 40 * args.tables
        print(f"database: {games} new games played to the end, {moves} new moves "
              f"({'all there' if ok else 'MISSING MOVES'})")
        return 0 if ok else 1
    return 0


def _count(db_url: str) -> tuple[int, int]:
    engine = create_engine(db_url)
    with Session(engine) as s:
        games = s.scalar(select(func.count()).select_from(Game).where(Game.end_reason == "finished")) or 0
        moves = s.scalar(select(func.count()).select_from(Move)) or 0
    engine.dispose()
    return int(games), int(moves)


if __name__ == "__main__":
    sys.exit(main())
