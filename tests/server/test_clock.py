"""The move clock and the reconnect grace: running out of time or staying away forfeits."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import create_engine, select
from sqlalchemy.orm import Session

from server.store.models import Game, UserTotals
from tests.conftest import LiveServer
from tests.server.client import Client, is_table, my_turn, open_pair


def _start(server: LiveServer) -> tuple[Client, Client, str, int]:
    a, b, table_id = open_pair(server.url, server.ws_url)
    m = a.wait_for(lambda m: is_table(m) and m["table"]["status"] == "playing")
    mover = 0 if my_turn(m) else 1
    return a, b, table_id, mover


def test_running_out_of_time_forfeits(pg_url: str, start_server: Callable[..., LiveServer]) -> None:
    """Nobody plays: after the move clock the player to move loses by timeout; before both had played a card the
    game is aborted: not in the totals (tests/server/test_aborted.py counts one after two cards)."""
    server = start_server(pg_url, TRESET_MOVE_TIMEOUT_S="1.5")
    a, b, table_id, mover = _start(server)
    assert a.received[-1]["table"]["turn_deadline"] is not None
    end = a.wait_for(lambda m: is_table(m) and m["table"]["status"] == "finished", timeout=10)
    result = end["table"]["result"]
    assert result["reason"] == "timeout" and result["winner"] == 1 - mover and result["rated"] is False
    engine = create_engine(pg_url)
    with Session(engine) as s:
        game = s.scalars(select(Game)).one()
        assert (game.status, game.end_reason, game.winner_seat) == ("finished", "timeout", 1 - mover)
        assert list(s.scalars(select(UserTotals))) == []
    engine.dispose()


def test_a_dropped_player_may_return_within_the_grace(pg_url: str, start_server: Callable[..., LiveServer]) -> None:
    """A player who reconnects in time gets the full view back; one who stays away forfeits."""
    server = start_server(pg_url, TRESET_RECONNECT_GRACE_S="2")
    a, b, table_id, _ = _start(server)
    b.close()
    a.wait_for(lambda m: is_table(m) and (m["event"] or {}).get("kind") == "disconnect")
    b2 = Client(server.ws_url, b.token)
    back = b2.wait_for(is_table)
    assert back["table"]["id"] == table_id and len(back["table"]["view"]["hand"]) == 10
    b2.close()
    end = a.wait_for(lambda m: is_table(m) and m["table"]["status"] == "finished", timeout=10)
    assert end["table"]["result"]["reason"] == "left" and end["table"]["result"]["winner"] == a.received[-1]["table"]["you"]
