"""A four-player deal's analysis through the real server on PostgreSQL: queued, handed out, stored, exported.

Four guests play a deal; its analysis is queued at once (a deal with persons), handed to an analysis
bot with the four-player record, answered with the agent's own double-dummy analysis
(:func:`agent.partnership.analysis.analyse`, run here), stored per move, served with the replay's access
rules and written into the four-player export.
"""

from __future__ import annotations

import csv
import io
import time
from collections.abc import Callable
from typing import Any

from sqlalchemy import select

from agent.partnership.analysis import analyse
from server.store.analyses import bot_games, queue_position
from server.store.models import Analysis, Game, Move, MoveAnalysis
from tests import local_http
from tests.conftest import LiveServer
from tests.server.analysis_bot import AnalysisBot
from tests.server.client import guest_token
from tests.server.db import admin_token, db_session
from tests.server.four import open_four, play_four
from tressette import card_name

BOT_TOKEN = "analysis-bot-token-4"


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _wait_done(server: LiveServer, game_id: int, token: str) -> dict[str, Any]:
    end = time.time() + 30
    while time.time() < end:
        r = local_http.get(f"{server.url}/api/games/{game_id}/analysis", headers=_auth(token), timeout=10)
        if r.status_code == 200 and r.json()["status"] == "done":
            return dict(r.json())
        time.sleep(0.1)
    raise AssertionError(f"no analysis for game {game_id}: {r.status_code} {r.text[:300]}")


def test_four_player_deal_is_queued_analysed_stored_and_exported(pg_url: str,
                                                                  start_server: Callable[..., LiveServer]) -> None:
    """The whole path of a four-player analysis, with the agent's real values."""
    server = start_server(pg_url, TRESET_BOT_TOKEN=BOT_TOKEN)
    clients, table_id, users = open_four(server.url, server.ws_url, target=31)
    play_four(clients, table_id)
    with db_session(pg_url) as s:
        game_id = s.scalar(select(Game.id).where(Game.table_id == table_id, Game.n_players == 4))
        assert game_id is not None
        # Persons played it: it is no bot game and waits first in line.
        assert bot_games(s, [game_id]) == set() and queue_position(s, game_id) == 1
    token = clients[2].token
    r = local_http.get(f"{server.url}/api/games/{game_id}/analysis", headers=_auth(token), timeout=10)
    assert r.status_code == 202 and r.json() == {"status": "queued", "position": 1, "bots": 0}
    assert local_http.get(f"{server.url}/api/games/{game_id}/analysis").status_code == 401

    bot = AnalysisBot(server, BOT_TOKEN, slots=1)
    job = bot.job()
    record = job["record"]
    assert job["game_id"] == game_id and record["game"] == "partnership" and record["variant"] == "partnership"
    with db_session(pg_url) as s:
        game = s.get(Game, game_id)
        assert game is not None and record["deck"] == [card_name(c) for c in game.deck]
        assert record["first_leader"] == game.first_leader
        played = list(s.scalars(select(Move).where(Move.game_id == game_id).order_by(Move.move_number)))
        assert [(m["seat"], m["card"], m["declarations"]) for m in record["moves"]] == [
            (m.seat, card_name(m.card), m.declarations or []) for m in played]
        declared = [game.declared0, game.declared1]
    assert any(m["declarations"] for m in record["moves"]) == (sum(declared) > 0)

    result = analyse(record)
    assert result["declared"] == declared
    bot.client.send({"type": "analysis", "job": job["job"], "game_id": game_id, "version": result["version"],
                     "analysis": result})
    body = _wait_done(server, game_id, token)
    assert body["moves"] == result["moves"] and body["game"] == "partnership" and len(body["players"]) == 4
    with db_session(pg_url) as s:
        rows = list(s.scalars(select(MoveAnalysis).where(MoveAnalysis.game_id == game_id)
                              .order_by(MoveAnalysis.move_number)))
        assert [(r.seat, r.loss, r.label, card_name(r.best_card), r.known) for r in rows] == [
            (m["seat"], m["loss"], m["label"], m["best"], True) for m in result["moves"]]
        row = s.get(Analysis, game_id)
        assert row is not None
        assert [row.accuracy0, row.accuracy1, row.accuracy2, row.accuracy3] == [
            p["accuracy"] for p in result["players"]]

    # Each player's profile averages its four-player accuracy, seats 2 and 3 included.
    for seat in (2, 3):
        name = users[seat]["username"]
        totals = local_http.get(f"{server.url}/api/players/{name}").json()["totals"]["partnership"]
        assert totals["analysed"] == 1 and totals["accuracy"] == result["players"][seat]["accuracy"]

    # The four-player export carries each card's loss, label and best card.
    admin = admin_token(pg_url)
    text = local_http.get(f"{server.url}/api/admin/moves/export", params={"format": "csv", "variant": "partnership"},
                          headers=_auth(admin)).text
    exported = [r for r in csv.DictReader(io.StringIO(text)) if int(r["game_id"]) == game_id]
    assert [(float(r["loss"]), r["label"], r["best_card"]) for r in exported] == [
        (m["loss"], m["label"], m["best"]) for m in result["moves"]]

    # Anyone signed in reads a public deal's analysis; asking again for a current one changes nothing.
    other, _ = guest_token(server.url)
    assert _wait_done(server, game_id, other)["moves"] == result["moves"]
    again = local_http.post(f"{server.url}/api/games/{game_id}/analysis", headers=_auth(other))
    assert again.status_code == 200 and again.json()["status"] == "done"
    bot.close()
