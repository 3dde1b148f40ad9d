"""Over many complete games played at once, no message tells a client a card it may not know."""

from __future__ import annotations

import asyncio
import json
import random
import re
import time
from collections.abc import Callable
from typing import Any

from sqlalchemy import create_engine, select
from sqlalchemy.orm import Session
from websockets.asyncio.client import ClientConnection, connect

from server.store.models import Game, Move
from tests import local_http
from tests.conftest import LiveServer
from tests.server.client import check_no_leak, guest_token
from tressette import Deal, Variant

GAMES = 24
CARD_NAME = re.compile(r'"[BKSD] (3|2|AS|KRALJ|KAVAL|FANT|7|6|5|4)"')

Msg = dict[str, Any]


async def _listen(ws: ClientConnection, log: list[Msg], rng: random.Random | None, done: asyncio.Event) -> None:
    """Record every message; as a player, answer each turn with a random legal card."""
    async for raw in ws:
        msg: Msg = json.loads(raw)
        log.append(msg)
        if msg["type"] != "table":
            continue
        t = msg["table"]
        if t["status"] == "finished":
            done.set()
            return
        view = t["view"]
        if rng is not None and view and t["status"] == "playing" and view["to_move"] == t["you"] and msg["event"]:
            await ws.send(json.dumps({"type": "play", "table_id": t["id"], "card": rng.choice(view["legal"])}))


async def _game(ws_url: str, tokens: tuple[str, str, str], variant: str, seed: int) -> tuple[str, list[list[Msg]]]:
    """Play one deal between two players, watched by a spectator; return the table id and the three logs."""
    logs: list[list[Msg]] = [[], [], []]
    rng = random.Random(seed)
    async with connect(ws_url) as a, connect(ws_url) as b, connect(ws_url) as watcher:
        for ws, token in zip((a, b, watcher), tokens, strict=True):
            await ws.send(json.dumps({"type": "auth", "token": token}))
        await a.send(json.dumps({"type": "create_table", "variant": variant, "opponent": "invite"}))
        first: Msg = {}
        while first.get("type") != "table":
            first = json.loads(await a.recv())
            logs[0].append(first)
        table_id, invite = first["table"]["id"], first["table"]["invite"]
        assert invite
        await watcher.send(json.dumps({"type": "watch_table", "table_id": table_id, "invite": invite}))
        events = [asyncio.Event() for _ in range(3)]
        tasks = [asyncio.create_task(_listen(ws, log, r, ev))
                 for ws, log, r, ev in zip((a, b, watcher), logs, (rng, rng, None), events, strict=True)]
        await asyncio.sleep(0.05)  # the spectator is in before the deal starts
        await b.send(json.dumps({"type": "join_table", "table_id": table_id, "invite": invite}))
        await asyncio.wait_for(asyncio.gather(*tasks), timeout=90)
    return table_id, logs


def test_many_games_never_leak_a_hidden_card(pg_url: str, start_server: Callable[..., LiveServer]) -> None:
    """24 concurrent deals (both variants, random legal play, a spectator each): every view is exact."""
    server = start_server(pg_url, TRESET_RECONNECT_GRACE_S="0.5")
    tokens = [tuple(guest_token(server.url)[0] for _ in range(3)) for _ in range(GAMES)]

    async def main() -> list[tuple[str, list[list[Msg]]]]:
        return await asyncio.gather(*(_game(server.ws_url, tokens[i], ("tressette", "kifameno")[i % 2], i)  # type: ignore[arg-type]
                                      for i in range(GAMES)))

    played = asyncio.run(main())
    engine = create_engine(pg_url)
    checked = 0
    with Session(engine) as s:
        for table_id, logs in played:
            game = s.scalars(select(Game).where(Game.table_id == table_id)).one()
            assert game.status == "finished" and game.end_reason == "finished"
            moves = list(s.scalars(select(Move).where(Move.game_id == game.id).order_by(Move.move_number)))
            assert len(moves) == 40

            def deal_at(n: int, game: Game = game, moves: list[Move] = moves) -> Deal:
                deal = Deal.from_deck(game.deck, Variant(game.variant), game.first_leader)
                for m in moves[:n]:
                    deal.play(m.card, m.seat)
                return deal

            seat_a = next(m["table"]["you"] for m in logs[0] if m["type"] == "table" and m["table"]["view"])
            for log, seat in zip(logs, (seat_a, 1 - seat_a, None), strict=True):
                n = check_no_leak(log, seat, deal_at)
                assert n >= 20, (table_id, seat, n)
                checked += n
                # Lobby, welcome and other messages name no card at all.
                others = json.dumps([m for m in log if m["type"] != "table"])
                assert not CARD_NAME.search(others), others[:300]
    engine.dispose()
    assert checked >= GAMES * 3 * 20
    # Everyone has left: after the grace period the server holds no table and no connection.
    for _ in range(50):
        health = local_http.get(f"{server.url}/healthz", timeout=5).json()
        if health["tables"] == 0:
            break
        time.sleep(0.2)
    assert (health["status"], health["tables"], health["connections"]) == ("ok", 0, 0)


FOUR_GAMES = 6


async def _four_game(ws_url: str, tokens: list[str], seed: int) -> tuple[str, list[list[Msg]]]:
    """Play one four-player deal between four people (random legal cards, every declaration, random true
    signals), watched by a spectator; return the table id and the five logs (seats 0-3, the spectator)."""
    logs: list[list[Msg]] = [[] for _ in range(5)]
    rng = random.Random(seed)

    async def listen(ws: ClientConnection, log: list[Msg], play: bool) -> None:
        async for raw in ws:
            msg: Msg = json.loads(raw)
            log.append(msg)
            if msg["type"] != "table":
                continue
            t = msg["table"]
            if t["status"] == "finished":
                return
            view = t["view"]
            if play and view and t["status"] == "playing" and view["to_move"] == t["you"] and msg["event"]:
                card = rng.choice(view["legal"])
                signal = rng.choice([None, *view["signals"].get(card, [])])
                await ws.send(json.dumps({"type": "play", "table_id": t["id"], "card": card,
                                          "declarations": view["declarable"], "signal": signal}))

    conns = [await connect(ws_url) for _ in range(5)]
    try:
        for ws, token in zip(conns, tokens, strict=True):
            await ws.send(json.dumps({"type": "auth", "token": token}))
        await conns[0].send(json.dumps({"type": "create_table", "game": "partnership", "opponent": "invite",
                                        "declarations": True}))
        first: Msg = {}
        while first.get("type") != "table":
            first = json.loads(await conns[0].recv())
            logs[0].append(first)
        table_id, invite = first["table"]["id"], first["table"]["invite"]
        await conns[4].send(json.dumps({"type": "watch_table", "table_id": table_id, "invite": invite}))
        tasks = [asyncio.create_task(listen(ws, log, i < 4)) for i, (ws, log) in enumerate(zip(conns, logs,
                                                                                              strict=True))]
        await asyncio.sleep(0.05)
        for seat in (1, 2, 3):
            await conns[seat].send(json.dumps({"type": "join_table", "table_id": table_id, "invite": invite,
                                               "seat": seat}))
            await asyncio.sleep(0.05)  # seated in order: the log of seat s is seat s's
        await asyncio.wait_for(asyncio.gather(*tasks), timeout=90)
    finally:
        for ws in conns:
            await ws.close()
    return table_id, logs


def test_four_player_deals_never_leak_another_seats_card(pg_url: str,
                                                         start_server: Callable[..., LiveServer]) -> None:
    """Six four-player deals at once (and a spectator each): every view is the rules' view of that seat, and no
    message to a seat ever names a card of another seat's hand while the deal runs."""
    from tressette import card_name
    from tressette.partnership import (
        Declaration,
        PartnershipDeal,
        PartnershipMove,
        PartnershipOptions,
        Signal,
        view_of_partnership,
    )

    server = start_server(pg_url, TRESET_RECONNECT_GRACE_S="0.5")
    tokens = [[guest_token(server.url)[0] for _ in range(5)] for _ in range(FOUR_GAMES)]

    async def main() -> list[tuple[str, list[list[Msg]]]]:
        return await asyncio.gather(*(_four_game(server.ws_url, tokens[i], 100 + i) for i in range(FOUR_GAMES)))

    played = asyncio.run(main())
    engine = create_engine(pg_url)
    checked = 0
    with Session(engine) as s:
        for table_id, logs in played:
            game = s.scalars(select(Game).where(Game.table_id == table_id)).one()
            assert game.status == "finished" and game.n_players == 4 and game.options is not None
            moves = list(s.scalars(select(Move).where(Move.game_id == game.id).order_by(Move.move_number)))
            assert len(moves) == 40

            def deal_at(n: int, game: Game = game, moves: list[Move] = moves) -> PartnershipDeal:
                assert game.options is not None
                deal = PartnershipDeal.from_deck(game.deck, game.first_leader, PartnershipOptions(**game.options))
                for m in moves[:n]:
                    deal.play_move(PartnershipMove(m.card, tuple(Declaration.from_dict(d)
                                                                 for d in m.declarations or ()),
                                                   None if m.signal is None else Signal(m.signal)), m.seat)
                return deal

            for seat, log in zip((0, 1, 2, 3, None), logs, strict=True):
                n = 0
                for msg in log:
                    if msg["type"] != "table" or msg["table"]["view"] is None:
                        if msg["type"] != "table":  # lobby, welcome, errors: no card at all
                            assert not CARD_NAME.search(json.dumps(msg)), msg
                        continue
                    t = msg["table"]
                    assert t["you"] == seat
                    view = t["view"]
                    deal = deal_at(4 * len(view["tricks"]) + len(view["table"]))
                    assert view == view_of_partnership(deal, seat).to_dict()
                    if t["result"] is None:
                        hidden = {c for other in range(4) if other != seat for c in deal.hands[other]}
                        text = json.dumps(msg)
                        leaked = [card_name(c) for c in hidden if f'"{card_name(c)}"' in text]
                        assert not leaked, f"seat {seat} was sent another seat's cards {leaked}"
                    n += 1
                assert n >= 40, (table_id, seat, n)
                checked += n
    engine.dispose()
    assert checked >= FOUR_GAMES * 5 * 40
