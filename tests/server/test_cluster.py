"""Two server processes, one portal (issue #23): real Redis, real PostgreSQL, real sockets.

Players connected to different processes play one table; a spectator on either sees it; the lobby
is the same on both; when the table's owner is killed (SIGKILL) mid-deal the other process takes
the table over from the database and the deal finishes with every move stored once.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import httpx
from sqlalchemy import create_engine, select
from sqlalchemy.orm import Session

from server.store.models import Game, Move
from tests.conftest import LiveServer
from tests.server.client import Client, Msg, guest_token, is_table, my_turn, play_until_over


def _portal(start_server: Callable[..., LiveServer], pg_url: str, redis_url: str, **env: str
            ) -> tuple[LiveServer, LiveServer]:
    """Start two processes of one portal, one after the other (the first migrates the database)."""
    one = start_server(pg_url, TRESET_REDIS_URL=redis_url, **env)
    two = start_server(pg_url, TRESET_REDIS_URL=redis_url, **env)
    deadline = time.time() + 15
    while any(httpx.get(f"{s.url}/healthz").json().get("nodes") != 2 for s in (one, two)):
        assert time.time() < deadline, "the two processes never saw each other"
        time.sleep(0.2)
    return one, two


def _lobby_ids(server: LiveServer) -> set[str]:
    return {t["id"] for t in httpx.get(f"{server.url}/api/tables").json()["tables"]}


def _moves(m: Msg) -> int:
    view = m["table"]["view"]
    return 2 * len(view["history"]) + len(view["table"])


def test_players_on_two_processes_share_one_table(pg_url: str, redis_url: str,
                                                  start_server: Callable[..., LiveServer]) -> None:
    """A opens a table on one process, B joins it from the other, C watches from the other: the deal ends."""
    one, two = _portal(start_server, pg_url, redis_url)
    ta, _ = guest_token(one.url)
    tb, _ = guest_token(two.url)
    tc, _ = guest_token(two.url)
    a, b, c = Client(one.ws_url, ta), Client(two.ws_url, tb), Client(two.ws_url, tc)
    a.send({"type": "create_table", "variant": "tressette"})
    table_id = a.wait_for(is_table)["table"]["id"]
    # The other process lists the table in its lobby (pushed to its clients, and over HTTP).
    b.wait_for(lambda m: m["type"] == "lobby" and table_id in {t["id"] for t in m["tables"]})
    assert _lobby_ids(one) == _lobby_ids(two) == {table_id}
    b.send({"type": "join_table", "table_id": table_id})
    first = b.wait_for(is_table)
    assert first["table"]["you"] == 1 and first["table"]["status"] == "playing"
    c.send({"type": "watch_table", "table_id": table_id})
    watched = c.wait_for(is_table)
    assert watched["table"]["you"] is None and watched["table"]["players"][0]["username"]
    for client in (a, b):  # whoever leads has its turn in the start snapshot
        seen = [m for m in client.received if is_table(m) and m["table"]["status"] == "playing"]
        if seen and my_turn(seen[-1]):
            client.send({"type": "play", "table_id": table_id, "card": seen[-1]["table"]["view"]["legal"][0]})
    final = play_until_over(a, b, table_id)
    assert sum(final["table"]["result"]["points"]) == 35
    end = c.wait_for(lambda m: is_table(m) and m["table"]["status"] == "finished")
    assert end["table"]["result"]["points"] == final["table"]["result"]["points"]
    # The chat goes both ways across the processes.
    b.send({"type": "chat", "table_id": table_id, "text": "gg"})
    assert a.wait_for(lambda m: m["type"] == "chat")["text"] == "gg"
    engine = create_engine(pg_url)
    with Session(engine) as s:
        game = s.scalars(select(Game)).one()
        assert game.status == "finished"
        assert list(s.scalars(select(Move.move_number).where(Move.game_id == game.id).order_by(Move.move_number))) \
            == list(range(40))
    engine.dispose()
    for client in (a, b, c):
        client.close()


def test_the_owner_killed_mid_deal_the_other_process_finishes_it(
        pg_url: str, redis_url: str, start_server: Callable[..., LiveServer]) -> None:
    """SIGKILL the table's owner after 13 cards: the other process takes the table over within seconds."""
    one, two = _portal(start_server, pg_url, redis_url, TRESET_RECONNECT_GRACE_S="30")
    ta, _ = guest_token(one.url)
    tb, _ = guest_token(two.url)
    a, b = Client(one.ws_url, ta), Client(two.ws_url, tb)
    a.send({"type": "create_table", "variant": "kifameno"})
    table_id = a.wait_for(is_table)["table"]["id"]  # owned by ``one``
    b.send({"type": "join_table", "table_id": table_id})
    played = 0
    while played < 13:
        for client in (a, b):
            try:
                m = client.recv(timeout=0.05)
            except TimeoutError:
                continue
            if my_turn(m) and m["event"] is not None and played < 13:
                client.send({"type": "play", "table_id": table_id, "card": m["table"]["view"]["legal"][0]})
                played += 1
    if not any(is_table(m) and m["table"]["view"] and _moves(m) == 13 for m in b.received):  # maybe read above
        b.wait_for(lambda m: is_table(m) and _moves(m) == 13)
    killed = time.time()
    one.kill()
    a.close()
    # B stayed on the live process: the table comes back to it there, with the 13 stored cards.
    back = b.wait_for(lambda m: is_table(m) and m["table"]["status"] == "playing", timeout=20)
    takeover_s = time.time() - killed
    print(f"takeover: {takeover_s:.2f} s")
    assert _moves(back) == 13
    assert back["table"]["players"][0]["connected"] is False  # A's socket died with its process
    assert takeover_s < 10
    health = httpx.get(f"{two.url}/healthz").json()
    assert health["taken_over"] == 1 and health["tables"] == 1
    # A reconnects (to the live process) and gets its seat back; the deal finishes.
    a2 = Client(two.ws_url, ta)
    ma = a2.wait_for(lambda m: is_table(m) and m["table"]["id"] == table_id)
    assert ma["table"]["you"] == 0 and _moves(ma) == 13
    mb = b.wait_for(lambda m: is_table(m) and (m.get("event") or {}).get("kind") == "reconnect")
    for client, m in ((a2, ma), (b, mb)):
        if my_turn(m):
            client.send({"type": "play", "table_id": table_id, "card": m["table"]["view"]["legal"][0]})
    final = play_until_over(a2, b, table_id)
    assert sum(final["table"]["result"]["points"]) == 35
    engine = create_engine(pg_url)
    with Session(engine) as s:
        game = s.scalars(select(Game)).one()
        assert game.status == "finished" and game.end_reason == "finished"
        numbers = list(s.scalars(select(Move.move_number).where(Move.game_id == game.id).order_by(Move.move_number)))
        assert numbers == list(range(40))  # none lost, none doubled
    engine.dispose()
    a2.close()
    b.close()
