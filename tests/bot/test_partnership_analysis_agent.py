"""A real ``treset-agent serve`` analyses a four-player deal through the server: the solver's values, stored."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from sqlalchemy import select

from agent.partnership.analysis import analyse
from server.store.analyses import game_record
from server.store.models import Analysis, Game, Move, MoveAnalysis
from tests.bot.test_analysis_agent import analysis_when_done
from tests.bot.test_bot_games import BOT_TOKEN, start_agent  # noqa: F401 - a fixture
from tests.conftest import LiveServer
from tests.forkserver import ForkedProcess
from tests.server.db import db_session
from tests.server.four import open_four, play_four


@pytest.mark.slow
def test_agent_analyses_a_four_player_deal(pg_url: str, start_server: Callable[..., LiveServer],
                                           start_agent: Callable[..., ForkedProcess],  # noqa: F811
                                           ) -> None:
    """Four guests' deal is analysed by the agent: every move's values are the double-dummy solver's."""
    server = start_server(pg_url, TRESET_BOT_TOKEN=BOT_TOKEN)
    start_agent(server, analysis=1)
    clients, table_id, _ = open_four(server.url, server.ws_url, target=31)
    play_four(clients, table_id)
    with db_session(pg_url) as s:
        game = s.scalar(select(Game).where(Game.table_id == table_id, Game.n_players == 4))
        assert game is not None
        game_id = game.id
        record = game_record(game, list(s.scalars(select(Move).where(Move.game_id == game_id)
                                                 .order_by(Move.move_number))))
    headers = {"Authorization": f"Bearer {clients[0].token}"}
    body = analysis_when_done(server, game_id, headers, 180)
    assert body["status"] == "done" and body["game"] == "partnership", body
    assert body["version"].startswith("analysis-") and len(body["moves"]) == 40
    # The agent's values are the solver's (the analysis run here, from the stored record).
    mine = analyse(record)
    assert [(m["card"], m["cards"], m["best_cards"], m["loss"], m["label"]) for m in body["moves"]] == [
        (m["card"], m["cards"], m["best_cards"], m["loss"], m["label"]) for m in mine["moves"]]
    assert body["players"] == mine["players"]
    print(f"four-player analysis through the agent: {body['timing']['total_s']:.2f} s")
    with db_session(pg_url) as s:
        assert len(list(s.scalars(select(MoveAnalysis).where(MoveAnalysis.game_id == game_id)))) == 40
        row = s.get(Analysis, game_id)
        assert row is not None and None not in (row.accuracy0, row.accuracy1, row.accuracy2, row.accuracy3)
