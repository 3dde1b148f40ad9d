"""The finder's puzzles through the site (issue #33): found in a real move log, served, solved and failed.

Planted deals (chosen by plain minimax, tests/stats/test_puzzles.py) go into a PostgreSQL move log; the
command ``treset admin puzzles`` stores what the finder finds; then players get them from the HTTP API:
one follows the stored line to the end (solved), another plays a losing first card (wrong, with the
refutation and the solution); the puzzle's tries and solves count both.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import select

from server.store.db import engine_for, session_factory, upgrade
from server.store.models import Puzzle
from tests import local_http
from tests.conftest import LiveServer
from tests.puzzles.rows import player_cards
from tests.puzzles.test_routes import Player, _register
from tests.stats.test_puzzles import _add_game, planted
from treset.puzzles import scan
from tressette import Variant


def test_found_puzzles_are_served_solved_and_failed(pg_url: str, start_server: Callable[..., LiveServer]) -> None:
    upgrade(pg_url)
    deals = planted(1, Variant.TRESSETTE)
    with session_factory(pg_url)() as session:
        for deck, first, moves, _ in deals:
            _add_game(session, Variant.TRESSETTE, deck, first, moves)
        session.commit()
    totals = scan(pg_url)
    assert sum(totals["stored"].values()) >= 1
    with session_factory(pg_url)() as session:
        rows = list(session.scalars(select(Puzzle)))
        stored = {p.id: p.data for p in rows}
        stored_themes = {p.id: p.themes for p in rows}
    engine_for(pg_url).dispose()
    server = start_server(pg_url)

    solver = Player(server.url, _register(server.url, "sol")[0])
    served = solver.next()["puzzle"]
    data = stored[served["id"]]
    assert served["hand"] == data["hand"] and served["opponent_hand"] == data["opponent_hand"]
    mine = player_cards(data)
    assert mine and len(mine) == len(data["accepted"])
    for n in range(1, len(mine) + 1):
        r = solver.attempt(served["id"], mine[:n])
        assert r.status_code == 200, r.text
        assert r.json()["result"] == ("solved" if n == len(mine) else "right"), r.json()
    solved = r.json()
    assert [m["card"] for m in solved["solution"]] == data["solution"]
    assert solved["rating"]["change"] > 0 and solved["themes"] == stored_themes[served["id"]]

    failer = Player(server.url, _register(server.url, "fay")[0])
    again = failer.next()["puzzle"]
    assert again["id"] == served["id"]
    wrong = next(iter(data["refutations"][0]))  # a losing first card, as the finder proved
    assert wrong not in data["accepted"][0]
    r = failer.attempt(again["id"], [wrong])
    failed = r.json()
    assert r.status_code == 200 and failed["result"] == "wrong", r.text
    assert [m["card"] for m in failed["refutation"]] == data["refutations"][0][wrong]
    assert failed["rating"]["change"] < 0
    profiles = [local_http.get(f"{server.url}/api/players/{name}", timeout=10).json()["puzzles"] for name in ("sol", "fay")]
    assert [(p["attempts"], p["solved"]) for p in profiles] == [(1, 1), (1, 0)]
    assert profiles[0]["rating"] > 1500 > profiles[1]["rating"]  # a puzzle solved, a puzzle failed, from 1500
    with session_factory(pg_url)() as session:
        row = session.get(Puzzle, served["id"])
        assert row is not None and (row.attempts, row.solved) == (2, 1)
    engine_for(pg_url).dispose()
    assert local_http.get(f"{server.url}/api/puzzles/{served['id']}").status_code == 401
