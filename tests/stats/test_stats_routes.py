"""Leaderboard, profiles and replays over HTTP against the real server and PostgreSQL."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable

from sqlalchemy import select

from server.store.models import Game
from server.store.ratings import Rating, after_game
from tests import local_http
from tests.conftest import ROOT, LiveServer
from tests.server.client import Client, guest_token, is_table, play_until_over
from tests.server.db import db_session
from tests.server.four import open_four, play_four
from tressette import Deal, Variant, parse_card


def _register(url: str, name: str) -> str:
    r = local_http.post(f"{url}/api/auth/register", json={"username": name, "password": "secret-pw"})
    r.raise_for_status()
    return str(r.json()["token"])


def test_leaderboard_profile_and_replay(pg_url: str, start_server: Callable[..., LiveServer]) -> None:
    """Two finished deals make the totals, the leaderboard order, the profile and exact replays."""
    server = start_server(pg_url)
    ta, tb, tc = (_register(server.url, n) for n in ("alba", "boris", "cene"))
    a, b = Client(server.ws_url, ta), Client(server.ws_url, tb)
    a.send({"type": "create_table", "variant": "kifameno"})
    table_id = a.wait_for(is_table)["table"]["id"]
    b.send({"type": "join_table", "table_id": table_id})
    winners = []
    for n in range(2):
        final = play_until_over(a, b, table_id, choose=lambda t: t["view"]["legal"][0])
        winners.append(final["table"]["players"][final["table"]["result"]["winner"]]["username"])
        if n == 0:
            a.send({"type": "rematch", "table_id": table_id})
            b.send({"type": "rematch", "table_id": table_id})
    # A third deal left unfinished is never exposed.
    a.send({"type": "rematch", "table_id": table_id})
    b.send({"type": "rematch", "table_id": table_id})
    a.wait_for(lambda m: is_table(m) and m["table"]["status"] == "playing")

    board = local_http.get(f"{server.url}/api/leaderboard", params={"variant": "kifameno", "min_games": 2}).json()
    names = [p["username"] for p in board["players"]]
    assert sorted(names) == ["alba", "boris"]
    shares = [p["win_share"] for p in board["players"]]
    assert shares == sorted(shares, reverse=True)
    assert sum(p["wins"] for p in board["players"]) == 2 and all(p["games"] == 2 for p in board["players"])
    assert {p["username"]: p["wins"] for p in board["players"]} == {n: winners.count(n) for n in ("alba", "boris")}
    assert local_http.get(f"{server.url}/api/leaderboard", params={"variant": "kifameno", "min_games": 3}).json()["players"] == []
    # Ratings: Glicko-2 from the start values over the two games in order (alba seat 0, boris seat 1).
    ra, rb = Rating(), Rating()
    for name in winners:
        ra, rb = after_game(ra, rb, 0 if name == "alba" else 1)
    rated = {p["username"]: (p["rating"], p["rd"]) for p in board["players"]}
    assert rated == {"alba": (round(ra.rating, 1), round(ra.rd, 1)), "boris": (round(rb.rating, 1), round(rb.rd, 1))}
    assert [p["username"] for p in board["players"]] == sorted(rated, key=lambda n: -rated[n][0])

    prof = local_http.get(f"{server.url}/api/players/alba").json()
    assert prof["totals"]["kifameno"]["games"] == 2 and len(prof["recent_games"]) == 2
    assert local_http.get(f"{server.url}/api/players/nobody").status_code == 404
    game_id = prof["recent_games"][0]["id"]

    auth = {"Authorization": f"Bearer {ta}"}
    replay = local_http.get(f"{server.url}/api/games/{game_id}/replay", headers=auth).json()
    deal = Deal.from_deck([parse_card(c) for c in replay["deck"]], Variant.KIFAMENO, replay["first_leader"])
    assert len(replay["moves"]) == 40
    for m in replay["moves"]:
        assert parse_card(m["card"]) in deal.legal_moves()
        assert {parse_card(c) for c in m["hand"]} == set(deal.hands[m["seat"]])
        deal.play(parse_card(m["card"]), m["seat"])
    assert list(deal.final_points()) == replay["points"] and sum(replay["points"]) == 35
    text = local_http.get(f"{server.url}/api/games/{game_id}/record.txt", headers=auth).text
    assert text.count("\n") == 23 and f"treset game {game_id}" in text and "result:" in text

    assert local_http.get(f"{server.url}/api/games/{game_id}/replay").status_code == 401
    # A finished game between people is public (as on Lichess): another player replays it, and their profile
    # says so; a private table's game stays its players' (and admins').
    other = {"Authorization": f"Bearer {tc}"}
    assert local_http.get(f"{server.url}/api/games/{game_id}/replay", headers=other).json()["id"] == game_id
    assert prof["recent_games"][0]["public"] is True and prof["recent_games"][0]["rated"] is True
    with db_session(pg_url) as s:
        game = s.get(Game, game_id)
        assert game is not None
        game.opponent = "invite"
        s.commit()
    assert local_http.get(f"{server.url}/api/games/{game_id}/replay", headers=other).status_code == 403
    assert local_http.get(f"{server.url}/api/games/{game_id}/replay", headers=auth).status_code == 200
    assert local_http.get(f"{server.url}/api/players/{prof['username']}").json()["recent_games"][0]["public"] is False
    unfinished = max(g["id"] for g in prof["recent_games"]) + 1
    assert local_http.get(f"{server.url}/api/games/{unfinished}/replay", headers=auth).status_code == 404
    admin = subprocess.run([sys.executable, "-m", "server.tools.bots", "admin", "root", "--password", "admin-pw"], cwd=ROOT,
                           env={**os.environ, "DATABASE_URL": pg_url}, capture_output=True, text=True, check=True)
    as_admin = {"Authorization": f"Bearer {admin.stdout.strip()}"}
    assert local_http.get(f"{server.url}/api/games/{game_id}/replay", headers=as_admin).json()["id"] == game_id


def test_profile_lists_a_four_player_deal(pg_url: str, start_server: Callable[..., LiveServer]) -> None:
    """A four-player deal played through the server is in each player's profile: partner, opponents, the
    partnership's score and result, the replay; the totals under ``partnership``; two-player entries unchanged."""
    server = start_server(pg_url)
    clients, table_id, users = open_four(server.url, server.ws_url, target=0)
    result = play_four(clients, table_id)["table"]["result"]
    names = [u["username"] for u in users]
    with db_session(pg_url) as s:
        game = s.scalars(select(Game).where(Game.table_id == table_id)).one()
        game_id = game.id
    for seat, name in enumerate(names):
        prof = local_http.get(f"{server.url}/api/players/{name}").json()
        side = seat % 2
        totals = prof["totals"]["partnership"]
        assert totals["games"] == 1 and totals["wins"] == int(result["winner"] == side)
        assert totals["points"] == result["score"][side] and isinstance(totals["rating"], float)
        [g] = prof["recent_games"]
        assert g == {"id": game_id, "game": "partnership", "variant": "partnership", "seat": seat,
                     "partner": names[(seat + 2) % 4], "opponents": [names[(seat + 1) % 4], names[(seat + 3) % 4]],
                     "score": result["score"][side], "opponent_score": result["score"][1 - side],
                     "won": result["winner"] == side, "draw": result["winner"] is None, "reason": "finished",
                     "match_id": None, "rated": True, "public": True, "ended_at": g["ended_at"]}
        assert g["ended_at"] is not None
    # The replay the profile links to is the four-player deal's.
    token = guest_token(server.url)[0]
    replay = local_http.get(f"{server.url}/api/games/{game_id}/replay",
                            headers={"Authorization": f"Bearer {token}"}).json()
    assert replay["game"] == "partnership" and replay["players"] == names and replay["score"] == result["score"]

    # A two-player game after it keeps its shape exactly; the newest comes first.
    tokens = [c.token for c in clients]
    for c in clients:
        c.close()
    a, b = Client(server.ws_url, tokens[0]), Client(server.ws_url, tokens[1])
    a.send({"type": "create_table", "variant": "tressette"})
    two_id = a.wait_for(lambda m: is_table(m) and m["table"]["status"] == "waiting")["table"]["id"]
    b.send({"type": "join_table", "table_id": two_id})
    final = play_until_over(a, b, two_id)["table"]
    a.close()
    b.close()
    recent = local_http.get(f"{server.url}/api/players/{names[0]}").json()["recent_games"]
    assert [g["id"] for g in recent][1] == game_id and recent[1]["game"] == "partnership"
    two = recent[0]
    assert set(two) == {"id", "variant", "opponent", "points", "opponent_points", "won", "reason", "match_id",
                        "rated", "public", "ended_at"}
    assert (two["variant"], two["opponent"], two["points"] + two["opponent_points"]) == ("tressette", names[1], 35)
    assert two["won"] == (final["result"]["winner"] == 0)
