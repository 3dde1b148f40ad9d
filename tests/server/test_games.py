"""Complete games over WebSocket through the real server, on PostgreSQL and on SQLite."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from sqlalchemy import create_engine, func, select
from sqlalchemy.orm import Session

from server.store.models import Game, Move, UserTotals
from tests.conftest import LiveServer
from tests.server.client import Client, check_no_leak, guest_token, is_table, open_pair, play_until_over
from tressette import ALL_CARDS, Deal, Variant, card_name


@pytest.mark.parametrize("backend", ["postgres", "sqlite"])
@pytest.mark.parametrize("variant", ["tressette", "kifameno"])
def test_complete_games_are_logged_and_never_leak(backend: str, variant: str, start_server: Callable[..., LiveServer],
                                                  request: pytest.FixtureRequest) -> None:
    """Two scripted players finish deals; every move is in the DB once; no view leaks a card."""
    db_url = request.getfixturevalue("pg_url" if backend == "postgres" else "sqlite_url")
    server = start_server(db_url)
    a, b, table_id = open_pair(server.url, server.ws_url, variant)
    spectator = Client(server.ws_url, guest_token(server.url)[0])
    spectator.send({"type": "watch_table", "table_id": table_id})
    deals = 2
    for n in range(deals):
        final = play_until_over(a, b, table_id, choose=lambda t: t["view"]["legal"][-1])
        result = final["table"]["result"]
        assert sum(result["points"]) == 35 and result["reason"] == "finished"
        assert sorted(result["deck"]) == sorted(card_name(c) for c in ALL_CARDS)
        if n + 1 < deals:  # rematch: the first lead alternates
            a.send({"type": "rematch", "table_id": table_id})
            b.send({"type": "rematch", "table_id": table_id})
    engine = create_engine(db_url)
    with Session(engine) as session:
        games = list(session.scalars(select(Game).order_by(Game.id)))
        assert [g.status for g in games] == ["finished"] * deals
        assert games[0].first_leader != games[1].first_leader
        for game in games:
            moves = list(session.scalars(select(Move).where(Move.game_id == game.id).order_by(Move.move_number)))
            assert [m.move_number for m in moves] == list(range(40))
            deal = Deal.from_deck(game.deck, Variant(variant), game.first_leader)
            for m in moves:
                assert sorted(m.hand) == sorted(deal.hands[m.seat]) and m.score == deal.points[m.seat]
                deal.play(m.card, m.seat)
            assert (game.points0, game.points1) == deal.final_points()
            assert game.winner_seat == deal.outcome().winner
        totals = session.scalars(select(func.sum(UserTotals.games))).one()
        assert totals == 2 * deals
        last = games[-1]
        last_moves = list(session.scalars(select(Move).where(Move.game_id == last.id).order_by(Move.move_number)))
    engine.dispose()

    def deal_at(moves: int) -> Deal:
        deal = Deal.from_deck(last.deck, Variant(variant), last.first_leader)
        for m in last_moves[:moves]:
            deal.play(m.card, m.seat)
        return deal

    # The last deal's messages (after the rematch) are checked against the real deal.
    start_a = max(i for i, m in enumerate(a.received) if is_table(m) and (m.get("event") or {}).get("kind") == "start")
    start_b = max(i for i, m in enumerate(b.received) if is_table(m) and (m.get("event") or {}).get("kind") == "start")
    seat_a = a.received[start_a]["table"]["you"]
    assert check_no_leak(a.received[start_a:], seat_a, deal_at) >= 20
    assert check_no_leak(b.received[start_b:], 1 - seat_a, deal_at) >= 20
    watched: list[dict] = []
    while True:
        try:
            watched.append(spectator.recv(timeout=0.5))
        except TimeoutError:
            break
    starts = [i for i, m in enumerate(watched) if is_table(m) and (m.get("event") or {}).get("kind") == "start"]
    assert len(starts) >= 1
    assert check_no_leak(watched[starts[-1]:], None, deal_at) >= 20
    a.close()
    b.close()
    spectator.close()
