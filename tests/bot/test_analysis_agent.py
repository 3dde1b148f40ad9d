"""A real ``treset-agent serve`` analyses finished games through the server, and keeps playing meanwhile."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import create_engine, func, select
from sqlalchemy.orm import Session

from server.store.models import Analysis, MoveAnalysis
from tests import local_http
from tests.bot.test_bot_games import BOT_TOKEN, start_agent  # noqa: F401 - a fixture
from tests.conftest import LiveServer
from tests.forkserver import ForkedProcess
from tests.server.client import Client, guest_token, is_table, my_turn, open_pair, play_until_over


def analysis_when_done(server: LiveServer, game_id: int, headers: dict[str, str], seconds: float) -> dict[str, Any]:
    """Return the game's analysis once the agent has answered, asking every second; while it waits the answer is
    202 with one analysis bot connected."""
    end = time.time() + seconds
    while True:
        r = local_http.get(f"{server.url}/api/games/{game_id}/analysis", headers=headers, timeout=10)
        if r.status_code == 200 or time.time() >= end:
            return dict(r.json())
        assert r.status_code == 202 and r.json()["bots"] == 1
        time.sleep(1)

@pytest.mark.slow
def test_agent_analyses_a_game_while_it_plays(pg_url: str, start_server: Callable[..., LiveServer],
                                              start_agent: Callable[..., ForkedProcess],  # noqa: F811
                                              ) -> None:
    """Two guests' deal is analysed by the agent (stored per move) while it answers a person's bot game."""
    server = start_server(pg_url, TRESET_BOT_TOKEN=BOT_TOKEN)
    start_agent(server, analysis=1)
    assert local_http.get(f"{server.url}/healthz").json()["analysis_bots"] == 1
    a, b, table_id = open_pair(server.url, server.ws_url)
    play_until_over(a, b, table_id)
    headers = {"Authorization": f"Bearer {a.token}"}
    me = local_http.get(f"{server.url}/api/me", headers=headers).json()["username"]
    game_id = local_http.get(f"{server.url}/api/players/{me}").json()["recent_games"][0]["id"]

    # A person plays the bot while the analysis runs: each bot answer is timed from the message
    # that hands the bot the turn to the one with its card.
    human = Client(server.ws_url, guest_token(server.url)[0])
    human.send({"type": "create_table", "variant": "tressette", "opponent": "bot", "bot_level": "easy"})
    answers: list[float] = []
    asked = None
    end = time.time() + 120
    while time.time() < end:
        m = human.recv(timeout=30)
        if not is_table(m):
            continue
        event = m.get("event") or {}
        if asked is not None and event.get("kind") in ("play", "trick") and event.get("seat") == 1:
            answers.append(time.monotonic() - asked)
            asked = None
        if m["table"]["status"] == "finished" and event.get("kind") == "end":
            break
        view = m["table"]["view"]
        if view and m["table"]["status"] == "playing" and view["to_move"] == 1 and asked is None:
            asked = time.monotonic()
        if my_turn(m) and event.get("kind") in ("start", "play", "trick"):
            human.send({"type": "play", "table_id": m["table"]["id"], "card": view["legal"][0]})
    assert len(answers) >= 15
    answers.sort()
    print(f"bot answers while analysing: median {answers[len(answers) // 2]:.3f} s, max {answers[-1]:.3f} s")

    body = analysis_when_done(server, game_id, headers, 240)
    assert body["status"] == "done", body
    assert body["version"].startswith("analysis-") and len(body["moves"]) == 40
    assert {p["seat"] for p in body["players"]} == {0, 1}
    engine = create_engine(pg_url)
    with Session(engine) as s:
        assert s.scalar(select(func.count()).select_from(MoveAnalysis).where(MoveAnalysis.game_id == game_id)) == 40
        row = s.get(Analysis, game_id)
        assert row is not None and row.accuracy0 is not None and row.accuracy1 is not None
    engine.dispose()
