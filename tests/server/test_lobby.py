"""The lobby over WebSocket: live updates, private invite tables, full tables, watching, leaving, chat."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import create_engine, select
from sqlalchemy.orm import Session

from server.game.analysis import AnalysisQueue
from server.game.hub import LOBBY_LIMIT, Hub
from server.game.records import MemoryStore
from server.game.tables import Table
from server.settings import Settings
from server.store.models import Game, UserTotals
from tests.conftest import LiveServer
from tests.server.client import Client, Msg, guest_token, is_table
from tressette import Variant


def _lobby_with(pred: Callable[[list[Msg]], bool]) -> Callable[[Msg], bool]:
    return lambda m: m["type"] == "lobby" and pred(m["tables"])


def test_lobby_invites_watching_leaving_and_chat(sqlite_url: str, start_server: Callable[..., LiveServer]) -> None:
    """Everything a lobby user can do, with each refusal a clear error that changes nothing."""
    server = start_server(sqlite_url)
    a, b, c = (Client(server.ws_url, guest_token(server.url)[0]) for _ in range(3))
    hello = c.wait_for(lambda m: m["type"] == "welcome")
    assert hello["user"]["role"] == "guest"
    assert c.wait_for(lambda m: m["type"] == "lobby")["tables"] == []

    # An open table appears in everyone's lobby; a private one never does.
    a.send({"type": "create_table", "variant": "kifameno", "opponent": "anyone"})
    open_id = a.wait_for(is_table)["table"]["id"]
    listed = c.wait_for(_lobby_with(lambda ts: any(t["id"] == open_id for t in ts)))
    line = next(t for t in listed["tables"] if t["id"] == open_id)
    assert line["status"] == "waiting" and line["variant"] == "kifameno" and line["players"][1] is None
    a.send({"type": "create_table", "variant": "tressette", "opponent": "invite"})
    private = a.wait_for(lambda m: is_table(m) and m["table"]["opponent"] == "invite")["table"]
    code = private["invite"]
    assert code and private["status"] == "waiting"

    for wrong in (None, "not-the-code"):
        b.send({"type": "join_table", "table_id": private["id"], "invite": wrong})
        assert b.error()["code"] == "bad_invite"
    b.send({"type": "join_table", "table_id": "no-such-table"})
    assert b.error()["code"] == "no_table"
    b.send({"type": "join_table", "table_id": private["id"], "invite": code})
    started = b.wait_for(lambda m: is_table(m) and m["table"]["status"] == "playing")["table"]
    assert started["id"] == private["id"] and started["invite"] is None  # only the creator is sent the code

    # The open table fills up; a third person may only watch, and sees no hand.
    c.send({"type": "join_table", "table_id": private["id"], "invite": code})
    assert c.error()["code"] == "table_full"
    c.send({"type": "watch_table", "table_id": "nope"})
    assert c.error()["code"] == "no_table"
    for wrong in (None, "not-the-code"):  # a private table is watched only with its invite
        c.send({"type": "watch_table", "table_id": private["id"], "invite": wrong})
        assert c.error()["code"] == "bad_invite"
        c.send({"type": "open_table", "table_id": private["id"], "invite": wrong})
        assert c.error()["code"] == "bad_invite"
    c.send({"type": "watch_table", "table_id": private["id"], "invite": code})
    watched = c.wait_for(is_table)["table"]
    assert watched["you"] is None and watched["view"]["hand"] == [] and watched["invite"] is None

    # Rematch before the end, and chat (rate limited), reach the right people.
    a.send({"type": "rematch", "table_id": private["id"]})
    assert a.error()["code"] == "bad_message"
    b.send({"type": "chat", "table_id": private["id"], "text": "  hello  "})
    b.send({"type": "chat", "table_id": private["id"], "text": "again"})
    assert b.error()["code"] == "rate_limited"
    said = c.wait_for(lambda m: m["type"] == "chat")
    assert (said["from"], said["text"], said["table_id"]) == (started["players"][1]["username"], "hello", private["id"])
    assert a.wait_for(lambda m: m["type"] == "chat")["text"] == "hello"
    a.send(b"\xff\xfe not json")  # a binary frame
    assert a.error()["code"] == "bad_json"
    a.send({"type": "ping"})
    assert a.wait_for(lambda m: m["type"] == "pong") == {"type": "pong"}

    # Leaving a running deal forfeits it: a loss for the leaver; before both had played a card it is aborted,
    # in no totals (tests/server/test_aborted.py: counted after two cards).
    a.send({"type": "leave_table", "table_id": private["id"]})
    end = b.wait_for(lambda m: is_table(m) and m["event"] is not None and m["event"].get("kind") == "end")
    assert end["event"] == {"kind": "end", "reason": "left", "cause": "left", "seat": 0}
    assert end["table"]["result"]["winner"] == 1 and end["table"]["result"]["reason"] == "left"
    assert end["table"]["result"]["rated"] is False
    a.send({"type": "leave_table", "table_id": private["id"]})
    assert a.error()["code"] == "not_seated"
    engine = create_engine(sqlite_url)
    with Session(engine) as s:
        game = s.scalars(select(Game)).one()
        assert (game.status, game.end_reason, game.winner_seat) == ("finished", "left", 1)
        assert list(s.scalars(select(UserTotals))) == []
    engine.dispose()
    for client in (a, b, c):
        client.close()


def test_lobby_counts_people_and_bot_levels(pg_url: str, start_server: Callable[..., LiveServer]) -> None:
    """``online`` counts distinct people (not bots); ``bot_levels`` follows the connected bots; both re-sent."""
    server = start_server(pg_url, TRESET_BOT_TOKEN="lobby-bot-token")
    token, _ = guest_token(server.url)
    a = Client(server.ws_url, token)
    first = a.wait_for(lambda m: m["type"] == "lobby")
    assert (first["online"], first["bot_levels"]) == (1, [])
    a_again = Client(server.ws_url, token)  # the same person twice is one person
    b = Client(server.ws_url, guest_token(server.url)[0])
    a.wait_for(lambda m: m["type"] == "lobby" and m["online"] == 2)
    bot = Client(server.ws_url, "lobby-bot-token")
    bot.send({"type": "bot_hello", "levels": ["normal", "strong"], "capacity": 2})  # weakest first
    served = a.wait_for(lambda m: m["type"] == "lobby" and m["bot_levels"] != [])
    assert (served["online"], served["bot_levels"]) == (2, ["normal", "strong"])  # the bots' order, for the ladder
    bot.close()
    a.wait_for(lambda m: m["type"] == "lobby" and m["bot_levels"] == [])
    b.close()
    a_again.close()
    a.wait_for(lambda m: m["type"] == "lobby" and m["online"] == 1)
    # A newcomer's first lobby counts it too, though the last one sent (to a) said 1.
    c = Client(server.ws_url, guest_token(server.url)[0])
    assert c.wait_for(lambda m: m["type"] == "lobby")["online"] == 2
    c.close()
    a.close()


def test_lobby_size_is_capped() -> None:
    """At most 50 waiting and 50 playing public tables are listed, newest first; private and finished ones never."""
    hub = Hub(Settings(), MemoryStore(), AnalysisQueue(sessions=lambda: None))  # type: ignore[arg-type,return-value]
    for i in range(200):
        status = ("waiting", "playing", "finished")[i % 3]
        opponent = "invite" if i % 10 == 9 else "anyone"
        hub.rooms.add(Table(id=f"t{i}", variant=Variant.TRESSETTE, opponent=opponent, created_at=1000.0 + i,
                            status=status))
    tables = hub.lobby.message()["tables"]
    waiting = [t for t in tables if t["status"] == "waiting"]
    playing = [t for t in tables if t["status"] == "playing"]
    assert len(waiting) == len(playing) == LOBBY_LIMIT == 50 and len(tables) == 100
    assert all(t["opponent"] == "anyone" for t in tables)
    assert [t["created_at"] for t in waiting] == sorted((t["created_at"] for t in waiting), reverse=True)
    assert waiting[0]["id"] == "t198"
