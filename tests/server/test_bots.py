"""The server side of the bot protocol, driven by scripted bots (no agent process).

``bot_hello`` and ``/healthz``; ``no_bot`` for a bot table without bots; ``bot_turn``
carries a valid agent state; a stale answer is dropped; a turn whose bot disappears
goes to another bot; a bot that reconnects gets its pending turn again.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from sqlalchemy import create_engine, select
from sqlalchemy.orm import Session

from server.game.levels import FALLBACK_TIME_MS
from server.store.models import Game, Move
from tests import local_http
from tests.conftest import LiveServer
from tests.forkserver import run_module
from tests.server.client import Client, Msg, guest_token, is_table, my_turn
from tressette import card_name, parse_state

BOT_TOKEN = "scripted-bot-token-1"


def _bot(server: LiveServer, token: str, capacity: int = 4) -> Client:
    bot = Client(server.ws_url, token)
    assert bot.recv()["type"] == "welcome"
    bot.send({"type": "bot_hello", "levels": ["normal"], "capacity": capacity})
    return bot


def _answer(bot: Client, turn: Msg, turn_no: int | None = None) -> None:
    state = parse_state(turn["state"])  # the rules package's own validation of the agent state
    card = card_name(state.legal_moves()[0])
    bot.send({"type": "play", "table_id": turn["table_id"], "card": card,
              "turn": turn["turn"] if turn_no is None else turn_no})


def _run(human: Client, bot: Client, table_id: str, stop: Callable[[Msg], bool], *, answer: bool = True,
         timeout: float = 30) -> Msg:
    """Let the human play its turns (and ``bot`` answer its own) until a message satisfies ``stop``."""
    end = time.time() + timeout
    while time.time() < end:
        for c in (human, bot):
            try:
                m = c.recv(timeout=0.05)
            except TimeoutError:
                continue
            if stop(m):
                return m
            if c is human and my_turn(m) and m["event"] is not None and m["table"]["id"] == table_id:
                human.send({"type": "play", "table_id": table_id, "card": m["table"]["view"]["legal"][0]})
            elif c is bot and m["type"] == "bot_turn":
                _answer(bot, m)
    raise TimeoutError(f"stop condition not reached; last human: {human.received[-2:]}")


def _open_bot_table(human: Client, variant: str) -> str:
    """Open a bot table; if the human leads, play its first card; return the table id."""
    human.send({"type": "create_table", "variant": variant, "opponent": "bot", "bot_level": "normal"})
    opened = human.wait_for(is_table)
    table_id: str = opened["table"]["id"]
    if my_turn(opened):
        human.send({"type": "play", "table_id": table_id, "card": opened["table"]["view"]["legal"][0]})
    return table_id


def _new_bot_token(db_url: str, name: str) -> str:
    out = run_module("server.tools.bots", ["create", name], check=True, env={**os.environ, "DATABASE_URL": db_url})
    return out.stdout.strip()


def test_bot_tables_survive_bots_coming_and_going(pg_url: str, start_server: Callable[..., LiveServer]) -> None:
    """A bot game is finished although its bots leave: reassigned, then re-sent on reconnect."""
    server = start_server(pg_url, TRESET_BOT_TOKEN=BOT_TOKEN)
    human = Client(server.ws_url, guest_token(server.url)[0])
    human.send({"type": "create_table", "variant": "kifameno", "opponent": "bot", "bot_level": "normal"})
    assert human.error()["code"] == "no_bot"

    second_token = _new_bot_token(pg_url, "bot-two")
    assert second_token and second_token != BOT_TOKEN
    one = _bot(server, BOT_TOKEN, capacity=4)
    two = _bot(server, second_token, capacity=3)
    one.send({"type": "ping"})
    assert one.wait_for(lambda m: m["type"] == "pong")
    health = local_http.get(f"{server.url}/healthz", timeout=5).json()
    assert health["bots_connected"] == 2 and health["bot_capacity"] == 7 and health["bot_levels"] == ["normal"]

    table_id = _open_bot_table(human, "kifameno")
    # Bot one (the least loaded, first) gets the first bot turn; a stale answer is ignored.
    first = _run(human, one, table_id, lambda m: m["type"] == "bot_turn", answer=False, timeout=15)
    assert first["table_id"] == table_id and first["level"] == "normal"
    assert 0 < first["time_ms"] <= 5000
    _answer(one, first, turn_no=first["turn"] + 7)
    # Bot one disappears holding the turn: the same turn goes to bot two.
    one.close()
    again = two.wait_for(lambda m: m["type"] == "bot_turn")
    assert (again["table_id"], again["turn"], again["state"]) == (first["table_id"], first["turn"], first["state"])
    _answer(two, again)
    # Play on until bot two holds a turn after move 20, then drop it too.
    held = _run(human, two, table_id, lambda m: m["type"] == "bot_turn" and m["turn"] >= 20)
    two.close()
    waiting = human.wait_for(lambda m: is_table(m) and (m["event"] or {}).get("kind") == "notice"
                             and m["table"]["notice"] is not None)
    assert waiting["table"]["turn_deadline"] is None  # no bot, no clock: the bot seat does not forfeit
    assert local_http.get(f"{server.url}/healthz", timeout=5).json()["bots_connected"] == 0
    # Bots are stateless: the reconnected bot is sent the pending turn again.
    back = _bot(server, second_token)
    resent = back.wait_for(lambda m: m["type"] == "bot_turn")
    assert (resent["turn"], resent["state"]) == (held["turn"], held["state"])
    _answer(back, resent)
    resumed = human.wait_for(lambda m: is_table(m) and (m["event"] or {}).get("kind") == "notice")
    assert resumed["table"]["notice"] is None and resumed["table"]["turn_deadline"] is not None
    end = _run(human, back, table_id, lambda m: is_table(m) and m["table"]["status"] == "finished")
    assert end["table"]["result"]["reason"] == "finished" and end["table"]["notice"] is None

    engine = create_engine(pg_url)
    with Session(engine) as s:
        game = s.scalars(select(Game)).one()
        assert game.status == "finished" and game.bot_level == "normal"
        numbers = list(s.scalars(select(Move.move_number).where(Move.game_id == game.id).order_by(Move.move_number)))
        assert numbers == list(range(40))
    engine.dispose()
    human.close()
    back.close()


def test_only_bot_accounts_may_say_bot_hello(sqlite_url: str, start_server: Callable[..., LiveServer]) -> None:
    """A person's ``bot_hello`` is refused; bots cannot open or join tables."""
    server = start_server(sqlite_url, TRESET_BOT_TOKEN=BOT_TOKEN)
    person = Client(server.ws_url, guest_token(server.url)[0])
    person.send({"type": "bot_hello", "levels": ["normal"], "capacity": 2})
    assert person.error()["code"] == "bad_message"
    assert local_http.get(f"{server.url}/healthz", timeout=5).json()["bots_connected"] == 0
    bot = _bot(server, BOT_TOKEN)
    bot.send({"type": "create_table", "variant": "tressette"})
    assert bot.error()["code"] == "bad_message"
    person.send({"type": "create_table", "variant": "tressette"})
    table_id = person.wait_for(is_table)["table"]["id"]
    bot.send({"type": "join_table", "table_id": table_id})
    assert bot.error()["code"] == "table_full"
    bot.send({"type": "bot_hello", "levels": ["normal"], "capacity": 0})
    assert bot.error()["code"] == "bad_message"
    person.close()
    bot.close()


def test_a_bot_game_survives_kill_9(pg_url: str, start_server: Callable[..., LiveServer]) -> None:
    """Kill -9 while the bot is to move; after the restart the bot's turn is sent to the reconnected bot."""
    server = start_server(pg_url, TRESET_BOT_TOKEN=BOT_TOKEN)
    token = guest_token(server.url)[0]
    human, bot = Client(server.ws_url, token), _bot(server, BOT_TOKEN)
    table_id = _open_bot_table(human, "tressette")
    held = _run(human, bot, table_id, lambda m: m["type"] == "bot_turn" and m["turn"] >= 9)
    server.kill()
    human.close()
    bot.close()

    again = start_server(pg_url, port=server.port, TRESET_BOT_TOKEN=BOT_TOKEN)
    human = Client(again.ws_url, token)
    restored = human.wait_for(is_table)["table"]
    assert restored["id"] == table_id and restored["notice"] is not None and restored["turn_deadline"] is None
    bot = _bot(again, BOT_TOKEN)
    resent = bot.wait_for(lambda m: m["type"] == "bot_turn")
    assert (resent["table_id"], resent["turn"], resent["state"]) == (table_id, held["turn"], held["state"])
    _answer(bot, resent)
    end = _run(human, bot, table_id, lambda m: is_table(m) and m["table"]["status"] == "finished")
    assert end["table"]["result"]["reason"] == "finished"
    engine = create_engine(pg_url)
    with Session(engine) as s:
        numbers = list(s.scalars(select(Move.move_number).order_by(Move.move_number)))
        assert numbers == list(range(40))
    engine.dispose()
    human.close()
    bot.close()


def test_a_bot_is_never_sent_more_turns_than_its_capacity(pg_url: str,
                                                           start_server: Callable[..., LiveServer]) -> None:
    """With capacity 1, a second table's bot turn waits (no clock) until the first is answered."""
    server = start_server(pg_url, TRESET_BOT_TOKEN=BOT_TOKEN)
    bot = _bot(server, BOT_TOKEN, capacity=1)
    one, two = (Client(server.ws_url, guest_token(server.url)[0]) for _ in range(2))
    first_table = _open_bot_table(one, "tressette")
    held = _run(one, bot, first_table, lambda m: m["type"] == "bot_turn", answer=False, timeout=15)
    assert local_http.get(f"{server.url}/healthz", timeout=5).json()["bot_capacity"] == 0
    second_table = _open_bot_table(two, "kifameno")
    busy = two.wait_for(lambda m: is_table(m) and m["table"]["notice"] is not None)
    assert busy["table"]["notice"]["code"] == "bots_busy" and busy["table"]["turn_deadline"] is None
    assert all(m["type"] != "bot_turn" for m in bot.received if m is not held)
    _answer(bot, held)
    nxt = bot.wait_for(lambda m: m["type"] == "bot_turn")
    assert nxt["table_id"] == second_table
    resumed = two.wait_for(lambda m: is_table(m) and m["table"]["notice"] is None)
    assert resumed["table"]["turn_deadline"] is not None
    for c in (one, two, bot):
        c.close()


def test_the_server_learns_the_levels_from_bot_hello(pg_url: str, start_server: Callable[..., LiveServer]) -> None:
    """Before any bot, the fallback levels (none available); then a bot's ``level_info`` adds and times levels."""
    server = start_server(pg_url, TRESET_BOT_TOKEN=BOT_TOKEN)
    before = local_http.get(f"{server.url}/api/bot-levels", timeout=5).json()["levels"]
    fallback = [(name, ms, False) for name, ms in FALLBACK_TIME_MS.items()]  # the shipped agent's ladder
    assert [(lv["name"], lv["time_ms"], lv["available"]) for lv in before] == fallback
    bot = Client(server.ws_url, BOT_TOKEN)
    assert bot.recv()["type"] == "welcome"
    bot.send({"type": "bot_hello", "levels": ["normal", "brutal"], "capacity": 1,
              "level_info": [{"name": "normal", "time_ms": 250}, {"name": "brutal", "time_ms": 2000}]})
    bot.send({"type": "ping"})
    assert bot.wait_for(lambda m: m["type"] == "pong")
    after = local_http.get(f"{server.url}/api/bot-levels", timeout=5).json()["levels"]
    # The bot's word retimes "normal" and adds "brutal" (after the fallback's levels); the rest wait for a bot.
    assert [(lv["name"], lv["time_ms"], lv["available"]) for lv in after] == [
        (name, 250, True) if name == "normal" else (name, ms, False) for name, ms, _ in fallback] + [("brutal", 2000, True)]
    human = Client(server.ws_url, guest_token(server.url)[0])
    human.send({"type": "create_table", "variant": "tressette", "opponent": "bot", "bot_level": "brutal"})
    assert human.wait_for(is_table)["table"]["bot_level"] == "brutal"
