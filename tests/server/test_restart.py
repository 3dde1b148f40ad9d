"""A server killed with SIGKILL mid-game comes back with the game, which the players finish."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import create_engine, func, select
from sqlalchemy.orm import Session

from server.store.models import Game, Move
from tests.conftest import LiveServer
from tests.server.client import Client, Msg, is_table, my_turn, open_pair, play_until_over


def test_kill_9_and_restart_loses_no_move(pg_url: str, start_server: Callable[..., LiveServer]) -> None:
    """Play 13 cards, kill -9, restart on the same port, reconnect both, finish: 40 moves, each once."""
    server = start_server(pg_url, TRESET_RECONNECT_GRACE_S="30")
    a, b, table_id = open_pair(server.url, server.ws_url, "kifameno")
    ta, tb = a.token, b.token
    played = 0
    clients = [a, b]
    while played < 13:
        for c in clients:
            try:
                m = c.recv(timeout=0.05)
            except TimeoutError:
                continue
            if my_turn(m) and m["event"] is not None and played < 13:
                c.send({"type": "play", "table_id": table_id, "card": m["table"]["view"]["legal"][0]})
                played += 1
    def thirteen(m: Msg) -> bool:
        return is_table(m) and m["table"]["view"] is not None and len(m["table"]["view"]["history"]) * 2 + len(m["table"]["view"]["table"]) == 13

    if not any(thirteen(m) for m in a.received):  # the loop above may have read it already
        a.wait_for(thirteen)
    server.kill()
    a.close()
    b.close()

    again = start_server(pg_url, port=server.port)
    a2, b2 = Client(again.ws_url, ta), Client(again.ws_url, tb)
    ma = a2.wait_for(is_table)
    mb = b2.wait_for(is_table)
    for m in (ma, mb):
        view = m["table"]["view"]
        assert m["table"]["id"] == table_id and m["table"]["status"] == "playing"
        assert 2 * len(view["history"]) + len(view["table"]) == 13
    # Whoever is to move gets its turn from the restored state.
    for client, m in ((a2, ma), (b2, mb)):
        if my_turn(m):
            client.send({"type": "play", "table_id": table_id, "card": m["table"]["view"]["legal"][0]})
    final = play_until_over(a2, b2, table_id)
    assert sum(final["table"]["result"]["points"]) == 35
    engine = create_engine(pg_url)
    with Session(engine) as s:
        game = s.scalars(select(Game)).one()
        assert game.status == "finished" and game.end_reason == "finished"
        numbers = list(s.scalars(select(Move.move_number).where(Move.game_id == game.id).order_by(Move.move_number)))
        assert numbers == list(range(40))
        assert s.scalar(select(func.count()).select_from(Move)) == 40
    engine.dispose()
