"""Bot-versus-bot series started by an admin: every move logged like any other game."""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from sqlalchemy import create_engine, func, select
from sqlalchemy.orm import Session

from server.store.models import Game, Move, User
from tests import local_http
from tests.bot.test_bot_games import BOT_TOKEN, start_agent  # noqa: F401 - a fixture
from tests.conftest import LiveServer
from tests.forkserver import ForkedProcess, run_module


def _admin_token(db_url: str) -> str:
    out = run_module("treset.cli", ["admin", "create-admin", "root", "--password", "admin-pw-1"],
                     env={**os.environ, "DATABASE_URL": db_url}, check=True)
    return out.stdout.strip()


def test_admin_runs_a_bot_series(pg_url: str, start_server: Callable[..., LiveServer],
                                 start_agent: Callable[[LiveServer], ForkedProcess]) -> None:  # noqa: F811
    """Two levels play 2 deals on the server; both games and their 80 moves are in the database."""
    admin = _admin_token(pg_url)
    server = start_server(pg_url, TRESET_BOT_TOKEN=BOT_TOKEN)
    start_agent(server)
    body = {"level_a": "easy", "level_b": "normal", "games": 2, "variant": "kifameno"}
    guest = local_http.post(f"{server.url}/api/auth/guest").json()["token"]
    for token, status in ((None, 401), (guest, 403), (BOT_TOKEN, 403)):
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        assert local_http.post(f"{server.url}/api/admin/bot-series", json=body, headers=headers).status_code == status
    r = local_http.post(f"{server.url}/api/admin/bot-series", json=body, headers={"Authorization": f"Bearer {admin}"})
    assert r.status_code == 200, r.text
    bad = local_http.post(f"{server.url}/api/admin/bot-series", json={**body, "level_a": "godlike"},
                     headers={"Authorization": f"Bearer {admin}"})
    assert bad.status_code == 422
    engine = create_engine(pg_url)
    deadline = time.time() + 120
    finished: list[Game] = []
    while time.time() < deadline and len(finished) < 2:
        time.sleep(1)
        with Session(engine) as s:
            finished = list(s.scalars(select(Game).where(Game.status == "finished")))
    assert len(finished) == 2
    with Session(engine) as s:
        for game in finished:
            assert s.scalar(select(func.count()).select_from(Move).where(Move.game_id == game.id)) == 40
            names = {s.get(User, game.player0_id).username, s.get(User, game.player1_id).username}  # type: ignore[union-attr]
            assert names == {"bot-easy", "bot-normal"}
        assert finished[0].first_leader != finished[1].first_leader
    engine.dispose()
