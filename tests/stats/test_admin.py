"""The admins' move database on real PostgreSQL: access control, exports, search, aggregates, SQL role.

Expected answers are computed here from the raw tables with plain SQL and Python, not with
the server's query code.
"""

from __future__ import annotations

import csv
import io
import json
import os
import uuid
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from fractions import Fraction
from typing import Any

import psycopg
import pytest
from sqlalchemy.engine import make_url

from server.store import repos
from server.store.db import session_factory, upgrade
from server.store.models import Game, Move
from server.tools.seed import generate
from tests import local_http
from tests.conftest import ROOT, LiveServer
from tests.forkserver import run_module
from tests.server.client import guest_token
from tressette import card_name

ADMIN_ROUTES = [("GET", "/api/admin/games", None), ("GET", "/api/admin/moves/export", None),
                ("GET", "/api/admin/stats", None),
                ("POST", "/api/admin/bot-series", {"level_a": "easy", "level_b": "easy", "games": 1})]


def _conninfo(url: str) -> str:
    u = make_url(url)
    return f"host={u.host} port={u.port or 5432} user={u.username} dbname={u.database}"


def _seeded(pg_url: str) -> dict[str, Any]:
    """Seed a database with generated games, one bot game and one unfinished game; return tokens."""
    upgrade(pg_url)
    with session_factory(pg_url)() as session:
        generate(session, moves=4000, players=12, seed=3, days=20)
        bot = repos.ensure_user(session=session, username="bot-easy", role="bot")
        human = repos.get_user_by_name(session=session, username="seed-0002")
        assert human is not None
        for winner in (0, 0, 1):  # the bot (seat 0) wins two of three
            g = repos.create_game(session=session, game=Game(
                table_id="t-bot", variant="tressette", opponent="bot", player0_id=bot.id, player1_id=human.id,
                bot_level="easy", first_leader=0, deck=list(range(40)), status="playing"))
            repos.finish_game(session=session, game_id=g.id, points=(20, 15) if winner == 0 else (15, 20),
                              winner=winner, reason="finished", moves=0)
            assert repos.apply_totals(session=session, game_id=g.id)
        playing = repos.create_game(session=session, game=Game(
            table_id="t-live", variant="tressette", opponent="anyone", player0_id=human.id, player1_id=bot.id,
            first_leader=0, deck=list(range(40)), status="playing"))
        repos.add_move(session=session, move=Move(
            game_id=playing.id, user_id=human.id, seat=0, move_number=1, trick_number=0, variant="tressette",
            hand=list(range(10)), opponent_known=[], table_cards=[], won_self=[], won_opponent=[], card=0,
            first_card=None, score=0))
        _, admin_token = repos.create_admin(session=session, username="root", password="admin-pw")
        player = repos.create_user(session=session, username="pia", password="player-pw")
        player_token = repos.issue_token(session=session, user=player)
        bot_token = repos.create_bot_token(session=session, username="bot")
        session.commit()
    return {"admin": admin_token, "player": player_token, "bot": bot_token, "live_game": playing.id}


def _raw_moves(pg_url: str) -> list[dict[str, Any]]:
    """Every move with its game, mover and the mover's totals, straight from the tables."""
    with psycopg.connect(_conninfo(pg_url)) as conn:
        cur = conn.execute("""
            SELECT m.game_id, m.move_number, m.trick_number, m.variant, u.username, m.seat, m.hand, m.opponent_known,
                   m.table_cards, m.won_self, m.won_opponent, m.card, m.first_card, m.score, g.winner_seat,
                   g.status, m.created_at, t.games, t.wins, t.rating
            FROM moves m JOIN games g ON g.id = m.game_id JOIN users u ON u.id = m.user_id
            LEFT JOIN user_totals t ON t.user_id = m.user_id AND t.variant = m.variant""")
        names = [d.name for d in cur.description or []]
        return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]


def _export(server: LiveServer, token: str, fmt: str, **params: Any) -> list[dict[str, Any]]:
    r = local_http.get(f"{server.url}/api/admin/moves/export", params={"format": fmt, **params},
                  headers={"Authorization": f"Bearer {token}"}, timeout=60)
    assert r.status_code == 200, r.text
    assert "attachment" in r.headers["content-disposition"]
    if fmt == "ndjson":
        return [json.loads(line) for line in r.text.splitlines()]
    return [typed_csv_row(row) for row in csv.DictReader(io.StringIO(r.text))]


CSV_LISTS = ("hand", "opponent_known", "table_cards", "won_self", "won_opponent")
CSV_INTS = ("game_id", "move_number", "trick_number", "seat", "score", "opponent_score", "stock_size", "deal_number",
            "first_leader", "final_score", "final_opponent_score", "margin")
CSV_FLOATS = ("rating", "opponent_rating", "loss")


def typed_csv_row(row: dict[str, str]) -> dict[str, Any]:
    """Return a CSV export row with the NDJSON's types (lists, ints, floats, booleans, None for empty)."""
    typed: dict[str, Any] = {k: (v if v != "" else None) for k, v in row.items()}
    for key in CSV_LISTS:
        typed[key] = row[key].split(";") if row[key] else []
    for key in CSV_INTS:
        typed[key] = int(row[key]) if row[key] != "" else None
    for key in CSV_FLOATS:
        typed[key] = float(row[key]) if row[key] != "" else None
    typed["mover_won"] = row["mover_won"] == "1"
    return typed


def test_admin_routes_refuse_everyone_but_admins(pg_url: str, start_server: Callable[..., LiveServer]) -> None:
    """Anonymous callers get 401; a player, a guest and a bot get 403; an admin gets through."""
    tokens = _seeded(pg_url)
    server = start_server(pg_url)
    guest, _ = guest_token(server.url)
    for method, path, body in ADMIN_ROUTES:
        assert local_http.request(method, server.url + path, json=body).status_code == 401, path
        for who, token in (("player", tokens["player"]), ("guest", guest), ("bot", tokens["bot"])):
            r = local_http.request(method, server.url + path, json=body, headers={"Authorization": f"Bearer {token}"})
            assert r.status_code == 403, (who, path, r.status_code)
        bad = local_http.request(method, server.url + path, json=body, headers={"Authorization": "Bearer not-a-token"})
        assert bad.status_code == 401
    admin = {"Authorization": f"Bearer {tokens['admin']}"}
    assert local_http.get(f"{server.url}/api/admin/stats", headers=admin).status_code == 200
    # Bad filters are refused with a reason and no rows.
    assert local_http.get(f"{server.url}/api/admin/moves/export", params={"min_win_share": 2}, headers=admin).status_code == 422
    assert local_http.get(f"{server.url}/api/admin/games", params={"result": "won"}, headers=admin).status_code == 422
    assert local_http.get(f"{server.url}/api/admin/games", params={"date_from": "yesterday"}, headers=admin).status_code == 422




def test_exports_hold_exactly_the_filtered_moves(pg_url: str, start_server: Callable[..., LiveServer]) -> None:
    """CSV and NDJSON exports equal a plain-SQL selection for each filter, field by field."""
    tokens = _seeded(pg_url)
    server = start_server(pg_url)
    raw = _raw_moves(pg_url)
    days = sorted({m["created_at"].date() for m in raw})
    mid_from, mid_to = days[len(days) // 3], days[2 * len(days) // 3]
    # Thresholds taken from the data, so each boundary (>=) is met exactly by some mover.
    movers = sorted({(m["games"], m["wins"], m["rating"]) for m in raw if m["variant"] == "tressette"})
    games_cut, wins_at_cut, _ = movers[len(movers) // 2]
    rating_cut = sorted(m[2] for m in movers)[len(movers) // 2]
    filters: list[dict[str, Any]] = [
        {},
        {"variant": "kifameno"},
        {"player": "seed-0001", "variant": "tressette"},
        {"min_games": games_cut, "variant": "tressette"},
        {"min_win_share": repr(wins_at_cut / games_cut), "min_games": 1},
        {"min_win_share": str(Decimal(wins_at_cut) / Decimal(games_cut)), "min_games": 1},
        {"min_rating": repr(rating_cut)},
        {"date_from": mid_from.isoformat(), "date_to": mid_to.isoformat(), "variant": "tressette"},
    ]
    for f in filters:
        def wanted(m: dict[str, Any], f: dict[str, Any] = f) -> bool:
            day = m["created_at"].astimezone(UTC).date()
            return (m["status"] == "finished"
                    and m["variant"] == f.get("variant", m["variant"])
                    and m["username"] == f.get("player", m["username"])
                    and day >= date.fromisoformat(f.get("date_from", "1970-01-01"))
                    and day <= date.fromisoformat(f.get("date_to", "2999-01-01"))
                    and m["games"] >= f.get("min_games", 0)
                    # Exactly, in rationals: the decimal string as written, not its binary float.
                    and (m["games"] > 0 and m["wins"] >= Fraction(f["min_win_share"]) * m["games"]
                         if "min_win_share" in f else True)
                    and m["rating"] >= float(f.get("min_rating", -1e9)))
        expected = sorted((m for m in raw if wanted(m)), key=lambda m: (m["game_id"], m["move_number"]))
        assert expected, f  # the seeded data gives every filter something to find
        exports = {fmt: _export(server, tokens["admin"], fmt, **f) for fmt in ("csv", "ndjson")}
        assert exports["csv"] == exports["ndjson"], f  # the two formats hold the same values
        for fmt, got in exports.items():
            assert [(r["game_id"], r["move_number"]) for r in got] == [
                (m["game_id"], m["move_number"]) for m in expected], (f, fmt)
            for r, m in zip(got, expected, strict=True):
                assert r["username"] == m["username"] and r["seat"] == m["seat"] and r["score"] == m["score"]
                assert r["hand"] == [card_name(c) for c in m["hand"]]
                assert r["opponent_known"] == [card_name(c) for c in m["opponent_known"]]
                assert r["table_cards"] == [card_name(c) for c in m["table_cards"]]
                assert r["won_self"] == [card_name(c) for c in m["won_self"]]
                assert r["won_opponent"] == [card_name(c) for c in m["won_opponent"]]
                assert r["card"] == card_name(m["card"])
                assert r["first_card"] == (card_name(m["first_card"]) if m["first_card"] is not None else None)
                assert r["mover_won"] == (m["winner_seat"] == m["seat"])
                assert datetime.fromisoformat(r["created_at"]) == m["created_at"]
    assert all(m["game_id"] != tokens["live_game"] for m in _export(server, tokens["admin"], "ndjson"))

    # The shell command writes the same rows.
    out = ROOT / "test-artifacts" / f"export-{uuid.uuid4().hex[:6]}.ndjson"
    out.parent.mkdir(exist_ok=True)
    run_module("treset.cli", ["admin", "export", "--format", "ndjson", "--out", str(out), "--variant", "kifameno"],
               env={**os.environ, "DATABASE_URL": pg_url}, check=True)
    shell_rows = [json.loads(line) for line in out.read_text().splitlines()]
    out.unlink()
    assert shell_rows == _export(server, tokens["admin"], "ndjson", variant="kifameno")


def test_game_search_and_aggregates(pg_url: str, start_server: Callable[..., LiveServer]) -> None:
    """Game search filters and the aggregate statistics equal what the tables say."""
    tokens = _seeded(pg_url)
    server = start_server(pg_url)
    admin = {"Authorization": f"Bearer {tokens['admin']}"}
    with psycopg.connect(_conninfo(pg_url)) as conn:
        games = conn.execute("""SELECT g.id, g.variant, u0.username, u1.username, g.winner_seat, g.status,
                                       g.started_at, g.ended_at, g.points0, g.points1, g.end_reason, g.bot_level
                                FROM games g JOIN users u0 ON u0.id = g.player0_id
                                JOIN users u1 ON u1.id = g.player1_id""").fetchall()
    finished = [g for g in games if g[5] == "finished"]

    def search(**params: Any) -> list[int]:
        r = local_http.get(f"{server.url}/api/admin/games", params={"limit": 500, **params}, headers=admin)
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["total"] == len(body["games"])
        return [g["id"] for g in body["games"]]

    assert search() == sorted((g[0] for g in finished), reverse=True)
    won = [g[0] for g in finished if (g[2] == "seed-0003" and g[4] == 0) or (g[3] == "seed-0003" and g[4] == 1)]
    lost = [g[0] for g in finished if "seed-0003" in (g[2], g[3]) and g[0] not in won]
    assert won and lost
    assert search(player="seed-0003", result="won") == sorted(won, reverse=True)
    assert search(player="seed-0003", result="lost") == sorted(lost, reverse=True)
    assert search(variant="kifameno") == sorted((g[0] for g in finished if g[1] == "kifameno"), reverse=True)
    assert search(bot_level="easy") == sorted((g[0] for g in finished if g[11] == "easy"), reverse=True)
    assert search(status="playing") == [tokens["live_game"]]
    day = sorted(g[6].date() for g in finished)[len(finished) // 2]
    assert search(date_from=day.isoformat(), date_to=day.isoformat()) == sorted(
        (g[0] for g in finished if g[6].astimezone(UTC).date() == day), reverse=True)
    page = local_http.get(f"{server.url}/api/admin/games", params={"limit": 5, "offset": 5}, headers=admin).json()
    assert page["total"] == len(finished) and [g["id"] for g in page["games"]] == search()[5:10]

    stats = local_http.get(f"{server.url}/api/admin/stats", params={"days": 30}, headers=admin).json()
    since = datetime.now(UTC).date() - timedelta(days=29)
    per_day: dict[tuple[str, str], int] = {}
    for g in finished:
        d = g[7].astimezone(UTC).date()
        if d >= since:
            per_day[(d.isoformat(), g[1])] = per_day.get((d.isoformat(), g[1]), 0) + 1
    assert {(r["day"], r["variant"]): r["games"] for r in stats["games_per_day"]} == per_day
    for row in stats["points_by_variant"]:
        mine = [g for g in finished if g[1] == row["variant"] and g[10] == "finished"]
        assert row["games"] == len(mine)
        winner_points = [g[8] if g[4] == 0 else g[9] for g in mine]
        assert row["avg_winner_points"] == pytest.approx(sum(winner_points) / len(mine), abs=0.01)
        assert row["avg_winner_points"] + row["avg_loser_points"] == pytest.approx(35, abs=0.02)
    assert stats["bot_win_rates"] == [{"level": "easy", "variant": "tressette", "opponents": "people", "games": 3,
                                       "wins": 2, "win_share": round(2 / 3, 4)}]


def test_ratings_and_leaderboard_follow_the_games(pg_url: str, start_server: Callable[..., LiveServer]) -> None:
    """Stored ratings equal Glicko-2 replayed over the games in order; the leaderboard sorts by them."""
    from server.store.ratings import Rating, after_game

    _seeded(pg_url)
    server = start_server(pg_url)
    with psycopg.connect(_conninfo(pg_url)) as conn:
        games = conn.execute("SELECT variant, player0_id, player1_id, winner_seat FROM games "
                             "WHERE status = 'finished' ORDER BY id").fetchall()
        stored = {(u, v): (g, w, r, rd) for u, v, g, w, r, rd in conn.execute(
            "SELECT user_id, variant, games, wins, rating, rating_rd FROM user_totals").fetchall()}
    ratings: dict[tuple[int, str], Rating] = {}
    counts: dict[tuple[int, str], list[int]] = {}
    for variant, p0, p1, winner in games:
        a, b = ratings.get((p0, variant), Rating()), ratings.get((p1, variant), Rating())
        ratings[(p0, variant)], ratings[(p1, variant)] = after_game(a, b, winner)
        for seat, uid in enumerate((p0, p1)):
            c = counts.setdefault((uid, variant), [0, 0])
            c[0] += 1
            c[1] += int(winner == seat)
    for key, (n, wins, rating, rd) in stored.items():
        if n:
            assert [n, wins] == counts[key]
            assert rating == pytest.approx(ratings[key].rating, abs=1e-6) and rd == pytest.approx(ratings[key].rd)
    board = local_http.get(f"{server.url}/api/leaderboard", params={"variant": "tressette", "min_games": 5}).json()
    shown = board["players"]
    assert shown and [p["rating"] for p in shown] == sorted((p["rating"] for p in shown), reverse=True)
    assert all(p["games"] >= 5 for p in shown)
    by_share = local_http.get(f"{server.url}/api/leaderboard",
                         params={"variant": "tressette", "min_games": 5, "order": "win_share"}).json()["players"]
    assert [p["win_share"] for p in by_share] == sorted((p["win_share"] for p in by_share), reverse=True)
    profile = local_http.get(f"{server.url}/api/players/seed-0001").json()
    assert profile["totals"]["tressette"]["rating"] == round(ratings[(_uid(pg_url, "seed-0001"), "tressette")].rating, 1)


def _uid(pg_url: str, name: str) -> int:
    with psycopg.connect(_conninfo(pg_url)) as conn:
        row = conn.execute("SELECT id FROM users WHERE username = %s", (name,)).fetchone()
        assert row is not None
        return int(row[0])


def test_read_only_role_reads_views_and_cannot_write(pg_url: str) -> None:
    """A login made by ``treset admin readonly-user`` reads games and named views but writes nothing."""
    _seeded(pg_url)
    name = f"ro_{uuid.uuid4().hex[:8]}"
    made = run_module("treset.cli", ["admin", "readonly-user", name, "--password", "pw"],
                      env={**os.environ, "DATABASE_URL": pg_url})
    assert made.returncode == 0, made.stderr
    assert make_url(made.stdout.strip()).username == name
    try:
        ro = f"{_conninfo(pg_url).replace('user=', 'olduser=')} user={name} password=pw"
        ro = " ".join(p for p in ro.split() if not p.startswith("olduser="))
        with psycopg.connect(ro, autocommit=True) as conn:
            named = conn.execute("SELECT card, hand, mover_won FROM moves_named ORDER BY id LIMIT 1").fetchone()
            assert named is not None and isinstance(named[1], list) and " " in named[0]
            assert conn.execute("SELECT count(*) FROM finished_moves").fetchone() == conn.execute(
                "SELECT count(*) FROM moves_named").fetchone()
            assert conn.execute("SELECT count(*) FROM games_named WHERE winner IS NOT NULL").fetchone()[0] > 0  # type: ignore[index]
            assert conn.execute("SELECT username FROM users LIMIT 1").fetchone() is not None
            with pytest.raises(psycopg.errors.ReadOnlySqlTransaction):  # the login's default
                conn.execute("DELETE FROM moves")
            conn.execute("SET default_transaction_read_only = off")  # a user may lift that; the grants hold
            for statement in ("INSERT INTO cards VALUES (99, 'X', 'X', 'X', 0, 0)", "DELETE FROM moves",
                              "UPDATE user_totals SET wins = 0", "SELECT password_hash FROM users",
                              "SELECT * FROM auth_tokens", "DROP VIEW moves_named", "CREATE TABLE t (x int)",
                              "SELECT * FROM moves", "SELECT deck FROM games", "SELECT * FROM analyses",
                              "SELECT * FROM move_analyses"):  # the raw tables hold live games
                with pytest.raises(psycopg.errors.InsufficientPrivilege):
                    conn.execute(statement)
    finally:
        with psycopg.connect(_conninfo(pg_url), autocommit=True) as conn:
            conn.execute(f'DROP ROLE IF EXISTS "{name}"')
