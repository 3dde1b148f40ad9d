"""Real agent processes join bot tables by themselves and play complete games."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, func, select
from sqlalchemy.orm import Session

from server.store.models import Game, Move
from tests import local_http
from tests.conftest import LiveServer, wait_for_bots
from tests.forkserver import ForkedProcess, fork_module
from tests.server.client import Client, guest_token, is_table, my_turn

BOT_TOKEN = "test-bot-token-1234567890"


@pytest.fixture
def start_agent(tmp_path: Path) -> Iterator[Callable[[LiveServer], ForkedProcess]]:
    """Return a function starting ``treset-agent serve`` (forked: tests/forkserver.py) against a server; all are
    stopped after.

    The bot analyses no deal unless ``analysis`` gives it slots: an analysis takes about 8 s of a core, which a
    test that only plays would spend for nothing (and wait for when it stops the bot).
    """
    procs: list[ForkedProcess] = []

    def start(server: LiveServer, analysis: int = 0) -> ForkedProcess:
        # The token travels in the environment, never on the command line (the process list shows that).
        proc = fork_module("agent.cli", ["serve", "--server", server.url, "--capacity", "2", "--analysis",
                                         str(analysis), "--log-level", "DEBUG"],
                           {**os.environ, "PYTHONUNBUFFERED": "1", "TRESET_BOT_TOKEN": BOT_TOKEN},
                           stdout=tmp_path / f"agent-{len(procs)}.log")
        procs.append(proc)
        wait_for_bots(server.url, len([p for p in procs if p.poll() is None]), proc,
                      tmp_path / f"agent-{len(procs) - 1}.log")
        return proc

    yield start
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(15)
            except subprocess.TimeoutExpired:
                p.kill()


def _human_vs_bot(server: LiveServer, variant: str, level: str = "easy") -> tuple[Client, str]:
    token, _ = guest_token(server.url)
    human = Client(server.ws_url, token)
    human.send({"type": "create_table", "variant": variant, "opponent": "bot", "bot_level": level})
    start = human.wait_for(lambda m: is_table(m) and m["table"]["status"] == "playing")
    assert start["table"]["players"][1]["is_bot"] and start["table"]["bot_level"] == level
    if my_turn(start):
        human.send({"type": "play", "table_id": start["table"]["id"], "card": start["table"]["view"]["legal"][0]})
    return human, start["table"]["id"]


def _finish(human: Client, table_id: str, timeout: float = 120) -> dict:
    end = time.time() + timeout
    while time.time() < end:
        m = human.recv(timeout=max(0.1, end - time.time()))
        if not is_table(m):
            continue
        if m["table"]["status"] == "finished" and (m["event"] or {}).get("kind") == "end":
            return m
        if my_turn(m) and m["event"] is not None and m["event"].get("kind") != "notice":
            human.send({"type": "play", "table_id": table_id, "card": m["table"]["view"]["legal"][0]})
    raise TimeoutError("the game did not finish")


def _moves_and_status(db_url: str) -> list[tuple[str, int]]:
    engine = create_engine(db_url)
    with Session(engine) as s:
        rows = [(g.status, s.scalar(select(func.count()).select_from(Move).where(Move.game_id == g.id)) or 0)
                for g in s.scalars(select(Game).order_by(Game.id))]
    engine.dispose()
    return rows


@pytest.mark.parametrize("variant", ["tressette", "kifameno"])
def test_human_seat_against_the_bot(variant: str, pg_url: str, start_server: Callable[..., LiveServer],
                                    start_agent: Callable[[LiveServer], ForkedProcess]) -> None:
    """A scripted human plays a whole deal against a real agent process; every move is logged."""
    server = start_server(pg_url, TRESET_BOT_TOKEN=BOT_TOKEN)
    start_agent(server)
    health = local_http.get(f"{server.url}/healthz").json()
    assert health["bots_connected"] == 1 and health["bot_capacity"] >= 1
    human, table_id = _human_vs_bot(server, variant)
    final = _finish(human, table_id)
    assert sum(final["table"]["result"]["points"]) == 35
    assert _moves_and_status(pg_url) == [("finished", 40)]


def test_a_killed_agent_is_replaced(pg_url: str, start_server: Callable[..., LiveServer],
                                    start_agent: Callable[[LiveServer], ForkedProcess]) -> None:
    """Kill the agent mid-game: the table says it waits for a bot; a new agent finishes the game."""
    server = start_server(pg_url, TRESET_BOT_TOKEN=BOT_TOKEN)
    first = start_agent(server)
    human, table_id = _human_vs_bot(server, "tressette")
    # Kill the agent while it is the human's turn, then play on until the bot is to move.
    while True:
        m = human.recv(timeout=30)
        if my_turn(m) and m["event"] is not None:
            first.kill()
            first.wait(10)
            human.send({"type": "play", "table_id": table_id, "card": m["table"]["view"]["legal"][0]})
            break
    while True:
        notice = human.recv(timeout=30)
        if is_table(notice) and notice["table"]["notice"]:
            break
        if my_turn(notice) and notice["event"] is not None:  # the human won the trick: lead again
            human.send({"type": "play", "table_id": table_id, "card": notice["table"]["view"]["legal"][0]})
    assert notice["table"]["notice"]["code"] == "no_bot" and "no bot" in notice["table"]["notice"]["message"]
    start_agent(server)
    final = _finish(human, table_id)
    assert final["table"]["result"]["reason"] == "finished"
    assert _moves_and_status(pg_url) == [("finished", 40)]


def test_no_bot_connected_is_reported(pg_url: str, start_server: Callable[..., LiveServer]) -> None:
    """Asking for a bot table with no bot connected gets a clear ``no_bot`` error."""
    server = start_server(pg_url)
    token, _ = guest_token(server.url)
    human = Client(server.ws_url, token)
    human.send({"type": "create_table", "variant": "tressette", "opponent": "bot", "bot_level": "strong"})
    err = human.error()
    assert err["code"] == "no_bot" and "no bot is connected" in err["message"]
    assert local_http.get(f"{server.url}/api/tables").json()["tables"] == []
