"""Whatever arrives on the socket is answered with a documented error or handled; nothing is a traceback.

Every JSON type in every field of every message, for a person and for a bot; frames that are not JSON,
nested deeper than the parser goes, or too large.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from server.protocol import CLIENT_MESSAGE, CLIENT_TYPES, ERROR_CODES
from tests.conftest import LiveServer
from tests.server.client import Client, Msg, guest_token

BOT_TOKEN = "ws-inputs-bot-token-0123456789"
FAST = {"TRESET_WS_RATE_PER_S": "100000", "TRESET_WS_RATE_BURST": "100000", "TRESET_BOT_TOKEN": BOT_TOKEN}
ANSWER_TYPES = {"error", "pong", "table", "lobby", "left", "chat", "seat_moved", "welcome", "seeking", "seek_ended"}
DEEP = 4000  # 8000 bytes: under the 8 KiB limit, far beyond the parser's depth


def json_values() -> list[Any]:
    """One of each JSON type, with edge cases: huge and negative numbers, long and odd strings, nesting."""
    return [None, True, False, 0, -1, 1.5, -1e308, 2**63, 2**64, 10**300, "", "x", "x" * 5000, "\u0000", "D AS",
            "\ud800".encode("utf-8", "surrogatepass").decode("utf-8", "replace"), [], [1, "a"], {}, {"a": [None]},
            [[[[[]]]]], {"type": "ping"}]


def client_fields() -> dict[str, list[str]]:
    """Every field of every client message type (from the protocol's models), plus an unknown one."""
    schema = CLIENT_MESSAGE.json_schema()
    fields: dict[str, list[str]] = {}
    for model in schema["$defs"].values():
        kind = model.get("properties", {}).get("type", {}).get("const")  # (nested models have no type)
        if kind in CLIENT_TYPES:
            fields[kind] = [*model["properties"], "unknown_field"]
    assert set(fields) == CLIENT_TYPES
    return fields


def _answers(c: Client, raw: str | bytes) -> list[Msg]:
    """Send ``raw``, then a ping; return what came back before the pong (the pong is the end marker)."""
    c.send(raw)
    c.send({"type": "ping"})
    got: list[Msg] = []
    while True:
        m = c.recv(timeout=10)
        if m["type"] == "pong":
            return got
        got.append(m)


def _check(answers: list[Msg], raw: str | bytes) -> None:
    for m in answers:
        assert m["type"] in ANSWER_TYPES, (raw, m)
        if m["type"] == "error":
            assert m["code"] in ERROR_CODES, (raw, m)
            assert isinstance(m["message"], str) and isinstance(m["params"], dict)


def _no_traceback(server: LiveServer) -> None:
    log = server.log()
    assert "Traceback" not in log and "Exception in ASGI" not in log, log[-3000:]


@pytest.fixture
def server(pg_url: str, start_server: Callable[..., LiveServer]) -> LiveServer:
    """A server where the message rate does not get in the way."""
    return start_server(pg_url, **FAST)


def test_every_json_type_in_every_field(server: LiveServer) -> None:
    """For a person and for a bot: each field of each message set to each JSON type, and ``type`` itself."""
    person = Client(server.ws_url, guest_token(server.url)[0])
    bot = Client(server.ws_url, BOT_TOKEN)
    base: dict[str, dict[str, Any]] = {
        "create_table": {}, "join_table": {"table_id": "t"}, "watch_table": {"table_id": "t"},
        "open_table": {"table_id": "t"}, "leave_table": {"table_id": "t"}, "play": {"table_id": "t", "card": "D AS"},
        "rematch": {"table_id": "t"}, "chat": {"table_id": "t", "text": "hi"}, "ping": {},
        "bot_hello": {"levels": ["normal"], "capacity": 1}, "analysis": {"job": "j", "game_id": 1, "error": "e"},
        "seek": {}, "cancel_seek": {}, "seat_bot": {"table_id": "t", "seat": 1, "level": "rules"},
    }
    sent = 0
    for c in (person, bot):
        for kind, fields in client_fields().items():
            for name in fields:
                for value in json_values():
                    msg = {"type": kind, **base[kind], name: value}
                    if kind == "create_table" and c is person:
                        msg["opponent"] = "bot"  # no bot plays here: the table is refused, so none piles up
                    raw = json.dumps(msg)
                    _check(_answers(c, raw), raw)
                    sent += 1
        for value in json_values():  # ``type`` of every JSON type, and messages that are not objects
            for raw in (json.dumps({"type": value}), json.dumps(value)):
                answers = _answers(c, raw)
                _check(answers, raw)
                if value != {"type": "ping"}:  # (that one is a ping: its pong ends the answers)
                    assert any(m["type"] == "error" for m in answers), raw
                sent += 2
    assert sent > 1500
    _no_traceback(server)


def test_frames_that_are_not_json_nested_or_too_large(server: LiveServer) -> None:
    """Not JSON, bad UTF-8, huge numbers, nesting beyond the parser: ``bad_json``; over the limit: ``too_large``
    before the close (1009 after three); a bot's deep analysis: ``bad_json`` or ``bad_message``."""
    c = Client(server.ws_url, guest_token(server.url)[0])
    cases: list[str | bytes] = ["", " ", "{", "nul", "NaN", "[" * DEEP + "]" * DEEP, '{"a":' * 1300 + "1" + "}" * 1300,
                                "1" * 5000, '{"type":"play","table_id":"t","card":"D AS","turn":' + "9" * 5000 + "}",
                                b"\xff\xfe", b"", "\x00"]
    for raw in cases:
        answers = _answers(c, raw)
        _check(answers, raw)
        assert [m["code"] for m in answers if m["type"] == "error"] in (["bad_json"], ["bad_message"]), raw[:80]

    bot = Client(server.ws_url, BOT_TOKEN)
    deep = '{"type":"analysis","job":"j","game_id":1,"analysis":' + '{"a":' * 20000 + "1" + "}" * 20000 + "}"
    answers = _answers(bot, deep)
    _check(answers, deep)
    assert [m["code"] for m in answers if m["type"] == "error"] in (["bad_json"], ["bad_message"])

    for size in (8193, 100_000):  # over people's limit, under the transport's: the error comes first
        answers = _answers(c, "x" * size)
        assert [m["code"] for m in answers if m["type"] == "error"] == ["too_large"]
    c.send("x" * 600_000)
    assert c.error()["code"] == "too_large"
    with pytest.raises(ConnectionClosed) as closed:  # the third oversized message: closed
        while True:
            c.recv(timeout=10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009

    big = Client(server.ws_url, guest_token(server.url)[0])  # past the transport limit: closed at once (1009)
    big.recv()
    big.send("x" * (2 << 20))
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            big.recv(timeout=10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
    _no_traceback(server)
