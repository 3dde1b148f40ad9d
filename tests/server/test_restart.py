"""A server killed with SIGKILL mid-game comes back with the game, which the players finish."""

from __future__ import annotations

from collections.abc import Callable

from tests.conftest import LiveServer
from tests.server.client import Client, cards_played, finish_deal, is_table, open_pair, play_cards
from tests.server.db import assert_one_deal_stored


def test_kill_9_and_restart_loses_no_move(pg_url: str, start_server: Callable[..., LiveServer]) -> None:
    """Play 13 cards, kill -9, restart on the same port, reconnect both, finish: 40 moves, each once."""
    server = start_server(pg_url, TRESET_RECONNECT_GRACE_S="30")
    a, b, table_id = open_pair(server.url, server.ws_url, "kifameno")
    ta, tb = a.token, b.token
    play_cards(a, b, table_id, 13, watcher=a)
    server.kill()
    a.close()
    b.close()

    again = start_server(pg_url, port=server.port)
    a2, b2 = Client(again.ws_url, ta), Client(again.ws_url, tb)
    ma = a2.wait_for(is_table)
    mb = b2.wait_for(is_table)
    for m in (ma, mb):
        assert m["table"]["id"] == table_id and m["table"]["status"] == "playing"
        assert cards_played(m) == 13
    # Whoever is to move gets its turn from the restored state.
    final = finish_deal([(a2, ma), (b2, mb)], table_id)
    assert sum(final["table"]["result"]["points"]) == 35
    assert_one_deal_stored(pg_url)
