"""Post-game analyses through the real server on PostgreSQL, with scripted analysis bots.

A finished game is queued, handed to a bot with a free analysis slot and stored; the HTTP
routes follow the replay's access rules; a re-run replaces the older analysis; a bot that
drops gives its job to another; a restart queues the unfinished jobs again; exports carry
the per-move figures.
"""

from __future__ import annotations

import csv
import io
import json
import time
from collections.abc import Callable
from typing import Any

import httpx
from sqlalchemy import func, select

from server.store.models import Analysis, Game, Move, MoveAnalysis
from tests import local_http
from tests.conftest import LiveServer
from tests.server.analysis_bot import AnalysisBot, label_of
from tests.server.client import Client, guest_token, is_table, open_pair, play_until_over
from tests.server.db import admin_token, db_session
from tressette import card_name

BOT_TOKEN = "analysis-bot-token-1"


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _play_game(server: LiveServer) -> tuple[int, Client, Client]:
    """Two guests play a Tressette deal to its end; return the game's id and both clients."""
    a, b, table_id = open_pair(server.url, server.ws_url)
    final = play_until_over(a, b, table_id)
    assert final["table"]["result"]["reason"] == "finished"
    with db_session(server.db_url) as s:
        game_id = s.scalar(select(Game.id).where(Game.table_id == final["table"]["id"]).order_by(Game.id.desc()))
    assert game_id is not None
    return game_id, a, b


def _analysis(server: LiveServer, game_id: int, token: str) -> httpx.Response:
    return local_http.get(f"{server.url}/api/games/{game_id}/analysis", headers=_auth(token), timeout=10)


def _wait_done(server: LiveServer, game_id: int, token: str, version: str) -> dict[str, Any]:
    end = time.time() + 15
    while time.time() < end:
        r = _analysis(server, game_id, token)
        if r.status_code == 200 and r.json().get("version") == version:
            return dict(r.json())
        time.sleep(0.1)
    raise AssertionError(f"no analysis {version} for game {game_id}: {r.status_code} {r.text[:300]}")


def test_queue_bot_store_access_rerun_and_exports(pg_url: str, start_server: Callable[..., LiveServer]) -> None:
    """A finished game waits for a bot, is analysed, served to its players and admins only, re-run, exported."""
    server = start_server(pg_url, TRESET_BOT_TOKEN=BOT_TOKEN)
    game_id, a, _ = _play_game(server)
    other, _ = guest_token(server.url)
    admin = admin_token(pg_url)

    # Queued: no analysis bot yet, so the page can say it waits for one.
    r = _analysis(server, game_id, a.token)
    assert r.status_code == 202 and r.json() == {"status": "queued", "position": 1, "bots": 0}
    # Access: as the replay (401 without a token; a finished public game's analysis is anyone's who signed in;
    # 404 unknown or in progress; 422 out of range).
    assert local_http.get(f"{server.url}/api/games/{game_id}/analysis").status_code == 401
    assert _analysis(server, game_id, other).status_code == 202
    for bad, status in ((game_id + 1000, 404), (2**31, 422), (2**63, 422), (2**70, 422), (-1, 422), (0, 422)):
        assert _analysis(server, bad, a.token).status_code == status, bad
        assert local_http.post(f"{server.url}/api/games/{bad}/analysis", headers=_auth(a.token)).status_code == status
    c, d, _ = open_pair(server.url, server.ws_url)  # a deal in progress is never exposed
    c.wait_for(lambda m: is_table(m) and m["table"]["status"] == "playing")
    with db_session(pg_url) as s:
        live = s.scalar(select(Game.id).where(Game.status == "playing"))
    assert _analysis(server, live, c.token).status_code == 404
    assert _analysis(server, game_id, admin).status_code == 202

    # A bot with an analysis slot gets the job: the game's record, then it runs.
    bot = AnalysisBot(server, BOT_TOKEN, slots=1)
    job = bot.job()
    record = job["record"]
    assert job["game_id"] == game_id and len(record["deck"]) == 40 and len(record["moves"]) == 40
    with db_session(pg_url) as s:
        game = s.get(Game, game_id)
        assert game is not None and record["deck"] == [card_name(c) for c in game.deck]
        played = list(s.scalars(select(Move).where(Move.game_id == game_id).order_by(Move.move_number)))
        assert [m["card"] for m in record["moves"]] == [card_name(m.card) for m in played]
        assert record["first_leader"] == game.first_leader
    r = _analysis(server, game_id, a.token)
    assert r.status_code == 202 and r.json() == {"status": "running", "position": 0, "bots": 1}
    assert local_http.get(f"{server.url}/healthz").json()["analysis_running"] == 1

    bot.answer(job, version="1.0")
    body = _wait_done(server, game_id, a.token, "1.0")
    assert body["status"] == "done" and len(body["moves"]) == 40 and len(body["players"]) == 2
    assert _analysis(server, game_id, admin).status_code == 200
    with db_session(pg_url) as s:
        rows = list(s.scalars(select(MoveAnalysis).where(MoveAnalysis.game_id == game_id)
                              .order_by(MoveAnalysis.move_number)))
        assert [r.move_number for r in rows] == list(range(40))
        assert [r.label for r in rows] == [m["label"] for m in body["moves"]]
        assert all(r.label == label_of(r.loss) for r in rows)
        row = s.get(Analysis, game_id)
        assert row is not None and row.accuracy0 == body["players"][0]["accuracy"]

    # The profile shows the average accuracy per variant.
    me = local_http.get(f"{server.url}/api/me", headers=_auth(a.token)).json()
    with db_session(pg_url) as s:
        game = s.get(Game, game_id)
        assert game is not None
        seat = 0 if game.player0_id == me["id"] else 1
    totals = local_http.get(f"{server.url}/api/players/{me['username']}").json()["totals"]["tressette"]
    assert totals["analysed"] == 1 and totals["accuracy"] == round(body["players"][seat]["accuracy"], 1)

    # Admins: the per-move figures in both export formats (empty for the unanalysed), status in game search.
    csv_text = local_http.get(f"{server.url}/api/admin/moves/export", params={"format": "csv"},
                         headers=_auth(admin)).text
    exported = [r for r in csv.DictReader(io.StringIO(csv_text)) if int(r["game_id"]) == game_id]
    assert [float(r["loss"]) for r in exported] == [m["loss"] for m in body["moves"]]
    assert [r["label"] for r in exported] == [m["label"] for m in body["moves"]]
    assert [r["best_card"] for r in exported] == [m["best"] for m in body["moves"]]
    nd = local_http.get(f"{server.url}/api/admin/moves/export", params={"format": "ndjson"}, headers=_auth(admin))
    lines = [json.loads(x) for x in nd.text.splitlines()]
    assert [x["loss"] for x in lines if x["game_id"] == game_id] == [m["loss"] for m in body["moves"]]
    found = local_http.get(f"{server.url}/api/admin/games", params={"analysis": "done"}, headers=_auth(admin)).json()
    assert [g["id"] for g in found["games"]] == [game_id] and found["games"][0]["analysis"] == "done"

    # A second game analysed by a newer version makes the first one outdated: its player may re-run it.
    game2, a2, _ = _play_game(server)
    bot.answer(bot.job(), version="1.1")
    _wait_done(server, game2, a2.token, "1.1")
    assert _analysis(server, game_id, a.token).json()["outdated"] is True
    r = local_http.post(f"{server.url}/api/games/{game2}/analysis", headers=_auth(a2.token))
    assert r.status_code == 200 and r.json() == {"status": "done", "version": "1.1", "outdated": False}
    assert local_http.post(f"{server.url}/api/games/{game2}/analysis?force=true",
                      headers=_auth(a2.token)).status_code == 403
    r = local_http.post(f"{server.url}/api/games/{game_id}/analysis", headers=_auth(a.token))
    assert r.status_code == 202 and r.json()["status"] in ("queued", "running")
    bot.answer(bot.job(), version="1.1", spread=4)
    again = _wait_done(server, game_id, a.token, "1.1")
    # An admin forces a re-run of a current one; the new analysis replaces the old (one row per game).
    r = local_http.post(f"{server.url}/api/games/{game_id}/analysis", params={"force": "true"}, headers=_auth(admin))
    assert r.status_code == 202
    bot.answer(bot.job(), version="1.2", spread=6)
    third = _wait_done(server, game_id, a.token, "1.2")
    assert third["moves"] != again["moves"]
    with db_session(pg_url) as s:
        assert s.scalar(select(func.count()).select_from(Analysis).where(Analysis.game_id == game_id)) == 1
        labels = list(s.scalars(select(MoveAnalysis.label).where(MoveAnalysis.game_id == game_id)
                                .order_by(MoveAnalysis.move_number)))
        assert labels == [m["label"] for m in third["moves"]]
        assert s.scalar(select(func.count()).select_from(MoveAnalysis)) == 80


def test_lost_bot_errors_stale_answers_and_restart(pg_url: str, start_server: Callable[..., LiveServer]) -> None:
    """A dropped bot's job goes to another; stale answers are ignored; errors fail; a restart requeues."""
    server = start_server(pg_url, TRESET_BOT_TOKEN=BOT_TOKEN)
    guest, _ = guest_token(server.url)
    person = Client(server.ws_url, guest)
    person.recv()
    # Only bots analyse; a bot serves something.
    person.send({"type": "analysis", "job": "x", "game_id": 1, "version": "1", "error": "no"})
    assert person.error()["code"] == "bad_message"
    probe = Client(server.ws_url, BOT_TOKEN)
    probe.recv()
    probe.send({"type": "bot_hello", "levels": [], "capacity": 0})
    assert probe.error()["code"] == "bad_message"
    probe.close()

    first = AnalysisBot(server, BOT_TOKEN, slots=1)
    game_id, a, _ = _play_game(server)
    lost_job = first.job()
    second = AnalysisBot(server, BOT_TOKEN, slots=1)
    first.close()
    job = second.job()
    assert job["game_id"] == game_id and job["job"] != lost_job["job"]
    second.answer(lost_job)  # the dropped bot's job id: stale, ignored
    time.sleep(0.5)
    assert _analysis(server, game_id, a.token).status_code == 202
    second.answer(job)
    _wait_done(server, game_id, a.token, "test-1")

    # An error answer fails the job; its player may ask again.
    game2, a2, _ = _play_game(server)
    job2 = second.job()
    second.client.send({"type": "analysis", "job": job2["job"], "game_id": game2, "version": "x",
                        "error": "the search ran out of memory"})
    end = time.time() + 10
    while _analysis(server, game2, a2.token).json()["status"] != "failed" and time.time() < end:
        time.sleep(0.1)
    assert _analysis(server, game2, a2.token).json() == {"status": "failed", "error": "the search ran out of memory",
                                                         "bots": 1}
    assert local_http.post(f"{server.url}/api/games/{game2}/analysis", headers=_auth(a2.token)).status_code == 202
    running = second.job()  # game2 again, now held by ``second`` while the server dies
    assert running["game_id"] == game2
    game3, a3, _ = _play_game(server)  # waits: the only slot is taken
    r = _analysis(server, game3, a3.token)
    assert r.status_code == 202 and r.json() == {"status": "queued", "position": 1, "bots": 1}

    server.kill()
    second.close()
    again = start_server(pg_url, port=server.port, TRESET_BOT_TOKEN=BOT_TOKEN)
    with db_session(pg_url) as s:
        assert {r.game_id: r.status for r in s.scalars(select(Analysis))} == {
            game_id: "done", game2: "queued", game3: "queued"}
    r = _analysis(again, game3, a3.token)
    assert r.status_code == 202 and r.json() == {"status": "queued", "position": 2, "bots": 0}
    third = AnalysisBot(again, BOT_TOKEN, slots=2)
    jobs = [third.job(), third.job()]
    assert [j["game_id"] for j in jobs] == [game2, game3]
    for j in jobs:
        third.answer(j, version="test-2")
    _wait_done(again, game2, a2.token, "test-2")
    _wait_done(again, game3, a3.token, "test-2")


def test_a_stuck_bot_loses_the_job_and_it_fails_after_three_tries(pg_url: str,
                                                                  start_server: Callable[..., LiveServer]) -> None:
    """A job held past TRESET_ANALYSIS_TIMEOUT_S goes back to the queue; the third time it fails."""
    server = start_server(pg_url, TRESET_BOT_TOKEN=BOT_TOKEN, TRESET_ANALYSIS_TIMEOUT_S="1")
    bot = AnalysisBot(server, BOT_TOKEN, slots=1)
    game_id, a, _ = _play_game(server)
    jobs = [bot.job(timeout=10) for _ in range(3)]  # the same game each time, a new job id each time
    assert {j["game_id"] for j in jobs} == {game_id} and len({j["job"] for j in jobs}) == 3
    end = time.time() + 10
    while _analysis(server, game_id, a.token).json()["status"] != "failed" and time.time() < end:
        time.sleep(0.2)
    body = _analysis(server, game_id, a.token).json()
    assert body["status"] == "failed" and "took too long 3 times" in body["error"]
    bot.answer(jobs[-1])  # too late: ignored
    time.sleep(0.5)
    assert _analysis(server, game_id, a.token).json()["status"] == "failed"
