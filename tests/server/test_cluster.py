"""Two server processes, one portal (issue #23): real Redis, real PostgreSQL, real sockets.

Players connected to different processes play one table; a spectator on either sees it; the lobby
is the same on both; when the table's owner is killed (SIGKILL) mid-deal the other process takes
the table over from the database and the deal finishes with every move stored once.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests import local_http
from tests.bot.test_bot_games import BOT_TOKEN
from tests.conftest import LiveServer, wait_for_bots
from tests.forkserver import fork_module
from tests.server.analysis_bot import AnalysisBot
from tests.server.client import (
    Client,
    cards_played,
    finish_deal,
    guest_token,
    is_table,
    my_turn,
    play_cards,
    play_until_over,
)
from tests.server.db import assert_one_deal_stored
from tests.server.faults import wait_health


def _portal(start_server: Callable[..., LiveServer], pg_url: str, redis_url: str, **env: str
            ) -> tuple[LiveServer, LiveServer]:
    """Start two processes of one portal, one after the other (the first migrates the database)."""
    one = start_server(pg_url, TRESET_REDIS_URL=redis_url, **env)
    two = start_server(pg_url, TRESET_REDIS_URL=redis_url, **env)
    deadline = time.time() + 15
    while any(local_http.get(f"{s.url}/healthz").json().get("nodes") != 2 for s in (one, two)):
        assert time.time() < deadline, "the two processes never saw each other"
        time.sleep(0.2)
    return one, two


def _lobby_ids(server: LiveServer) -> set[str]:
    return {t["id"] for t in local_http.get(f"{server.url}/api/tables").json()["tables"]}


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
    # A new public table reaches the lobby of the spectator on the other process, not the player in a deal there.
    td, _ = guest_token(one.url)
    d = Client(one.ws_url, td)
    d.send({"type": "create_table", "variant": "kifameno"})
    other_id = d.wait_for(is_table)["table"]["id"]
    c.wait_for(lambda m: m["type"] == "lobby" and other_id in {t["id"] for t in m["tables"]})
    time.sleep(1.5)
    with contextlib.suppress(TimeoutError):
        while True:
            b.recv(timeout=0.2)
    assert not [m for m in b.received if m["type"] == "lobby" and other_id in {t["id"] for t in m["tables"]}]
    d.close()
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
    assert_one_deal_stored(pg_url)
    for client in (a, b, c):
        client.close()


@pytest.mark.parametrize("how", ["kill", "stop"])
def test_the_owner_killed_mid_deal_the_other_process_finishes_it(
        how: str, pg_url: str, redis_url: str, start_server: Callable[..., LiveServer]) -> None:
    """SIGKILL (or stop) the table's owner after 13 cards: the other process takes the table over within seconds.

    A stopped process frees its leases as it goes, so the other need not wait for them to expire.
    """
    one, two = _portal(start_server, pg_url, redis_url, TRESET_RECONNECT_GRACE_S="30")
    ta, _ = guest_token(one.url)
    tb, _ = guest_token(two.url)
    a, b = Client(one.ws_url, ta), Client(two.ws_url, tb)
    a.send({"type": "create_table", "variant": "kifameno"})
    table_id = a.wait_for(is_table)["table"]["id"]  # owned by ``one``
    b.send({"type": "join_table", "table_id": table_id})
    play_cards(a, b, table_id, 13, watcher=b)
    killed = time.time()
    one.kill() if how == "kill" else one.stop()
    a.close()
    # B stayed on the live process: the table comes back to it there, with the 13 stored cards.
    back = b.wait_for(lambda m: is_table(m) and m["table"]["status"] == "playing", timeout=20)
    # The first table B hears of may still be the one relayed from ``one`` as it stops: the takeover is read
    # from ``two``'s health.
    health = wait_health(two.url, lambda h: h["taken_over"] == 1, timeout=20)
    takeover_s = time.time() - killed
    print(f"takeover after {how}: {takeover_s:.2f} s")
    assert cards_played(back) == 13
    assert back["table"]["players"][0]["connected"] is False  # A's socket died with its process
    assert takeover_s < 10
    assert health["tables"] == 1
    # A reconnects (to the live process) and gets its seat back; the deal finishes.
    a2 = Client(two.ws_url, ta)
    ma = a2.wait_for(lambda m: is_table(m) and m["table"]["id"] == table_id)
    assert ma["table"]["you"] == 0 and cards_played(ma) == 13
    mb = b.wait_for(lambda m: is_table(m) and (m.get("event") or {}).get("kind") == "reconnect")
    final = finish_deal([(a2, ma), (b, mb)], table_id)
    assert sum(final["table"]["result"]["points"]) == 35
    assert_one_deal_stored(pg_url)
    a2.close()
    b.close()


def test_bots_and_analysts_serve_every_process(pg_url: str, redis_url: str, tmp_path: Path,
                                               start_server: Callable[..., LiveServer]) -> None:
    """A bot connected to one process plays a table of the other; a finished deal's analysis comes back home."""
    one, two = _portal(start_server, pg_url, redis_url, TRESET_BOT_TOKEN=BOT_TOKEN)
    agent = fork_module("agent.cli", ["serve", "--server", two.url, "--capacity", "2", "--analysis", "0",
                                      "--levels", "easy"], {**os.environ, "TRESET_BOT_TOKEN": BOT_TOKEN},
                        stdout=tmp_path / "agent.log")
    analyst = None
    try:
        wait_for_bots(one.url, 1, agent, tmp_path / "agent.log")  # the bot of ``two``, seen by ``one``
        assert "easy" in local_http.get(f"{one.url}/healthz").json()["bot_levels"]
        token, _ = guest_token(one.url)
        human = Client(one.ws_url, token)
        human.send({"type": "create_table", "variant": "tressette", "opponent": "bot", "bot_level": "easy"})
        start = human.wait_for(lambda m: is_table(m) and m["table"]["status"] == "playing")
        table_id = start["table"]["id"]
        if my_turn(start):
            human.send({"type": "play", "table_id": table_id, "card": start["table"]["view"]["legal"][0]})
        deadline = time.time() + 120
        while True:  # the bot's cards come from the other process's agent
            m = human.recv(timeout=max(0.1, deadline - time.time()))
            if is_table(m) and m["table"]["status"] == "finished":
                break
            if my_turn(m) and m["event"] is not None:
                human.send({"type": "play", "table_id": table_id, "card": m["table"]["view"]["legal"][0]})
        assert sum(m["table"]["result"]["points"]) == 35
        game_id = m["table"]["game_id"]

        # The deal's analysis is queued at ``one``; an analysis bot of ``two`` gets it and its answer goes home.
        analyst = AnalysisBot(two, BOT_TOKEN, slots=1)
        job = analyst.job()
        assert job["game_id"] == game_id and job["job"].startswith(local_http.get(f"{one.url}/healthz").json()["node"])
        analyst.answer(job, version="x-1")
        deadline = time.time() + 15
        while True:
            r = local_http.get(f"{two.url}/api/games/{game_id}/analysis", headers={"Authorization": f"Bearer {token}"})
            if r.status_code == 200:
                break
            assert time.time() < deadline, r.text
            time.sleep(0.2)
        assert r.json()["version"] == "x-1" and len(r.json()["moves"]) == 40
        human.close()
    finally:
        if analyst is not None:
            analyst.close()
        agent.send_signal(signal.SIGTERM)
        agent.wait(15)


def test_a_lease_is_renewed_taken_back_or_reported_lost(redis_url: str) -> None:
    """The renewal keeps this node's leases, takes back one that expired untaken, and reports one another holds."""
    import redis

    from server.game.cluster.state import RENEW, lease_key

    client = redis.Redis.from_url(redis_url, decode_responses=True)
    renew = client.register_script(RENEW)
    client.set(lease_key("mine"), "me", px=100)
    client.set(lease_key("theirs"), "other", px=10_000)
    lost = renew(keys=[lease_key(t) for t in ("mine", "expired", "theirs")], args=["me", 5000])
    assert lost == [lease_key("theirs")]
    assert client.get(lease_key("mine")) == client.get(lease_key("expired")) == "me"
    assert 4000 < client.pttl(lease_key("mine")) <= 5000 and 4000 < client.pttl(lease_key("expired")) <= 5000
    assert client.get(lease_key("theirs")) == "other"
    client.close()


def test_a_users_table_limit_counts_every_process(pg_url: str, redis_url: str,
                                                  start_server: Callable[..., LiveServer]) -> None:
    """One waiting table allowed: opened on one process, a second one on the other is refused."""
    one, two = _portal(start_server, pg_url, redis_url, TRESET_MAX_WAITING_TABLES="1")
    token, _ = guest_token(one.url)
    first, second = Client(one.ws_url, token), Client(two.ws_url, token)
    first.send({"type": "create_table", "variant": "tressette"})
    table_id = first.wait_for(is_table)["table"]["id"]
    second.wait_for(lambda m: m["type"] == "lobby" and table_id in {t["id"] for t in m["tables"]})
    second.send({"type": "create_table", "variant": "kifameno"})
    refused = second.error()
    assert refused["code"] == "too_many_tables" and refused["params"] == {"limit": 1, "status": "waiting"}
    first.close()
    second.close()
