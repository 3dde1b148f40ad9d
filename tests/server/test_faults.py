"""Faults under live games (issue #29): real server processes, a PostgreSQL and a Redis the tests stop.

- A server process frozen (SIGSTOP) past its lease, with its move clocks due meanwhile, and resumed,
  twice: the other process serves its tables, and the frozen one stores nothing (fencing).
- Redis killed and restarted empty under tables split over two processes and a bot table: every
  deal finishes on the same sockets, no reload; a command while Redis is away gets an answer.
- PostgreSQL stopped under ten live games (people and bots) and an analysis in flight: nothing
  stays stuck, every deal finishes, every stored game agrees with a replay by the rules package.
"""

from __future__ import annotations

import json
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sqlalchemy import text
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from tests import local_http
from tests.bot.test_bot_games import BOT_TOKEN
from tests.conftest import LiveServer
from tests.server.analysis_bot import AnalysisBot
from tests.server.client import Client, guest_token, is_table
from tests.server.db import db_session
from tests.server.faults import Driver, OwnPostgres, OwnRedis, check_stored_games, split_table, wait_health

pytestmark = [pytest.mark.slow, pytest.mark.alone]

LEASE_S = "1"
PG_OUTAGE_S = 25.0


@pytest.fixture
def own_pg() -> Iterator[OwnPostgres]:
    """Yield a PostgreSQL of the test's own (it may stop it)."""
    pg = OwnPostgres()
    try:
        yield pg
    finally:
        pg.remove()


def _portal(start_server: Callable[..., LiveServer], db_url: str, redis_url: str, **env: str
            ) -> tuple[LiveServer, LiveServer]:
    one = start_server(db_url, TRESET_REDIS_URL=redis_url, TRESET_CLUSTER_LEASE_S=LEASE_S, **env)
    two = start_server(db_url, TRESET_REDIS_URL=redis_url, TRESET_CLUSTER_LEASE_S=LEASE_S, **env)
    for server in (one, two):
        wait_health(server.url, lambda h: h.get("nodes") == 2)
    return one, two


def _bot(server: LiveServer) -> Client:
    bot = Client(server.ws_url, BOT_TOKEN)
    assert bot.recv()["type"] == "welcome"
    bot.send({"type": "bot_hello", "levels": ["normal"], "capacity": 8})
    return bot


def _bot_table(server: LiveServer, driver: Driver) -> str:
    token, _ = guest_token(server.url)
    human = Client(server.ws_url, token)
    deadline = time.time() + 15
    while True:  # the bot of the other process is seen here within a second
        human.send({"type": "create_table", "variant": "kifameno", "opponent": "bot", "bot_level": "normal"})
        opened = human.wait_for(lambda m: is_table(m) or m["type"] == "error")
        if is_table(opened):
            break
        assert opened["code"] == "no_bot" and time.time() < deadline, opened
        time.sleep(0.3)
    table_id: str = opened["table"]["id"]
    driver.add(human, table_id).last = opened
    return table_id


def test_a_frozen_owner_stores_nothing_for_the_tables_it_lost(
        pg_url: str, redis_url: str, start_server: Callable[..., LiveServer]) -> None:
    """SIGSTOP the owner of live tables past its lease (their move clocks due meanwhile), twice: no wrong result."""
    one, two = _portal(start_server, pg_url, redis_url, TRESET_MOVE_TIMEOUT_S="2", TRESET_RECONNECT_GRACE_S="60")
    driver = Driver()
    for round_ in range(2):
        for _ in range(3):
            split_table(one.url, one.ws_url, two.url, two.ws_url, driver)
        driver.hold_at = 6
        driver.run(1.0)  # a few cards each; then whoever is to move has 2 s on the clock
        one.proc.send_signal(signal.SIGSTOP)
        try:  # past the lease (1 s) and every move clock (2 s) of its tables; the players at ``two`` play on
            driver.hold_at = None
            driver.run(4.0)
            wait_health(two.url, lambda h, n=3 * (round_ + 1): h["taken_over"] >= n)
        finally:
            one.proc.send_signal(signal.SIGCONT)
        driver.run_to_end(timeout=60)
    ends = check_stored_games(pg_url)
    print("ends:", ends, "errors:", dict(driver.errors))
    assert sum(ends.values()) == 6 and "playing" not in ends
    assert "lost the lease" in one.log()  # it learnt it had lost them before acting on anything


def test_a_redis_restart_leaves_no_table_broken(tmp_path: Path, pg_url: str,
                                                start_server: Callable[..., LiveServer]) -> None:
    """Kill Redis under split tables and a bot game, restart it empty: every deal finishes on the same sockets."""
    redis = OwnRedis(tmp_path)
    try:
        one, two = _portal(start_server, pg_url, redis.url, TRESET_BOT_TOKEN=BOT_TOKEN,
                           TRESET_MOVE_TIMEOUT_S="120", TRESET_RECONNECT_GRACE_S="120")
        driver = Driver()
        driver.bots.append(_bot(one))  # a bot of one process plays the other's table
        wait_health(two.url, lambda h: h["bots_connected"] >= 1)
        for _ in range(3):
            split_table(one.url, one.ws_url, two.url, two.ws_url, driver)
        bot_table = _bot_table(two, driver)
        driver.hold_at = 12
        driver.run(2.0)
        redis.kill()
        # A command of a player whose table lives at the other process: an answer, never silence.
        away = next(p for p in driver.people if p.client.ws.remote_address[1] == two.port and p.table_id != bot_table)
        away.client.send({"type": "chat", "table_id": away.table_id, "text": "anyone?"})
        driver.run(5.0)
        assert driver.errors["table_unavailable"] >= 1, dict(driver.errors)
        redis.start()  # empty
        driver.hold_at = None
        driver.run_to_end(timeout=90)
        for server in (one, two):
            wait_health(server.url, lambda h: h.get("nodes") == 2 and h["bots_connected"] >= 1
                        and h["redis_resets"] >= 1)
        ends = check_stored_games(pg_url)
        print("ends:", ends, "errors:", dict(driver.errors))
        assert ends == {"finished": 4}  # played out, none forfeited
        # A new bot table at the other process finds the bot again.
        fresh = Driver(bots=driver.bots)
        _bot_table(two, fresh)
        fresh.run_to_end(timeout=60)
    finally:
        redis.kill()


def test_a_database_outage_leaves_nothing_stuck(own_pg: OwnPostgres, start_server: Callable[..., LiveServer]) -> None:
    """Stop PostgreSQL 25 s under ten live games and an analysis in flight: afterwards everything finishes."""
    server = start_server(own_pg.url, TRESET_BOT_TOKEN=BOT_TOKEN, TRESET_MOVE_TIMEOUT_S="120",
                          TRESET_RECONNECT_GRACE_S="120")
    analyst = AnalysisBot(server, BOT_TOKEN, slots=1)
    driver = Driver()
    driver.bots.append(_bot(server))
    # A finished deal whose analysis is in flight when the database goes.
    first = Driver(bots=driver.bots)
    split_table(server.url, server.ws_url, server.url, server.ws_url, first)
    first.run_to_end(timeout=60)
    job = analyst.job()
    for _ in range(6):
        split_table(server.url, server.ws_url, server.url, server.ws_url, driver)
    for _ in range(4):
        _bot_table(server, driver)
    driver.hold_at = 8
    token, _ = guest_token(server.url)
    opener, joiner_token = Client(server.ws_url, token), guest_token(server.url)[0]
    opener.send({"type": "create_table", "variant": "tressette"})
    waiting = opener.wait_for(is_table)["table"]["id"]
    joiner = Client(server.ws_url, joiner_token)
    driver.run(2.0)

    own_pg.stop()
    driver.hold_at = None
    driver.run(2.0)
    joiner.send({"type": "join_table", "table_id": waiting})
    refused = joiner.error()
    assert refused["code"] == "internal"
    r = local_http.post(f"{server.url}/api/auth/guest", timeout=10)
    assert r.status_code == 503 and r.headers["retry-after"]
    assert local_http.get(f"{server.url}/readyz", timeout=10).status_code == 503
    assert local_http.get(f"{server.url}/healthz", timeout=10).status_code == 200
    with connect(server.ws_url, open_timeout=10) as ws:  # a new socket's sign-in: told, then closed
        ws.send(json.dumps({"type": "auth", "token": token}))
        told = ws.recv(timeout=10)
        assert '"unavailable"' in str(told)
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=10)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1013
    analyst.answer(job)  # the answer comes while the database is away
    driver.run(PG_OUTAGE_S - 2.0 - 2.0)
    own_pg.start()

    driver.run_to_end(timeout=120)
    assert local_http.get(f"{server.url}/readyz", timeout=10).status_code == 200
    joiner.send({"type": "join_table", "table_id": waiting})  # the refused join left no seat: it works now
    assert joiner.wait_for(lambda m: is_table(m) and m["table"]["status"] == "playing")["table"]["you"] == 1
    deadline = time.time() + 20
    while True:  # the answer given during the outage is stored once the database is back
        with db_session(own_pg.url) as s:
            status = s.execute(text("SELECT status FROM analyses WHERE game_id = :g"), {"g": job["game_id"]}).scalar()
        if status == "done":
            break
        assert time.time() < deadline, status
        time.sleep(0.3)
    assert local_http.get(f"{server.url}/healthz").json()["analysis_unstored"] == 0
    ends = check_stored_games(own_pg.url)
    print("ends:", ends, "errors:", dict(driver.errors))
    assert ends == {"finished": 11, "playing": 1}  # the ten and the first; the joined one just started
    assert driver.errors["internal"] >= 1  # the outage was felt (moves refused), and lived through
    with db_session(own_pg.url) as s:  # every end's totals were added, none twice
        assert s.execute(text("SELECT count(*) FROM games WHERE totals_pending")).scalar() == 0
        assert s.execute(text("SELECT sum(games) FROM user_totals")).scalar() == 2 * 11
