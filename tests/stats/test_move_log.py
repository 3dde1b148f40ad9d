"""The move log as analysts read it (issue #26): finished games only, exact filters, the outcome's context.

Expected values are computed here by replaying each deal with the rules package, not with the
server's query code. PostgreSQL throughout; SQLite where its SQL differs (the views, the export's
deck and JSON expressions, the share arithmetic).
"""

from __future__ import annotations

import csv
import io
import json
import os
import random
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from typing import Any

import psycopg
import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session

from server.store import repos
from server.store.admin_queries import (
    EXPORT_COLUMNS,
    ExportFilters,
    FilterError,
    export_rows,
    parse_share,
    share_ceiling,
)
from server.store.db import session_factory, upgrade
from server.store.models import Game, Move, User, UserTotals
from server.store.movelog import move_fields
from server.tools.seed import generate
from tests import local_http
from tests.conftest import LiveServer
from tests.forkserver import run_module
from tests.server.client import Client, is_table, my_turn, open_pair
from tests.stats.test_admin import typed_csv_row
from tressette import POINTS, Deal, Variant, card_name

RAW_TABLES = ("games", "moves", "analyses", "move_analyses", "auth_tokens", "matches", "puzzles",
              "partnership_leavers")
READABLE = {"cards", "user_totals", "users", "games_named", "moves_named", "move_analyses_named", "finished_games",
            "finished_moves", "finished_analyses", "finished_move_analyses", "finished_matches", "finished_puzzles",
            "partnership_moves_named"}


def _conninfo(url: str, **over: str) -> str:
    u = make_url(url)
    params = {"host": u.host or "127.0.0.1", "port": str(u.port or 5432), "user": u.username or "postgres",
              "dbname": u.database or "", **over}
    return " ".join(f"{k}={v}" for k, v in params.items())


def _readonly_login(pg_url: str) -> str:
    """Create a login as ``treset admin readonly-user`` does; return its name (password ``pw``)."""
    name = f"ro_{uuid.uuid4().hex[:8]}"
    made = run_module("treset.cli", ["admin", "readonly-user", name, "--password", "pw"],
                      env={**os.environ, "DATABASE_URL": pg_url})
    assert made.returncode == 0, made.stderr
    return name


def _drop_login(pg_url: str, name: str) -> None:
    with psycopg.connect(_conninfo(pg_url), autocommit=True) as conn:
        conn.execute(f'DROP ROLE IF EXISTS "{name}"')


def _play_moves(a: Client, b: Client, table_id: str, count: int, timeout: float = 30) -> None:
    """Let the two players play ``count`` cards of the deal just started (the first legal card each time)."""
    clients, played, end = [a, b], 0, time.time() + timeout
    while played < count:
        assert time.time() < end, "the moves were not played"
        for c in clients:
            try:
                msg = c.recv(timeout=0.05)
            except TimeoutError:
                continue
            if not is_table(msg) or msg["table"]["id"] != table_id or msg["table"]["view"] is None:
                continue
            view = msg["table"]["view"]
            made = 2 * len(view["history"]) + len(view["table"])
            if made >= count:
                played = made
            elif my_turn(msg) and made == played:
                c.send({"type": "play", "table_id": table_id, "card": view["legal"][0]})
                played = made + 1
    time.sleep(0.3)  # every card is committed before it is broadcast; let the last broadcast settle


def test_read_only_login_never_sees_a_live_deal(pg_url: str, start_server: Callable[..., LiveServer]) -> None:
    """Through a ``readonly-user`` login, a deal being played shows nowhere: not its deck, not its moves.

    Two players start a deal through the real server and play five cards; every relation the
    login may read is listed and read in full, and none holds the live game. The raw tables are
    refused, and a function the reader writes cannot see the rows the views filter out (security
    barrier). Once the deal ends (a player leaves), the same views show it with its end reason.
    """
    upgrade(pg_url)
    with session_factory(pg_url)() as session:  # some finished games around the live one
        generate(session, moves=400, players=4, seed=5, days=3)
    server = start_server(pg_url)
    a, b, table_id = open_pair(server.url, server.ws_url)
    _play_moves(a, b, table_id, 5)
    with psycopg.connect(_conninfo(pg_url)) as conn:
        live = conn.execute("SELECT id FROM games WHERE status = 'playing'").fetchall()
        assert len(live) == 1
        live_id = live[0][0]
        assert conn.execute("SELECT count(*) FROM moves WHERE game_id = %s", (live_id,)).fetchone() == (5,)
    name = _readonly_login(pg_url)
    control = f"control_{name}"
    with psycopg.connect(_conninfo(pg_url), autocommit=True) as conn:  # a plain view, to show the attack works
        conn.execute(f"CREATE VIEW {control} AS SELECT g.id FROM games g WHERE g.status = 'finished'")
        conn.execute(f'GRANT SELECT ON {control} TO "{name}"')
    try:
        with psycopg.connect(_conninfo(pg_url, user=name, password="pw"), autocommit=True) as conn:
            readable = {r[0] for r in conn.execute(
                "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE n.nspname = 'public' AND c.relkind IN ('r', 'v', 'm', 'p') "
                "AND (has_table_privilege(c.oid, 'SELECT') OR has_any_column_privilege(c.oid, 'SELECT'))")}
            assert readable == READABLE | {control}
            for table in RAW_TABLES:
                with pytest.raises(psycopg.errors.InsufficientPrivilege):
                    conn.execute(f"SELECT * FROM {table} LIMIT 1")
            seen_games = 0
            for relation in sorted(READABLE - {"users"}):  # (the control view is the test's own)
                cur = conn.execute(f"SELECT * FROM {relation}")
                columns = [d.name for d in cur.description or []]
                key = "game_id" if "game_id" in columns else "id" if relation in ("finished_games",
                                                                                  "games_named") else None
                for row in cur.fetchall():
                    record = dict(zip(columns, row, strict=True))
                    if key is not None:
                        assert record[key] != live_id, (relation, record)
                        seen_games += 1
                    if relation in ("finished_games", "games_named"):
                        assert record["status"] == "finished" and record["end_reason"] is not None
            assert seen_games > 0  # the finished games are there
            # A reader's own function (a temporary one, cheap so the planner runs it before the view's filter,
            # sequential scans so no index skips the live rows) sees every row of a plain view, the live game's
            # too, but no row the treset views filter out: they are security barriers.
            for setting in ("default_transaction_read_only", "enable_indexscan", "enable_bitmapscan"):
                conn.execute(f"SET {setting} = off")
            conn.execute("CREATE FUNCTION pg_temp.peek(g integer) RETURNS boolean LANGUAGE plpgsql COST 0.0001 "
                         "AS $$ BEGIN RAISE NOTICE 'peek %', g; RETURN true; END $$")
            notices: list[str] = []
            conn.add_notice_handler(lambda d: notices.append(d.message_primary or ""))
            conn.execute(f"SELECT count(*) FROM {control} WHERE pg_temp.peek(id)")
            assert f"peek {live_id}" in notices  # the attack works on a plain view
            notices.clear()
            for relation, column in (("finished_moves", "game_id"), ("moves_named", "game_id"),
                                     ("finished_games", "id"), ("games_named", "id"),
                                     ("finished_analyses", "game_id"), ("move_analyses_named", "game_id"),
                                     ("partnership_moves_named", "game_id")):
                conn.execute(f"SELECT count(*) FROM {relation} WHERE pg_temp.peek({column})")
            assert notices and f"peek {live_id}" not in notices
        # The deal ends by a player leaving; now the views show it, with the end reason and both final scores.
        a.send({"type": "leave_table", "table_id": table_id})
        a.wait_for(lambda m: m["type"] == "left")
        deadline = time.time() + 10
        with psycopg.connect(_conninfo(pg_url, user=name, password="pw"), autocommit=True) as conn:
            while time.time() < deadline:
                row = conn.execute("SELECT end_reason, winner FROM games_named WHERE id = %s", (live_id,)).fetchone()
                if row:
                    break
                time.sleep(0.2)
            assert row is not None and row[0] == "left"
            moves = conn.execute("SELECT end_reason, mover_won, final_score + final_opponent_score FROM moves_named "
                                 "WHERE game_id = %s ORDER BY move_number", (live_id,)).fetchall()
            assert len(moves) == 5 and {m[0] for m in moves} == {"left"}
    finally:
        a.close()
        b.close()
        with psycopg.connect(_conninfo(pg_url), autocommit=True) as conn:
            conn.execute(f"DROP VIEW IF EXISTS {control}")
        _drop_login(pg_url, name)


# ----- exact win-share filters ------------------------------------------------------------------

BOUNDARY_PLAYERS = {"w07": 7, "w06": 6, "w14": 14, "w13": 13}
"""Wins out of 25 games each: exactly 0.28 and 0.56, and one win fewer."""


def _boundary_db(url: str) -> None:
    """Four players with 25 Tressette games each and the wins above; two finished games with their moves."""
    upgrade(url)
    with session_factory(url)() as session:
        users = {n: repos.ensure_user(session=session, username=n, role="player") for n in BOUNDARY_PLAYERS}
        session.flush()
        for n, wins in BOUNDARY_PLAYERS.items():
            session.add(UserTotals(user_id=users[n].id, variant="tressette", games=25, wins=wins, points=0))
        for first, second in (("w07", "w06"), ("w14", "w13")):
            _logged_game(session, users[first], users[second], random.Random(first), moves=40, reason="finished")
        session.commit()


def _logged_game(session: Session, p0: User, p1: User, rng: random.Random, *, moves: int, reason: str | None,
                 deal_number: int = 1, first_leader: int = 0, variant: str = "tressette") -> Game:
    """Log a deal of ``moves`` cards (random legal play) as the server does; end it with ``reason`` (None: live).

    Totals are not touched (the caller sets them); a deal cut short keeps the points so far, as a forfeit does.
    """
    deck = list(range(40))
    rng.shuffle(deck)
    deal = Deal.from_deck(deck, Variant(variant), first_leader)
    game = Game(table_id=f"t{rng.randrange(10**6)}", deal_number=deal_number, variant=variant, opponent="anyone",
                player0_id=p0.id, player1_id=p1.id, first_leader=first_leader, deck=deck, status="playing",
                started_at=datetime.now(UTC) - timedelta(hours=1))
    session.add(game)
    session.flush()
    for number in range(moves):
        seat = deal.to_move
        card = rng.choice(deal.legal_moves())
        session.add(Move(game_id=game.id, user_id=(p0, p1)[seat].id, move_number=number, variant=variant,
                         **move_fields(deal, seat, card)))
        deal.play(card, seat)
    if reason is not None:
        points = deal.final_points()
        game.status, game.end_reason, game.ended_at = "finished", reason, datetime.now(UTC)
        game.points0, game.points1 = points
        game.winner_seat = deal.outcome().winner if deal.is_over else int(points[1] > points[0])
    session.flush()
    return game


def _movers(url: str, share: str) -> set[str]:
    with session_factory(url)() as session:
        return {r["username"] for r in export_rows(session, ExportFilters(min_win_share=parse_share(share)))}


@pytest.mark.parametrize("backend", ["postgres", "sqlite"])
def test_min_win_share_is_exact_at_the_boundary(backend: str, request: pytest.FixtureRequest) -> None:
    """7 of 25 passes 0.28 and 14 of 25 passes 0.56 (``0.28 * 25`` is 7.000000000000001 in floats); one fewer fails."""
    url = request.getfixturevalue("pg_url" if backend == "postgres" else "sqlite_url")
    _boundary_db(url)
    assert _movers(url, "0.28") == {"w07", "w14", "w13"}
    assert _movers(url, "0.56") == {"w14"}
    assert _movers(url, "0.52") == {"w14", "w13"}
    assert _movers(url, "0.2800000000000000000000001") == {"w14", "w13"}  # a hair above 7/25
    assert _movers(url, "0.2799999999999999999999999") == {"w07", "w14", "w13"}
    assert _movers(url, "0") == set(BOUNDARY_PLAYERS)
    assert _movers(url, "1") == set()
    assert parse_share(0.28) == Fraction(7, 25)  # a float is read as the decimal it prints as


def test_min_win_share_through_http_and_shell(pg_url: str, start_server: Callable[..., LiveServer]) -> None:
    """The HTTP export (CSV and NDJSON) and ``treset admin export`` keep the players exactly on the threshold."""
    _boundary_db(pg_url)
    with session_factory(pg_url)() as session:
        _, admin = repos.create_admin(session=session, username="root", password="admin-pw")
        session.commit()
    server = start_server(pg_url)
    for share, wanted in (("0.28", {"w07", "w14", "w13"}), ("0.56", {"w14"}), ("0.5600001", set())):
        for fmt in ("csv", "ndjson"):
            r = local_http.get(f"{server.url}/api/admin/moves/export", params={"format": fmt, "min_win_share": share},
                          headers={"Authorization": f"Bearer {admin}"}, timeout=30)
            assert r.status_code == 200, r.text
            rows = (list(csv.DictReader(io.StringIO(r.text))) if fmt == "csv"
                    else [json.loads(x) for x in r.text.splitlines()])
            assert {row["username"] for row in rows} == wanted, (share, fmt)
        shell = run_module("treset.cli", ["admin", "export", "--format", "ndjson", "--min-win-share", share],
                           env={**os.environ, "DATABASE_URL": pg_url}, check=True)
        assert {json.loads(x)["username"] for x in shell.stdout.splitlines()} == wanted


def test_share_ceiling_against_brute_force() -> None:
    """The share used in SQL selects the same win counts as the exact share, for every games count."""
    rng = random.Random(26)
    for _ in range(300):
        max_den = rng.randrange(1, 60)
        share = Fraction(rng.randrange(0, 10**9 + 1), 10**9)
        q = share_ceiling(share, max_den)
        assert q.denominator <= max_den and q >= share
        for games in range(1, max_den + 1):
            for wins in range(games + 1):
                assert (wins * q.denominator >= q.numerator * games) == (Fraction(wins, games) >= share)
    assert share_ceiling(Fraction(7, 25)) == Fraction(7, 25)


# ----- validation -------------------------------------------------------------------------------

def test_bad_filters_answer_422_everywhere(pg_url: str, start_server: Callable[..., LiveServer]) -> None:
    """An unknown player, ``date_from`` after ``date_to`` or a share out of range: 422 with the reason, not an
    empty answer, from the export, the games search and the statistics; the shell export exits 2."""
    _boundary_db(pg_url)
    with session_factory(pg_url)() as session:
        _, admin = repos.create_admin(session=session, username="root", password="admin-pw")
        session.commit()
    server = start_server(pg_url)
    auth = {"Authorization": f"Bearer {admin}"}
    cases: list[tuple[str, dict[str, Any], str]] = []
    for path in ("/api/admin/moves/export", "/api/admin/games"):
        cases += [(path, {"player": "nobody"}, "no player 'nobody'"),
                  (path, {"date_from": "2026-05-02", "date_to": "2026-05-01"},
                   "date_from (2026-05-02) is after date_to (2026-05-01)"),
                  (path, {"date_from": "not-a-date"}, "date")]
    cases += [("/api/admin/moves/export", {"min_win_share": "1.5"}, "less than or equal to 1"),
              ("/api/admin/moves/export", {"min_win_share": "a lot"}, "decimal"),
              ("/api/admin/stats", {"days": 0}, "greater than or equal to 1")]
    for path, params, reason in cases:
        r = local_http.get(server.url + path, params=params, headers=auth)
        assert r.status_code == 422, (path, params, r.text)
        assert reason in r.text, (path, params, r.text)
    # The same filters that exist select normally.
    assert local_http.get(f"{server.url}/api/admin/moves/export", params={"player": "w07", "date_from": "2026-05-01",
                                                                      "date_to": "2026-05-01"},
                     headers=auth).status_code == 200
    env = {**os.environ, "DATABASE_URL": pg_url}
    for args, reason in ((["--player", "nobody"], "no player 'nobody'"),
                         (["--date-from", "2026-05-02", "--date-to", "2026-05-01"], "is after date_to"),
                         (["--min-win-share", "2"], "from 0 to 1")):
        shell = run_module("treset.cli", ["admin", "export", *args], env=env)
        assert shell.returncode == 2 and reason in shell.stderr and shell.stdout == "", (args, shell.stderr)
    with session_factory(pg_url)() as session, pytest.raises(FilterError):
        from server.store.admin_queries import GameFilters, search_games
        search_games(session, GameFilters(player="nobody"))


# ----- the outcome's context in the export and the views --------------------------------------------------

def _context_db(url: str) -> dict[str, int]:
    """Seeded games, a deal forfeited by timeout, a second deal at a table, and a live deal; return ids."""
    upgrade(url)
    with session_factory(url)() as session:
        generate(session, moves=800, players=5, seed=11, days=4)
        p0 = repos.ensure_user(session=session, username="seed-0001", role="player")
        p1 = repos.ensure_user(session=session, username="seed-0002", role="player")
        rng = random.Random(2)
        timeout = _logged_game(session, p0, p1, rng, moves=17, reason="timeout", deal_number=2, first_leader=1)
        second = _logged_game(session, p1, p0, rng, moves=40, reason="finished", deal_number=3, first_leader=0,
                              variant="kifameno")
        live = _logged_game(session, p0, p1, rng, moves=6, reason=None)
        session.commit()
        return {"timeout": timeout.id, "second": second.id, "live": live.id}


def _expected_context(url: str) -> dict[tuple[int, int], dict[str, Any]]:
    """Every move of a finished game with its context, computed by replaying the deal with the rules package."""
    out: dict[tuple[int, int], dict[str, Any]] = {}
    with session_factory(url)() as session:
        names = {u.id: u.username for u in session.query(User)}
        ratings = {(t.user_id, t.variant): t.rating for t in session.query(UserTotals)}
        for game in session.query(Game).filter(Game.status == "finished"):
            moves = session.query(Move).filter(Move.game_id == game.id).order_by(Move.move_number).all()
            deal = Deal.from_deck(game.deck, Variant(game.variant), game.first_leader)
            finals = (game.points0, game.points1)
            players = (game.player0_id, game.player1_id)
            for m in moves:
                opponent_score = sum(POINTS[c] for c in deal.won[1 - m.seat])
                assert opponent_score == deal.points[1 - m.seat]
                stock = len(deal.stock)
                trick = deal.play(m.card, m.seat)
                draws = dict(trick.draws) if trick is not None else {}
                out[(game.id, m.move_number)] = {
                    "username": names[m.user_id], "opponent": names[players[1 - m.seat]],
                    "opponent_score": opponent_score, "stock_size": stock,
                    "drawn_self": card_name(draws[m.seat]) if m.seat in draws else None,
                    "drawn_opponent": card_name(draws[1 - m.seat]) if 1 - m.seat in draws else None,
                    "deal_number": game.deal_number, "first_leader": game.first_leader,
                    "rating": ratings.get((m.user_id, game.variant)),
                    "opponent_rating": ratings.get((players[1 - m.seat], game.variant)),
                    "end_reason": game.end_reason, "final_score": finals[m.seat],
                    "final_opponent_score": finals[1 - m.seat], "margin": finals[m.seat] - finals[1 - m.seat],
                    "mover_won": game.winner_seat == m.seat,
                }
    return out


def _check_context(rows: list[dict[str, Any]], expected: dict[tuple[int, int], dict[str, Any]]) -> None:
    assert [(r["game_id"], r["move_number"]) for r in rows] == sorted(expected)
    for r in rows:
        want = expected[(r["game_id"], r["move_number"])]
        got = {k: (bool(r[k]) if k == "mover_won" else r[k]) for k in want}
        assert got == want, (r["game_id"], r["move_number"])


def test_export_and_views_carry_the_outcome_context(pg_url: str, start_server: Callable[..., LiveServer]) -> None:
    """Each new column equals the replayed deal in CSV, NDJSON, the shell export and ``moves_named``, the
    two formats agree value for value, and the live deal is in none of them."""
    ids = _context_db(pg_url)
    expected = _expected_context(pg_url)
    assert {k[0] for k in expected} >= {ids["timeout"], ids["second"]} and ids["live"] not in {k[0] for k in expected}
    assert any(e["drawn_self"] for e in expected.values()) and any(e["end_reason"] == "timeout"
                                                                  for e in expected.values())
    with session_factory(pg_url)() as session:
        _, admin = repos.create_admin(session=session, username="root", password="admin-pw")
        session.commit()
    server = start_server(pg_url)
    exports = {}
    for fmt in ("csv", "ndjson"):
        r = local_http.get(f"{server.url}/api/admin/moves/export", params={"format": fmt},
                      headers={"Authorization": f"Bearer {admin}"}, timeout=60)
        assert r.status_code == 200
        if fmt == "csv":
            reader = csv.DictReader(io.StringIO(r.text))
            assert tuple(reader.fieldnames or ()) == EXPORT_COLUMNS
            exports[fmt] = [typed_csv_row(row) for row in reader]
        else:
            exports[fmt] = [json.loads(x) for x in r.text.splitlines()]
    assert exports["csv"] == exports["ndjson"]
    _check_context(exports["ndjson"], expected)
    timeout_rows = [r for r in exports["ndjson"] if r["game_id"] == ids["timeout"]]
    assert len(timeout_rows) == 17 and timeout_rows[0]["final_score"] + timeout_rows[0]["final_opponent_score"] < 35
    with psycopg.connect(_conninfo(pg_url)) as conn:
        cur = conn.execute("SELECT * FROM moves_named ORDER BY game_id, move_number")
        columns = [d.name for d in cur.description or []]
        view = [dict(zip(columns, row, strict=True)) for row in cur.fetchall()]
    assert set(EXPORT_COLUMNS) - set(columns) == {"loss", "label", "best_card"}  # those are in move_analyses_named
    _check_context(view, expected)
    for v, e in zip(view, exports["ndjson"], strict=True):
        assert {k: v[k] for k in e if k in v and k != "created_at"} == {
            k: e[k] for k in e if k in v and k != "created_at"}


def test_sqlite_export_and_views_carry_the_outcome_context(sqlite_url: str) -> None:
    """On SQLite (json_extract and json_each instead of PostgreSQL's functions) the same values come out."""
    ids = _context_db(sqlite_url)
    expected = _expected_context(sqlite_url)
    with session_factory(sqlite_url)() as session:
        rows = list(export_rows(session, ExportFilters()))
        _check_context(rows, expected)
        view = [dict(r._mapping) for r in session.execute(text(
            "SELECT * FROM moves_named ORDER BY game_id, move_number"))]
        _check_context(view, expected)
        assert session.execute(text("SELECT count(*) FROM games_named WHERE id = :g"),
                               {"g": ids["live"]}).scalar() == 0
        assert session.execute(text("SELECT count(*) FROM finished_moves WHERE game_id = :g"),
                               {"g": ids["live"]}).scalar() == 0
