"""The seat follows the person: taking a seat over from another tab, presence deadlines, leaving."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from tests.conftest import LiveServer
from tests.server.client import Client, Msg, guest_token, is_table, open_pair

GRACE_S = 3.0


def _playing(c: Client) -> Msg:
    return c.wait_for(lambda m: is_table(m) and m["table"]["status"] == "playing")


def _event(kind: str) -> Callable[[Msg], bool]:
    return lambda m: is_table(m) and (m["event"] or {}).get("kind") == kind


def _quiet(c: Client, seconds: float) -> list[Msg]:
    """Return every message received for ``seconds``."""
    got: list[Msg] = []
    end = time.time() + seconds
    while (left := end - time.time()) > 0:
        try:
            got.append(c.recv(timeout=left))
        except TimeoutError:
            break
    return got


def test_a_second_tab_takes_the_seat_over_and_back(pg_url: str, start_server: Callable[..., LiveServer]) -> None:
    """open_table moves the seat to the new tab; the old one hears seat_moved and may not play; watch_table too."""
    server = start_server(pg_url)
    a, b, table_id = open_pair(server.url, server.ws_url)
    first = _playing(a)["table"]
    _playing(b)
    seat = first["you"]
    assert first["game_id"] is not None

    # A second tab of the same person is told of the seat, and steals nothing on connect.
    a2 = Client(server.ws_url, a.token)
    hello = a2.wait_for(lambda m: m["type"] == "welcome")
    assert hello["seats"] == [{"table_id": table_id, "seat": seat, "status": "playing", "elsewhere": True}]
    assert not [m for m in _quiet(a2, 0.5) if is_table(m)]

    a2.send({"type": "open_table", "table_id": table_id})
    taken = a2.wait_for(is_table)
    assert taken["table"]["you"] == seat and len(taken["table"]["view"]["hand"]) == 10 and taken["event"] is None
    assert a.wait_for(lambda m: m["type"] == "seat_moved") == {"type": "seat_moved", "table_id": table_id}
    card = taken["table"]["view"]["hand"][0]
    a.send({"type": "play", "table_id": table_id, "card": card})
    err = a.error()
    assert (err["code"], err["params"], err["ref"]) == ("not_seated", {"table_id": table_id}, "play")
    assert not [m for m in _quiet(b, 0.5) if is_table(m)]  # nothing changed for the opponent

    # The first tab takes it back with watch_table: a seated person always gets the seated view.
    a.send({"type": "watch_table", "table_id": table_id})
    back = a.wait_for(is_table)["table"]
    assert back["you"] == seat and back["view"]["hand"] == taken["table"]["view"]["hand"]
    assert a2.wait_for(lambda m: m["type"] == "seat_moved")["table_id"] == table_id
    mover, other = (a, b) if back["view"]["to_move"] == seat else (b, a)
    legal = (back if mover is a else _last_table(b))["view"]["legal"]
    mover.send({"type": "play", "table_id": table_id, "card": legal[0]})
    assert other.wait_for(_event("play"))["event"]["card"] == legal[0]
    assert not [m for m in _quiet(a2, 0.5) if is_table(m)]  # the tab that lost the seat hears no more of it
    for c in (a, a2, b):
        c.close()


def _last_table(c: Client) -> Msg:
    return next(m for m in reversed(c.received) if is_table(m))["table"]


def test_presence_deadline_for_players_and_spectators(pg_url: str, start_server: Callable[..., LiveServer]) -> None:
    """A disconnect shows when the seat forfeits (to the opponent and spectators); a reconnect clears it."""
    server = start_server(pg_url, TRESET_RECONNECT_GRACE_S=str(GRACE_S))
    a, b, table_id = open_pair(server.url, server.ws_url)
    seat = _playing(a)["table"]["you"]
    _playing(b)
    spectator = Client(server.ws_url, guest_token(server.url)[0])
    spectator.send({"type": "watch_table", "table_id": table_id})
    watched = spectator.wait_for(is_table)["table"]
    assert [p["reconnect_deadline"] for p in watched["players"]] == [None, None]

    token = a.token
    a.close()
    closed_at = time.time()
    for c in (b, spectator):
        gone = c.wait_for(_event("disconnect"))
        assert gone["event"]["seat"] == seat
        player = gone["table"]["players"][seat]
        assert player["connected"] is False
        assert abs(player["reconnect_deadline"] / 1000 - (closed_at + GRACE_S)) < 1.0
        assert gone["table"]["players"][1 - seat]["reconnect_deadline"] is None

    a = Client(server.ws_url, token)
    hello = a.wait_for(lambda m: m["type"] == "welcome")
    assert hello["seats"] == [{"table_id": table_id, "seat": seat, "status": "playing", "elsewhere": False}]
    assert a.wait_for(is_table)["table"]["you"] == seat
    for c in (b, spectator):
        back = c.wait_for(_event("reconnect"))
        assert back["table"]["players"][seat]["connected"] is True
        assert back["table"]["players"][seat]["reconnect_deadline"] is None

    # A waiting table counts down too: its creator's seat goes (and the table with it) after the grace.
    waiter = Client(server.ws_url, guest_token(server.url)[0])
    waiter.send({"type": "create_table", "variant": "kifameno"})
    waiting_id = waiter.wait_for(is_table)["table"]["id"]
    spectator.send({"type": "watch_table", "table_id": waiting_id})
    spectator.wait_for(lambda m: is_table(m) and m["table"]["id"] == waiting_id)
    waiter.close()
    gone = spectator.wait_for(lambda m: _event("disconnect")(m) and m["table"]["id"] == waiting_id)
    assert gone["table"]["players"][0]["reconnect_deadline"] is not None
    spectator.wait_for(lambda m: m["type"] == "lobby" and all(t["id"] != waiting_id for t in m["tables"]),
                       timeout=GRACE_S + 5)
    for c in (a, b, spectator):
        c.close()


def test_leave_answers_left_and_nothing_more(pg_url: str, start_server: Callable[..., LiveServer]) -> None:
    """The leaver hears only ``left``; the opponent and spectators see the forfeit; a waiting table answers left."""
    server = start_server(pg_url)
    a, b, table_id = open_pair(server.url, server.ws_url)
    seat = _playing(a)["table"]["you"]
    _playing(b)
    spectator = Client(server.ws_url, guest_token(server.url)[0])
    spectator.send({"type": "watch_table", "table_id": table_id})
    spectator.wait_for(is_table)

    a.send({"type": "leave_table", "table_id": table_id})
    before = len(a.received)
    assert a.wait_for(lambda m: m["type"] == "left") == {"type": "left", "table_id": table_id}
    for c in (b, spectator):
        end = c.wait_for(_event("end"))
        assert end["event"] == {"kind": "end", "reason": "left", "seat": seat, "cause": "left"}
        assert end["table"]["result"]["reason"] == "left" and end["table"]["game_id"] is not None
    assert b.wait_for(_event("leave"))["table"]["status"] == "waiting"
    after = a.received[before:] + _quiet(a, 1.0)
    assert not [m for m in after if is_table(m)], after

    # The spectator and the last player leave the waiting table: both are answered ``left``.
    spectator.send({"type": "leave_table", "table_id": table_id})
    assert spectator.wait_for(lambda m: m["type"] == "left")["table_id"] == table_id
    b.send({"type": "leave_table", "table_id": table_id})
    assert b.wait_for(lambda m: m["type"] == "left")["table_id"] == table_id
    b.send({"type": "leave_table", "table_id": table_id})
    err = b.error()
    assert (err["code"], err["params"]) == ("no_table", {"table_id": table_id})
    for c in (a, b, spectator):
        c.close()


@pytest.mark.parametrize("message", ["open_table", "watch_table"])
def test_open_table_refusals(message: str, pg_url: str, start_server: Callable[..., LiveServer]) -> None:
    """Opening a table that does not exist is a clear error with the id as data."""
    server = start_server(pg_url)
    c = Client(server.ws_url, guest_token(server.url)[0])
    c.send({"type": message, "table_id": "nope"})
    err = c.error()
    assert (err["code"], err["params"], err["ref"]) == ("no_table", {"table_id": "nope"}, message)
    c.close()
