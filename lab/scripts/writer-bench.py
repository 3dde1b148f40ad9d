"""Time the move writer's group commit on PostgreSQL: CPU (the writer thread's, which holds the GIL) and wall.

    python lab/scripts/writer-bench.py postgresql+psycopg://postgres@127.0.0.1/bench42 [--groups 400] [--size 20]

The database must be migrated (``TRESET_DATABASE_URL=... python -m server.tools.migrate``); the script adds
its own users, games and fences. Each group is ``size`` fenced move inserts of different tables, the shape of
the writer's groups at 1,000 busy tables (issue #42). Prints the median and p90 per group and per move row,
for the writer as it is and, alternating in the same run, for the group commit before issue #42's
one-statement insert (``fences_held`` and then a multi-row ``INSERT``): the ratio is the figure to trust on a
busy machine.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time
import uuid
from typing import cast

from sqlalchemy import Table, insert
from sqlalchemy.orm import Session, sessionmaker

from server.store.db import session_factory
from server.store.fences import fences_held
from server.store.models import Game, Move, TableFence, User
from server.store.writer import MoveWriter, _Job


def _setup(sessions: sessionmaker[Session], tables: int) -> tuple[list[tuple[str, int]], list[int], int]:
    tag = uuid.uuid4().hex[:8]
    with sessions() as s:
        user = User(username=f"wb-{tag}", password_hash="x", role="player")
        s.add(user)
        s.flush()
        fences = [(f"wb{tag}{i}", 1) for i in range(tables)]
        s.execute(insert(TableFence), [{"table_id": t, "fence": f} for t, f in fences])
        games = []
        for t, _ in fences:
            g = Game(table_id=t, deal_number=1, variant="tressette", opponent="anyone", player0_id=user.id,
                     player1_id=user.id, first_leader=0, deck=list(range(40)), status="playing")
            s.add(g)
            games.append(g)
        s.flush()
        ids = [int(g.id) for g in games]
        s.commit()
        return fences, ids, int(user.id)


def _row(rng: random.Random, game_id: int, user_id: int, number: int) -> dict[str, object]:
    cards = rng.sample(range(40), 30)
    return {"game_id": game_id, "user_id": user_id, "seat": number % 2, "move_number": number,
            "trick_number": number // 2, "variant": "tressette", "n_players": 2, "hand": cards[:8],
            "opponent_known": cards[8:11], "table_cards": cards[11:12], "won_self": cards[12:20],
            "won_opponent": cards[20:28], "card": cards[0], "first_card": cards[11], "score": 4}


def _before(session: Session, jobs: list[_Job[None]]) -> None:
    """The group commit before the one-statement insert: check the fences, then one multi-row INSERT."""
    held = fences_held(session=session, fences={job.fence for job in jobs if job.fence is not None})
    assert len(held) == len(jobs)
    session.execute(insert(cast(Table, Move.__table__)), [job.row for job in jobs if job.row is not None])


def main() -> None:
    """Run the benchmark and print its figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("url")
    ap.add_argument("--groups", type=int, default=400)
    ap.add_argument("--size", type=int, default=20)
    args = ap.parse_args()
    sessions = session_factory(args.url)
    fences, games, user = _setup(sessions, args.size * 10)
    rng = random.Random(1)
    loop = asyncio.new_event_loop()
    numbers = dict.fromkeys(games, 0)
    figures: dict[str, tuple[list[float], list[float]]] = {"writer": ([], []), "before": ([], [])}
    for _ in range(args.groups):
        for name, write in (("writer", MoveWriter._write), ("before", _before)):
            picked = rng.sample(range(len(games)), args.size)
            jobs: list[_Job[None]] = []
            for i in picked:
                numbers[games[i]] += 1
                jobs.append(_Job(None, loop, loop.create_future(), Move,
                                 _row(rng, games[i], user, numbers[games[i]]), fences[i]))
            c0, w0 = time.thread_time(), time.perf_counter()
            with sessions() as s:
                write(s, jobs)
                s.commit()
            figures[name][0].append(time.thread_time() - c0)
            figures[name][1].append(time.perf_counter() - w0)
    medians: dict[str, float] = {}
    for name, (cpu, wall) in figures.items():
        for kind, xs in (("cpu", cpu), ("wall", wall)):
            xs = sorted(xs[args.groups // 10:])  # the first tenth warms the caches up
            med, p90 = statistics.median(xs), xs[int(len(xs) * 0.9)]
            medians[f"{name} {kind}"] = med
            print(f"{name:6} {kind:4}: median {med * 1e3:.2f} ms, p90 {p90 * 1e3:.2f} ms a group of {args.size}; "
                  f"{med / args.size * 1e6:.0f} µs a move")
    for kind in ("cpu", "wall"):
        print(f"{kind}: writer / before = {medians[f'writer {kind}'] / medians[f'before {kind}']:.2f}")

if __name__ == "__main__":
    main()
