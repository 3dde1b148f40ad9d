"""Helpers for the four-player tests: four scripted clients at one table, playing by docs/protocol-four.md."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from tests.server.client import Client, Msg, guest_token, is_table
from tressette.partnership import Declaration, PartnershipDeal, PartnershipMove, Signal, replay_partnership

Choose = Callable[[dict[str, Any]], dict[str, Any]]
"""Turn a seat's table (``table.table``) into the ``play`` fields: card, declarations, signal."""


def first_legal(table: dict[str, Any]) -> dict[str, Any]:
    """Play the first legal card, declaring all that may be declared, with the first true signal offered."""
    view = table["view"]
    card = view["legal"][0]
    signals = view["signals"].get(card) or [None]
    return {"card": card, "declarations": view["declarable"], "signal": signals[0]}


def open_four(base_url: str, ws_url: str, seats: tuple[int, ...] = (1, 2, 3), **create: Any
              ) -> tuple[list[Client], str, list[Msg]]:
    """Four guests: the first opens a four-player table (``create``'s fields), the others join ``seats`` in turn.

    Returns the clients by seat, the table id and the users by seat.
    """
    accounts = [guest_token(base_url) for _ in range(4)]
    clients = [Client(ws_url, token) for token, _ in accounts]
    clients[0].send({"type": "create_table", "game": "partnership", **create})
    table_id: str = clients[0].wait_for(is_table)["table"]["id"]
    by_seat: list[Client | None] = [clients[0], None, None, None]
    users: list[Msg | None] = [accounts[0][1], None, None, None]
    for joiner, seat in zip(clients[1:], seats, strict=True):
        joiner.send({"type": "join_table", "table_id": table_id, "seat": seat})
        got = joiner.wait_for(is_table)
        assert got["table"]["you"] == seat, got
        by_seat[seat] = joiner
        users[seat] = accounts[clients.index(joiner)][1]
    assert all(by_seat) and all(users)
    return [c for c in by_seat if c is not None], table_id, [u for u in users if u is not None]


def seen_or_wait(client: Client, pred: Callable[[Msg], bool], timeout: float = 15) -> Msg:
    """Return the first message already received that satisfies ``pred``, else wait for one."""
    return next((m for m in client.received if pred(m)), None) or client.wait_for(pred, timeout)


def play_four(clients: list[Client], table_id: str, choose: Choose = first_legal, timeout: float = 60,
              stop: Callable[[Msg], bool] | None = None) -> Msg:
    """Let the seated clients play until ``clients[0]`` sees the deal's end (or ``stop``); return that message.

    Each client first answers the last table message it has already read, if it is its turn there.
    """
    end = time.time() + timeout
    pending: list[Msg | None] = [next((m for m in reversed(c.received) if is_table(m)), None) for c in clients]
    while time.time() < end:
        for i, c in enumerate(clients):
            if pending[i] is not None:
                msg, pending[i] = pending[i], None
                if msg is not None and msg["event"] is None:
                    continue
            else:
                try:
                    msg = c.recv(timeout=0.02)
                except TimeoutError:
                    continue
            assert msg is not None
            if not is_table(msg) or msg["table"]["id"] != table_id:
                continue
            t = msg["table"]
            if i == 0 and (stop(msg) if stop else t["status"] == "finished"
                           and (msg.get("event") or {}).get("kind") == "end"):
                return msg
            view = t["view"]
            if (msg["event"] is not None and t["status"] == "playing" and view and t["you"] is not None
                    and view["to_move"] == t["you"]):
                c.send({"type": "play", "table_id": table_id, **choose(t)})
    raise TimeoutError(f"the deal did not finish; last: {clients[0].received[-2:]}")


def deal_from_rows(deck: list[int], first_leader: int, options: dict[str, bool],
                   moves: list[tuple[int, list[dict[str, Any]] | None, str | None]]) -> PartnershipDeal:
    """Replay stored moves ``(card, declarations, signal)`` on a stored deck (the rules check each)."""
    from tressette.partnership import PartnershipOptions

    return replay_partnership(deck, first_leader, [
        PartnershipMove(card, tuple(Declaration.from_dict(d) for d in declared or ()),
                        None if signal is None else Signal(signal)) for card, declared, signal in moves],
        PartnershipOptions(**options))
