"""Four-player partnership tables through the real server, WebSocket and PostgreSQL (docs/protocol-four.md).

Four people play a deal: seats chosen, bad shapes refused, false declarations and signals refused
(nothing changes), true ones told to everyone and stored with their moves; the deal's game row holds
its four players, its moves their seats, declarations and signals; a single deal moves the four
players' ratings in the four-player game, each against the opposing pair's average.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import create_engine, select
from sqlalchemy.orm import Session

from server.store.models import Game, Move, UserTotals
from tests.conftest import LiveServer
from tests.server.client import Client, guest_token, is_table
from tests.server.four import deal_from_rows, first_legal, open_four, play_four, seen_or_wait

FALSE_DECLARATIONS = [{"kind": "four", "rank": r} for r in ("3", "2", "AS")]


def _refused(client: Client, msg: dict[str, Any]) -> dict[str, Any]:
    client.send(msg)
    return client.error()


def test_create_table_shapes_are_checked(pg_url: str, start_server: Callable[..., LiveServer]) -> None:
    """Bad four-player shapes get documented errors; a two-player message may not carry four-player fields."""
    server = start_server(pg_url)
    c = Client(server.ws_url, guest_token(server.url)[0])
    for bad in ({"target": 11}, {"target": "31"}, {"variant": "kifameno"}, {"bots": [None, "rules"]},
                {"bots": ["rules", None, None, None]}, {"declarations": "yes"}, {"signals": 1}, {"seat": 2}):
        answer = _refused(c, {"type": "create_table", "game": "partnership", **bad})
        assert answer["code"] == "bad_message", (bad, answer)
    assert _refused(c, {"type": "create_table", "game": "bridge"})["code"] == "bad_message"
    assert _refused(c, {"type": "create_table", "bots": [None, "rules", None, None]})["code"] == "bad_message"
    answer = _refused(c, {"type": "create_table", "game": "partnership", "opponent": "bot"})
    assert answer["code"] in ("bad_message", "no_bot")  # no bot has announced a four-player level
    c.send({"type": "create_table", "game": "partnership", "target": 31})
    t = c.wait_for(is_table)["table"]
    assert (t["game"], t["status"], t["you"], t["partner"], t["target"]) == ("partnership", "waiting", 0, 2, 31)
    assert t["options"] == {"declarations": True, "signals": True} and t["players"][1:] == [None, None, None]
    assert _refused(c, {"type": "seat_bot", "table_id": t["id"], "seat": 0, "level": "rules"})["code"] == "bad_message"
    assert _refused(c, {"type": "seat_bot", "table_id": t["id"], "seat": 1, "level": "nope"})["code"] == "bad_message"
    # A two-player table knows no seats to choose nor bots to seat.
    c.send({"type": "create_table", "variant": "tressette"})
    duel = c.wait_for(lambda m: is_table(m) and m["table"]["id"] != t["id"])["table"]
    assert "game" not in duel and len(duel["players"]) == 2
    other = Client(server.ws_url, guest_token(server.url)[0])
    assert _refused(other, {"type": "join_table", "table_id": duel["id"], "seat": 1})["code"] == "bad_message"
    assert _refused(c, {"type": "seat_bot", "table_id": duel["id"], "seat": 1, "level": "rules"})["code"] \
        == "bad_message"


def test_four_people_play_a_deal_with_declarations_and_signals(pg_url: str,
                                                                start_server: Callable[..., LiveServer]) -> None:
    """Seats chosen, false declarations and signals refused, a deal played out, stored and rated."""
    server = start_server(pg_url)
    clients, table_id, users = open_four(server.url, server.ws_url, seats=(2, 3, 1), target=0, declarations=True)
    late = Client(server.ws_url, guest_token(server.url)[0])
    assert _refused(late, {"type": "join_table", "table_id": table_id, "seat": 1})["code"] == "table_full"
    # Everyone sees the deal start; the seat to move first tries what the rules refuse.
    starts = [seen_or_wait(c, lambda m: is_table(m) and (m["event"] or {}).get("kind") == "start") for c in clients]
    t0 = starts[0]["table"]
    assert t0["status"] == "playing" and [p["username"] for p in t0["players"]] == [u["username"] for u in users]
    leader = t0["view"]["to_move"]
    mover, t = clients[leader], starts[leader]["table"]
    assert t["you"] == leader and t["partner"] == (leader + 2) % 4 and len(t["view"]["hand"]) == 10
    card = t["view"]["legal"][0]
    false = next(d for d in FALSE_DECLARATIONS if all(x["kind"] != "four" or x["rank"] != d["rank"]
                                                       for x in t["view"]["declarable"]))
    answer = _refused(mover, {"type": "play", "table_id": table_id, "card": card, "declarations": [false]})
    assert (answer["code"], answer["params"]["reason"]) == ("illegal_card", "bad_declaration"), answer
    answer = _refused(mover, {"type": "play", "table_id": table_id, "card": card, "signal": "striscio"})
    assert (answer["code"], answer["params"]["reason"]) == ("illegal_card", "bad_signal"), answer  # first trick
    answer = _refused(mover, {"type": "play", "table_id": table_id, "card": card,
                              "declarations": [{"kind": "napoletana", "suit": "X"}]})
    assert answer["params"]["reason"] == "bad_declaration"
    other = clients[(leader + 1) % 4]
    assert _refused(other, {"type": "play", "table_id": table_id, "card": card})["code"] in ("not_your_turn",
                                                                                            "illegal_card")
    # Then the deal is played: everything declarable declared, the first true signal given.
    signals_sent: list[str] = []

    def choose(table: dict[str, Any]) -> dict[str, Any]:
        move = first_legal(table)
        if move["signal"]:
            signals_sent.append(move["signal"])
        return move

    # The refusals changed nothing: the leader is still to play (play_four answers its last table first).
    end = play_four(clients, table_id, choose)
    result = end["table"]["result"]
    assert result["reason"] == "finished" and len(result["hands"]) == 4
    assert all(len(h) == 10 for h in result["hands"]) and len({c for h in result["hands"] for c in h}) == 40
    assert sum(result["points"]) == 11 and [p + d for p, d in zip(result["points"], result["declared"],
                                                                   strict=True)] == result["score"]
    assert result["rated"] is True and result["players"] == [u["username"] for u in users]
    view = end["table"]["view"]
    assert len(view["tricks"]) == 10 and view["score"] == result["score"]

    engine = create_engine(pg_url)
    with Session(engine) as s:
        game = s.scalars(select(Game).where(Game.table_id == table_id)).one()
        assert (game.n_players, game.variant, game.status) == (4, "partnership", "finished")
        assert [game.player0_id, game.player1_id, game.player2_id, game.player3_id] == [u["id"] for u in users]
        assert (game.points0, game.points1, game.declared0, game.declared1) == (*result["points"],
                                                                                *result["declared"])
        moves = list(s.scalars(select(Move).where(Move.game_id == game.id).order_by(Move.move_number)))
        assert len(moves) == 40 and {m.n_players for m in moves} == {4}
        assert [m.user_id for m in moves[:4]] == [users[(leader + i) % 4]["id"] for i in range(4)]
        assert [m.signal for m in moves if m.signal] == signals_sent
        assert sum(d["points"] for m in moves for d in m.declarations or []) == sum(result["declared"])
        assert game.options is not None
        replayed = deal_from_rows(game.deck, game.first_leader, game.options,
                                  [(m.card, m.declarations, m.signal) for m in moves])
        assert replayed.is_over and list(replayed.outcome().score) == result["score"]
        totals = {t.user_id: t for t in s.scalars(select(UserTotals).where(UserTotals.variant == "partnership"))}
        assert sorted(totals) == sorted(u["id"] for u in users)
        winners = {u["id"] for seat, u in enumerate(users) if result["winner"] == seat % 2}
        for uid, row in totals.items():
            assert row.games == 1 and row.wins == int(uid in winners)
            assert (row.rating > 1500) == (uid in winners) or result["winner"] is None
    engine.dispose()


def test_a_four_player_deal_survives_a_restart_and_each_person_gets_their_seat_back(
        pg_url: str, start_server: Callable[..., LiveServer]) -> None:
    """Nine cards (with declarations), kill -9, restart on the same port: the four come back to their seats
    with the deal as stored (declarations included) and play it out."""
    server = start_server(pg_url, TRESET_RECONNECT_GRACE_S="30")
    clients, table_id, users = open_four(server.url, server.ws_url, target=31)
    tokens = [c.token for c in clients]

    def nine(m: dict[str, Any]) -> bool:
        v = m["table"]["view"] if is_table(m) else None
        return v is not None and 4 * len(v["tricks"]) + len(v["table"]) >= 9

    before = play_four(clients, table_id, stop=nine)["table"]["view"]
    server.kill()
    for c in clients:
        c.close()
    again = start_server(pg_url, port=server.port)
    back = [Client(again.ws_url, t) for t in tokens]
    for seat, c in enumerate(back):
        m = c.wait_for(lambda m: is_table(m) and m["table"]["id"] == table_id)
        t = m["table"]
        assert (t["you"], t["status"], t["target"]) == (seat, "playing", 31)
        # (a tenth card may have gone down while seat 0 read the ninth: the first two tricks are sure)
        assert t["view"]["tricks"][:2] == before["tricks"][:2]
        assert t["view"]["declarations"] == before["declarations"]
        assert t["players"][seat]["username"] == users[seat]["username"]
    end = play_four(back, table_id)
    assert end["table"]["result"]["reason"] == "finished"
    engine = create_engine(pg_url)
    with Session(engine) as s:
        game = s.scalars(select(Game).where(Game.table_id == table_id)).one()
        assert len(list(s.scalars(select(Move).where(Move.game_id == game.id)))) == 40
    engine.dispose()


def test_four_people_on_two_processes_play_one_deal(pg_url: str, redis_url: str,
                                                    start_server: Callable[..., LiveServer]) -> None:
    """Seats 0 and 1 connect to one process, 2 and 3 to the other (and a spectator there): the deal is played
    out at the table's owner, each seat seeing only its own hand."""
    from tests.server.test_cluster import _portal

    one, two = _portal(start_server, pg_url, redis_url)
    tokens = [guest_token(one.url)[0] for _ in range(5)]
    clients = [Client((one if i < 2 else two).ws_url, t) for i, t in enumerate(tokens[:4])]
    clients[0].send({"type": "create_table", "game": "partnership", "opponent": "invite", "declarations": True})
    t = clients[0].wait_for(is_table)["table"]
    watcher = Client(two.ws_url, tokens[4])
    watcher.send({"type": "watch_table", "table_id": t["id"], "invite": t["invite"]})
    assert watcher.wait_for(is_table)["table"]["you"] is None
    for seat in (3, 1, 2):
        clients[seat].send({"type": "join_table", "table_id": t["id"], "invite": t["invite"], "seat": seat})
        assert clients[seat].wait_for(is_table)["table"]["you"] == seat
    end = play_four(clients, t["id"], timeout=90)
    result = end["table"]["result"]
    assert result["reason"] == "finished" and sum(result["points"]) == 11
    seen = watcher.wait_for(lambda m: is_table(m) and m["table"]["status"] == "finished")
    assert seen["table"]["result"]["hands"] == result["hands"]
    for seat, c in enumerate(clients):  # no seat was ever sent another seat's hand
        for m in c.received:
            if is_table(m) and m["table"]["view"] and m["table"]["result"] is None:
                assert m["table"]["you"] == seat and len(m["table"]["view"]["hand"]) <= 10
    engine = create_engine(pg_url)
    with Session(engine) as s:
        game = s.scalars(select(Game).where(Game.table_id == t["id"])).one()
        assert game.n_players == 4 and len(list(s.scalars(select(Move).where(Move.game_id == game.id)))) == 40
    engine.dispose()
