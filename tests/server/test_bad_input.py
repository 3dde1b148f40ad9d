"""Bad input gets a clear error (or close code) and changes nothing."""

from __future__ import annotations

import json
import time
from collections.abc import Callable

import psycopg
import pytest
from sqlalchemy import create_engine, func, select
from sqlalchemy.orm import Session
from websockets.exceptions import ConnectionClosed, InvalidStatus

from server.store.models import Move
from tests import local_http
from tests.conftest import LiveServer
from tests.server.client import Client, is_table, my_turn, open_pair
from tressette import ALL_CARDS, card_name


@pytest.fixture
def game(pg_url: str, start_server: Callable[..., LiveServer]) -> tuple[LiveServer, Client, Client, str, dict]:
    """A running deal between two guests; returns the mover's client first and its table message."""
    server = start_server(pg_url)
    a, b, table_id = open_pair(server.url, server.ws_url)
    ma = a.wait_for(lambda m: is_table(m) and m["table"]["status"] == "playing")
    mb = b.wait_for(lambda m: is_table(m) and m["table"]["status"] == "playing")
    return (server, a, b, table_id, ma) if my_turn(ma) else (server, b, a, table_id, mb)


def _moves(server: LiveServer) -> int:
    engine = create_engine(server.db_url)
    with Session(engine) as s:
        n = s.scalar(select(func.count()).select_from(Move))
    engine.dispose()
    return int(n or 0)


def test_each_bad_message_gets_a_clear_error(game: tuple) -> None:
    """Malformed JSON, unknown type, bad fields, a card not in hand, out of turn: errors, no move."""
    server, mover, other, table_id, msg = game
    hand = msg["table"]["view"]["hand"]
    not_mine = next(card_name(c) for c in ALL_CARDS if card_name(c) not in hand)
    cases = [
        (mover, "{not json", "bad_json", {}),
        (mover, json.dumps({"type": "fly"}), "bad_message", {}),
        (mover, json.dumps([1, 2]), "bad_message", {}),
        (mover, json.dumps({"type": "play", "table_id": table_id}), "bad_message", {}),
        (mover, json.dumps({"type": "play", "table_id": table_id, "card": "Z 9"}), "illegal_card",
         {"card": "Z 9", "reason": "bad_card"}),
        (mover, json.dumps({"type": "play", "table_id": table_id, "card": not_mine.lower()}), "illegal_card",
         {"card": not_mine, "reason": "not_in_hand"}),
        (mover, json.dumps({"type": "play", "table_id": "nope", "card": hand[0]}), "no_table", {"table_id": "nope"}),
        (other, json.dumps({"type": "play", "table_id": table_id, "card": hand[0]}), "not_your_turn",
         {"card": hand[0]}),
        (mover, json.dumps({"type": "join_table", "table_id": table_id}), "bad_message", {}),
    ]
    for client, raw, code, params in cases:
        client.send(raw)
        err = client.error()
        assert (err["code"], err["params"]) == (code, params), (raw, err)
        assert err["message"]
    assert _moves(server) == 0
    # The game goes on normally afterwards.
    mover.send({"type": "play", "table_id": table_id, "card": msg["table"]["view"]["legal"][0]})
    mover.wait_for(lambda m: is_table(m) and (m["event"] or {}).get("kind") == "play")
    assert _moves(server) == 1


def test_follow_suit_is_enforced(game: tuple) -> None:
    """A follower holding the led suit cannot play another suit: ``must_follow`` with the suit led, no move."""
    server, mover, other, table_id, msg = game
    mover.send({"type": "play", "table_id": table_id, "card": msg["table"]["view"]["legal"][0]})  # the lead
    played, refused = 1, False
    end = time.time() + 30
    while not refused and time.time() < end:  # play on until a follower holds the suit led and another one
        for client in (mover, other):
            try:
                m = client.recv(timeout=0.05)
            except TimeoutError:
                continue
            if not my_turn(m) or m["event"] is None:
                continue
            view = m["table"]["view"]
            off = [c for c in view["hand"] if c not in view["legal"]]
            if view["table"] and off:
                client.send({"type": "play", "table_id": table_id, "card": off[0]})
                err = client.error()
                assert err["code"] == "illegal_card" and "follow suit" in err["message"]
                assert err["params"] == {"card": off[0], "reason": "must_follow", "suit": view["table"][0].split()[0]}
                assert _moves(server) == played
                refused = True
                break
            client.send({"type": "play", "table_id": table_id, "card": view["legal"][0]})
            played += 1
    assert refused


def test_oversized_messages_and_second_connection(game: tuple) -> None:
    """An oversized message is refused (closed after three); a second socket does not steal a seat on connect."""
    server, mover, other, table_id, _ = game
    second = Client(server.ws_url, mover.token)
    hello = second.wait_for(lambda m: m["type"] == "welcome")
    assert hello["seats"] == [{"table_id": table_id, "seat": hello["seats"][0]["seat"], "status": "playing",
                               "elsewhere": True}]
    second.send({"type": "play", "table_id": table_id, "card": "B 3"})
    err = second.error()
    assert (err["code"], err["params"]) == ("not_seated", {"table_id": table_id})
    big = json.dumps({"type": "chat", "table_id": table_id, "text": "x" * 20_000})
    for _ in range(3):
        other.send(big)
        err = other.error()
        assert (err["code"], err["params"]) == ("too_large", {"limit": 8192})
    with pytest.raises(ConnectionClosed) as closed:
        other.recv(timeout=5)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
    assert _moves(server) == 0


def test_unauthenticated_requests_are_refused(pg_url: str, start_server: Callable[..., LiveServer]) -> None:
    """No token or a wrong one: an ``auth_failed`` error, then the socket is closed with 4401; HTTP answers 401."""
    server = start_server(pg_url)
    for token in ("", "not-a-token"):
        try:
            c = Client(server.ws_url, token)
            assert c.recv(timeout=5)["code"] == "auth_failed"
            with pytest.raises(ConnectionClosed) as closed:
                c.recv(timeout=5)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401
        except InvalidStatus as exc:  # a server may also refuse the handshake itself
            assert exc.response.status_code in (401, 403)
    assert local_http.get(f"{server.url}/api/me", timeout=5).status_code == 401
    assert local_http.get(f"{server.url}/api/me", headers={"Authorization": "Bearer nope"}, timeout=5).status_code == 401


def test_a_move_the_database_refuses_is_not_played(game: tuple) -> None:
    """If the commit fails, the mover gets ``internal``, nobody sees the card, and it can be sent again."""
    server, mover, other, table_id, msg = game
    card = msg["table"]["view"]["legal"][0]
    admin = psycopg.connect(server.db_url.replace("postgresql+psycopg://", "postgresql://"), autocommit=True)
    admin.execute("ALTER TABLE moves RENAME TO moves_away")
    try:
        mover.send({"type": "play", "table_id": table_id, "card": card})
        err = mover.error()
        assert (err["code"], err["ref"]) == ("internal", "play")
    finally:
        admin.execute("ALTER TABLE moves_away RENAME TO moves")
        admin.close()
    with pytest.raises(TimeoutError):
        other.wait_for(lambda m: is_table(m) and (m["event"] or {}).get("kind") == "play", timeout=1)
    assert _moves(server) == 0
    mover.send({"type": "play", "table_id": table_id, "card": card})
    seen = other.wait_for(lambda m: is_table(m) and (m["event"] or {}).get("kind") == "play")
    assert seen["event"]["card"] == card and _moves(server) == 1
