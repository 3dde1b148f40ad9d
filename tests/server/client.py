"""A scripted WebSocket client for the tests, speaking docs/protocol.md."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from websockets.sync.client import ClientConnection, connect

from tests import local_http
from tressette import Deal, card_name, view_of

Msg = dict[str, Any]


def guest_token(base_url: str) -> tuple[str, Msg]:
    """Create a guest account; return its token and user."""
    r = local_http.post(f"{base_url}/api/auth/guest", timeout=10)
    r.raise_for_status()
    body = r.json()
    return body["token"], body["user"]


class Client:
    """One player's socket, with every message received kept in order."""

    def __init__(self, ws_url: str, token: str, origin: str | None = None) -> None:
        """Connect and sign in with ``token`` (the first message: tokens never go in the URL)."""
        # Entered as a context manager (websockets 17 warns otherwise); close() exits it.
        self.ws: ClientConnection = connect(ws_url, open_timeout=10, max_size=2**22,
                                            origin=origin).__enter__()  # type: ignore[arg-type]
        self.ws.send(json.dumps({"type": "auth", "token": token}))
        self.received: list[Msg] = []
        self.token = token

    def send(self, msg: Msg | str | bytes) -> None:
        """Send a message (a dict as JSON, raw text, or bytes as a binary frame)."""
        self.ws.send(msg if isinstance(msg, str | bytes) else json.dumps(msg))

    def recv(self, timeout: float = 10) -> Msg:
        """Return the next message."""
        msg: Msg = json.loads(self.ws.recv(timeout=timeout))
        self.received.append(msg)
        return msg

    def wait_for(self, pred: Callable[[Msg], bool], timeout: float = 15) -> Msg:
        """Return the first message (from now on) that satisfies ``pred``."""
        end = time.time() + timeout
        while True:
            left = end - time.time()
            if left <= 0:
                raise TimeoutError(f"no matching message; last: {self.received[-3:]}")
            msg = self.recv(left)
            if pred(msg):
                return msg

    def error(self, timeout: float = 10) -> Msg:
        """Return the next ``error`` message."""
        return self.wait_for(lambda m: m["type"] == "error", timeout)

    def close(self) -> None:
        """Close the socket."""
        self.ws.close()


def is_table(msg: Msg) -> bool:
    """Return True for a ``table`` message."""
    return bool(msg.get("type") == "table")


def my_turn(msg: Msg) -> bool:
    """Return True for a table message saying it is this client's turn."""
    if not is_table(msg):
        return False
    t = msg["table"]
    return bool(t["status"] == "playing" and t["view"] and t["view"]["to_move"] == t["you"])


def play_until_over(a: Client, b: Client, table_id: str, choose: Callable[[Msg], str] | None = None,
                    timeout: float = 60) -> Msg:
    """Let two clients play the current deal to its end; return the final table message seen by ``a``."""
    pick = choose or (lambda t: t["view"]["legal"][0])
    clients = [a, b]
    last: dict[int, Msg] = {}
    end = time.time() + timeout
    while time.time() < end:
        for i, c in enumerate(clients):
            try:
                msg = c.recv(timeout=0.05)
            except TimeoutError:
                continue
            if not is_table(msg) or msg["table"]["id"] != table_id:
                continue
            last[i] = msg
            t = msg["table"]
            if i == 0 and t["status"] == "finished" and (msg.get("event") or {}).get("kind") == "end":
                return msg
            if my_turn(msg) and msg["event"] is not None:
                c.send({"type": "play", "table_id": table_id, "card": pick(t)})
    raise TimeoutError(f"the deal did not finish; last: {last}")


def cards_played(msg: Msg) -> int:
    """Return how many cards of the deal a ``table`` message shows played (0 before a deal)."""
    view = msg["table"]["view"]
    return 2 * len(view["history"]) + len(view["table"]) if view else 0


def play_cards(a: Client, b: Client, table_id: str, count: int, watcher: Client) -> None:
    """Let two clients play the first legal card ``count`` times; return once ``watcher`` has seen them all."""
    played = 0
    while played < count:
        for client in (a, b):
            try:
                m = client.recv(timeout=0.05)
            except TimeoutError:
                continue
            if my_turn(m) and m["event"] is not None and played < count:
                client.send({"type": "play", "table_id": table_id, "card": m["table"]["view"]["legal"][0]})
                played += 1
    if not any(is_table(m) and cards_played(m) == count for m in watcher.received):  # maybe read above already
        watcher.wait_for(lambda m: is_table(m) and cards_played(m) == count)


def finish_deal(resumed: list[tuple[Client, Msg]], table_id: str) -> Msg:
    """After a restart or takeover: whoever its last snapshot says is to move plays, then both play the deal out.

    ``resumed``: the two clients, each with the table message it got back. Returns the final table message.
    """
    for client, m in resumed:
        if my_turn(m):
            client.send({"type": "play", "table_id": table_id, "card": m["table"]["view"]["legal"][0]})
    return play_until_over(resumed[0][0], resumed[1][0], table_id)


def open_pair(base_url: str, ws_url: str, variant: str = "tressette") -> tuple[Client, Client, str]:
    """Two guests: the first opens a table of ``variant``, the second joins; return both and the table id."""
    ta, _ = guest_token(base_url)
    tb, _ = guest_token(base_url)
    a, b = Client(ws_url, ta), Client(ws_url, tb)
    a.send({"type": "create_table", "variant": variant})
    table_id = a.wait_for(is_table)["table"]["id"]
    b.send({"type": "join_table", "table_id": table_id})
    return a, b, table_id


def check_no_leak(messages: list[Msg], seat: int | None, deal_at: Callable[[int], Deal]) -> int:
    """Every table message equals the rules package's view, and names no card the seat may not know.

    ``seat`` None is a spectator, who may know only the cards drawn face up.
    """
    checked = 0
    for msg in messages:
        if not is_table(msg) or msg["table"]["view"] is None:
            continue
        t = msg["table"]
        assert t["you"] == seat
        view = t["view"]
        moves = 2 * len(view["history"]) + len(view["table"])
        deal = deal_at(moves)
        expected = view_of(deal, seat).to_dict()
        assert view == expected
        if t["result"] is None:
            seen = view_of(deal, seat)
            hidden = (deal.hands[0] + deal.hands[1]) if seat is None else deal.hands[1 - seat]
            secret = set(hidden) - set(seen.known[0]) - set(seen.known[1]) | set(deal.stock)
            text = json.dumps(msg)
            leaked = [card_name(c) for c in secret if f'"{card_name(c)}"' in text]
            assert not leaked, f"seat {seat} was sent hidden cards {leaked}"
        checked += 1
    return checked
