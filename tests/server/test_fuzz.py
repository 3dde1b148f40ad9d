"""A bounded, seeded fuzz of a live game: thousands of hostile messages change nothing.

Two guests play a deal while they and an outsider send hostile messages between the moves
(malformed JSON, wrong types, cards not in hand or out of turn, other tables, deep nesting, ...).
Checked: no traceback in the server log, every answer a documented error, no move but the ones
played, the deal finishes, and the move log in the database is exactly the moves played.
"""

from __future__ import annotations

import functools
import json
import random
from collections.abc import Callable
from typing import Any

from sqlalchemy import create_engine, select
from sqlalchemy.orm import Session

from server.protocol import CLIENT_TYPES, ERROR_CODES
from server.store.models import Game, Move
from tests.conftest import LiveServer
from tests.server.client import Client, Msg, guest_token, is_table
from tressette import ALL_CARDS, card_name, parse_card

HOSTILE_MESSAGES = 3000
FAST = {"TRESET_WS_RATE_PER_S": "100000", "TRESET_WS_RATE_BURST": "100000", "TRESET_MOVE_TIMEOUT_S": "120"}
CARDS = [card_name(c) for c in ALL_CARDS]


def _value(rng: random.Random, table_id: str) -> Any:
    return rng.choice([None, True, 0, -1, 2**64, 1.5, "", "x" * rng.randint(1, 300), [], {}, [table_id], {"a": 1},
                       table_id, table_id.upper(), rng.choice(CARDS), "Z 9", "\u0000", "💥"])


def hostile(rng: random.Random, table_id: str, not_playable: list[str]) -> str | bytes:
    """One hostile message: never a legal move, never a ``leave_table`` of the game, never a well-formed ``seek``
    (those would change it: two seekers are paired into a new game, as they asked)."""
    roll = rng.random()
    if roll < 0.1:
        return rng.choice(["{", "[]", "null", "1e999", '{"type":', "\u0000", "[" * 3000 + "]" * 3000])  # (too_large: in test_ws_inputs)
    if roll < 0.15:
        return bytes(rng.randrange(256) for _ in range(rng.randint(1, 40)))
    if roll < 0.45:  # a card the sender may not play now, at the game's table
        return json.dumps({"type": "play", "table_id": table_id, "card": rng.choice(not_playable),
                           "turn": rng.choice([None, 0, 5, 2**40])})
    kind = rng.choice([*sorted(CLIENT_TYPES - {"leave_table"}), "auth", "fly", ""])
    if kind == "seek":
        return json.dumps({"type": "seek", "variant": rng.choice(["tressette", "x", 7]), "target": 20})  # refused
    msg: dict[str, Any] = {"type": kind}
    for name in rng.sample(["table_id", "card", "text", "invite", "variant", "opponent", "levels", "capacity",
                            "job", "game_id", "analysis", "error", "turn", "bot_level", "extra"], rng.randint(0, 4)):
        msg[name] = _value(rng, table_id)
    if kind == "play" and isinstance(msg.get("card"), str):
        msg["table_id"] = "elsewhere"  # (a card that happens to be legal goes to no table)
    if kind in ("create_table",):
        msg["opponent"] = "bot"  # no bot here: refused, so tables do not pile up
    return json.dumps(msg)


def test_thousands_of_hostile_messages_change_nothing(pg_url: str, start_server: Callable[..., LiveServer]) -> None:
    """3000 hostile messages interleaved with a real deal: documented errors only, the deal and its log exact."""
    server = start_server(pg_url, **FAST)
    rng = random.Random(22)
    a, b, outsider = (Client(server.ws_url, guest_token(server.url)[0]) for _ in range(3))
    a.send({"type": "create_table"})
    table_id = a.wait_for(is_table)["table"]["id"]
    b.send({"type": "join_table", "table_id": table_id})
    players = [a, b]
    last: dict[int, Msg] = {}
    for i, c in enumerate(players):
        last[i] = c.wait_for(lambda m: is_table(m) and m["table"]["status"] == "playing")
    played: list[str] = []
    sent = 0
    errors: list[Msg] = []

    def settle(c: Client, i: int | None) -> None:
        """Read ``c``'s answers up to a ping's pong: every message it sent before is handled then.

        (Without it a player's hostile card could still be on its way when the other player's move
        makes it that player's turn: it would then be a legal move, played as sent.)"""
        c.send({"type": "ping"})
        while (m := c.recv()).get("type") != "pong":
            if m["type"] == "error":
                errors.append(m)
            elif is_table(m) and m["table"]["id"] == table_id and i is not None:
                last[i] = m

    while True:
        view = [last[i]["table"] for i in (0, 1)]
        if view[0]["status"] == "finished" and view[1]["status"] == "finished":
            break
        mover = view[0]["view"]["to_move"]
        legal = view[mover]["view"]["legal"]
        # Hostile messages between two moves: from both players and the outsider.
        for _ in range(rng.randint(80, 120) if sent < HOSTILE_MESSAGES else 0):
            who = rng.randrange(3)
            not_playable = [c for c in CARDS if who != mover or c not in legal] if who < 2 else CARDS
            (players + [outsider])[who].send(hostile(rng, table_id, not_playable))
            sent += 1
        for i, c in enumerate(players):
            settle(c, i)
        settle(outsider, None)
        assert _moves(server.db_url) == played, "a hostile message changed the game"
        card = rng.choice(legal)
        players[mover].send({"type": "play", "table_id": table_id, "card": card})
        played.append(card)
        for i, c in enumerate(players):  # wait for this move to reach both players
            last[i] = c.wait_for(functools.partial(_after_move, table_id=table_id, moves=len(played)))
    for c in (*players, outsider):  # read every answer still on its way
        settle(c, None)
    assert sent >= HOSTILE_MESSAGES and len(played) == 40
    assert len(errors) > 0.8 * sent  # nearly every hostile message was answered with an error (pings: pong)
    assert errors and {e["code"] for e in errors} <= ERROR_CODES, {e["code"] for e in errors} - ERROR_CODES
    assert _moves(server.db_url) == played  # the move log is exactly the moves played, in order
    engine = create_engine(server.db_url)
    with Session(engine) as session:
        game = session.scalars(select(Game)).one()
        assert game.status == "finished" and game.end_reason == "finished" and (game.points0 or 0) + (game.points1 or 0) == 35
    engine.dispose()
    log = server.log()
    assert "Traceback" not in log and "ERROR" not in log, log[-3000:]


def _after_move(m: Msg, *, table_id: str, moves: int) -> bool:
    """Return True for the game table's message that shows ``moves`` cards played."""
    if not is_table(m) or m["table"]["id"] != table_id or m["event"] is None or not m["table"]["view"]:
        return False
    view = m["table"]["view"]
    return 2 * len(view["history"]) + len(view["table"]) >= moves


def _moves(db_url: str) -> list[str]:
    engine = create_engine(db_url)
    with Session(engine) as session:
        cards = [card_name(m.card) for m in session.scalars(select(Move).order_by(Move.game_id, Move.move_number))]
    engine.dispose()
    assert all(parse_card(c) in ALL_CARDS for c in cards)
    return cards
