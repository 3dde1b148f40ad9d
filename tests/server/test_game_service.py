"""The game service in-process: the store and the transport in memory, no server, no database.

These run in milliseconds; the same behaviour through the real app and PostgreSQL is in the
other server tests.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from server.game.analysis import AnalysisQueue
from server.game.connection import Connection
from server.game.hub import Hub
from server.game.lobby import SEND_SLICE
from server.game.records import MemoryStore
from server.game.room import Room
from server.game.transport import MemoryTransport
from server.settings import Settings
from tressette import card_name, parse_card


class NoAnalysis(AnalysisQueue):
    """The analysis queue without a database: it only notes the deals that ended."""

    def __init__(self) -> None:
        super().__init__(sessions=_no_database)
        self.ended: list[int | None] = []

    def deal_ended(self, game_id: int) -> None:
        self.ended.append(game_id)

    def restore(self) -> int:
        return 0


def _no_database() -> Any:
    raise AssertionError("the game service's tests have no database")


def make_hub(store: MemoryStore | None = None) -> Hub:
    return Hub(Settings(database_url="sqlite://", ws_rate_per_s=1000, ws_rate_burst=1000), store or MemoryStore(),
               NoAnalysis())


async def player(hub: Hub, user_id: int, name: str) -> tuple[Connection, MemoryTransport]:
    transport = MemoryTransport()
    conn = Connection(send_text=transport.send_text, user_id=user_id, username=name, role="guest",
                      close_socket=transport.close)
    await hub.connect(conn)
    return conn, transport


async def send(hub: Hub, conn: Connection, **msg: Any) -> None:
    await hub.handle(conn, json.dumps(msg))


def last_table(transport: MemoryTransport) -> dict[str, Any]:
    return transport.of_type("table")[-1]["table"]


async def two_players(hub: Hub) -> tuple[str, list[tuple[Connection, MemoryTransport]]]:
    """Open a private table and seat two guests; return its id and the two (connection, transport)."""
    a = await player(hub, 1, "ann")
    b = await player(hub, 2, "bob")
    await send(hub, a[0], type="create_table", variant="tressette", opponent="invite")
    t = last_table(a[1])
    await send(hub, b[0], type="join_table", table_id=t["id"], invite=t["invite"])
    assert last_table(b[1])["status"] == "playing"
    return t["id"], [a, b]


def test_a_whole_deal_is_stored_then_told() -> None:
    async def main() -> None:
        store = MemoryStore()
        hub = make_hub(store)
        table_id, seats = await two_players(hub)
        table = hub.tables[table_id]
        for _ in range(40):
            conn, _, card = _mover(hub, table_id, seats)
            before = len(store.moves[table.game_id or 0])
            await send(hub, conn, type="play", table_id=table_id, card=card)
            assert len(store.moves[table.game_id or 0]) == before + 1
        assert table.status == "finished"
        game_id = table.game_id or 0
        assert [m["move_number"] for m in store.moves[game_id]] == list(range(40))
        assert store.ends[game_id].reason == "finished" and store.ends[game_id].analyse
        for _, transport in seats:
            assert last_table(transport)["status"] == "finished"
            assert not transport.of_type("error")
        assert hub.analysis.ended == [game_id]  # type: ignore[attr-defined]

    asyncio.run(main())


def _mover(hub: Hub, table_id: str, seats: list[tuple[Connection, MemoryTransport]]
           ) -> tuple[Connection, MemoryTransport, str]:
    table = hub.tables[table_id]
    assert table.deal is not None
    seat = table.deal.to_move
    s = table.seats[seat]
    assert s is not None
    conn, transport = next(p for p in seats if p[0].user_id == s.user_id)
    return conn, transport, card_name(table.deal.legal_moves()[0])


def test_a_refused_write_refuses_the_move_and_changes_nothing() -> None:
    async def main() -> None:
        store = MemoryStore()
        hub = make_hub(store)
        table_id, seats = await two_players(hub)
        table = hub.tables[table_id]
        conn, transport, card = _mover(hub, table_id, seats)
        before = {"moves": table.move_number, "hand": table.snapshot(table.seat_of(conn.user_id))["view"]["hand"]}
        told = [len(t.of_type("table")) for _, t in seats]
        store.fail = 1
        await send(hub, conn, type="play", table_id=table_id, card=card)
        assert transport.of_type("error")[-1]["code"] == "internal"
        assert table.move_number == before["moves"] and store.moves[table.game_id or 0] == []
        assert table.snapshot(table.seat_of(conn.user_id))["view"]["hand"] == before["hand"]
        assert [len(t.of_type("table")) for _, t in seats] == told  # nobody heard of a move
        await send(hub, conn, type="play", table_id=table_id, card=card)  # the database is back
        assert table.move_number == before["moves"] + 1 and len(store.moves[table.game_id or 0]) == 1

    asyncio.run(main())


def test_events_wait_for_the_commit_and_the_next_command_waits_for_the_table() -> None:
    async def main() -> None:
        store = MemoryStore()
        hub = make_hub(store)
        table_id, seats = await two_players(hub)
        table = hub.tables[table_id]
        assert table.deal is not None
        conn, transport, card = _mover(hub, table_id, seats)
        other, other_transport = next(p for p in seats if p[0] is not conn)
        probe = table.deal.copy()
        probe.play(parse_card(card))
        answer = card_name(probe.legal_moves()[0])  # legal only once the first card is committed
        told = len(other_transport.of_type("table"))
        store.gate = asyncio.Event()
        first = asyncio.create_task(send(hub, conn, type="play", table_id=table_id, card=card))
        await asyncio.sleep(0.01)
        second = asyncio.create_task(send(hub, other, type="play", table_id=table_id, card=answer))
        await asyncio.sleep(0.01)
        assert table.move_number == 0 and len(other_transport.of_type("table")) == told  # not told yet
        assert not first.done() and not second.done()
        store.gate.set()
        await asyncio.gather(first, second)
        assert table.move_number == 2  # the answer was checked against the committed first card
        assert not other_transport.of_type("error") and not transport.of_type("error")
        kinds = [m["event"]["kind"] for m in other_transport.of_type("table")[told:]]
        assert kinds == ["play", "trick"]

    asyncio.run(main())


def test_other_tables_go_on_while_one_waits() -> None:
    async def main() -> None:
        hub = make_hub()
        first_id, first_seats = await two_players(hub)
        # A second pair of players at a second table.
        c = await player(hub, 3, "cid")
        d = await player(hub, 4, "dan")
        await send(hub, c[0], type="create_table", variant="kifameno", opponent="invite")
        t = last_table(c[1])
        await send(hub, d[0], type="join_table", table_id=t["id"], invite=t["invite"])
        second_id = t["id"]
        lock = hub.tables[first_id].lock
        await lock.acquire()  # the first table is busy (a move being committed)
        conn, _, card = _mover(hub, second_id, [c, d])
        await asyncio.wait_for(send(hub, conn, type="play", table_id=second_id, card=card), 1)
        assert hub.tables[second_id].move_number == 1
        lock.release()

    asyncio.run(main())


def test_unfinished_deals_come_back_from_the_store() -> None:
    async def main() -> None:
        store = MemoryStore()
        hub = make_hub(store)
        table_id, seats = await two_players(hub)
        for _ in range(5):
            conn, _, card = _mover(hub, table_id, seats)
            await send(hub, conn, type="play", table_id=table_id, card=card)
        old = hub.tables[table_id]
        assert old.deal is not None
        again = make_hub(store)
        assert again.restore() == 1
        table = again.tables[table_id]
        assert table.deal is not None and table.move_number == 5
        assert table.deal.to_move == old.deal.to_move and table.deal.legal_moves() == old.deal.legal_moves()
        assert all(s is not None and s.disconnected_at is not None for s in table.seats)

    asyncio.run(main())


def test_a_forfeit_is_stored_before_it_is_told() -> None:
    async def main() -> None:
        store = MemoryStore()
        hub = make_hub(store)
        table_id, seats = await two_players(hub)
        game_id = hub.tables[table_id].game_id or 0
        (ann, ann_t), (bob, bob_t) = seats
        store.fail = 1
        await send(hub, ann, type="leave_table", table_id=table_id)
        assert ann_t.of_type("error")[-1]["code"] == "internal"
        assert hub.tables[table_id].status == "playing" and game_id not in store.ends
        await send(hub, ann, type="leave_table", table_id=table_id)
        assert store.ends[game_id].reason == "left" and store.ends[game_id].winner == hub.tables[table_id].seat_of(2)
        ends = [m for m in bob_t.of_type("table") if (m["event"] or {}).get("kind") == "end"]
        assert len(ends) == 1 and ends[0]["table"]["result"]["reason"] == "left"

    asyncio.run(main())


def test_a_process_that_lost_its_table_stores_nothing_more_there() -> None:
    """Two services on one store (a process that stalled past its lease, and the one that took its table):
    the taker raised the table's fence, so the stalled one's move is refused, not doubled; it drops the
    table at once and tells no one anything of it (the player is told to try again)."""
    async def main() -> None:
        store = MemoryStore()
        stalled = make_hub(store)
        table_id, seats = await two_players(stalled)
        for _ in range(3):
            conn, _, card = _mover(stalled, table_id, seats)
            await send(stalled, conn, type="play", table_id=table_id, card=card)
        game_id = stalled.tables[table_id].game_id or 0
        other = make_hub(store)
        fences, (saved,) = store.claim([table_id])
        taken = other.restore_game(saved, fence=fences[table_id])
        assert taken.deal is not None and fences[table_id] == stalled.tables[table_id].fence + 1
        await other.rooms.by_id[table_id].apply(taken.deal.to_move, taken.deal.legal_moves()[0])  # the 4th card, at the taker
        assert len(store.moves[game_id]) == 4

        conn, transport, card = _mover(stalled, table_id, seats)  # still 3 cards in the stalled one's memory
        told = {id(t): len(t.sent) for _, t in seats}
        await send(stalled, conn, type="play", table_id=table_id, card=card)
        refused = transport.of_type("error")[-1]
        assert refused["code"] == "table_unavailable" and refused["params"]["table_id"] == table_id
        assert [m["move_number"] for m in store.moves[game_id]] == [0, 1, 2, 3]  # not doubled
        assert table_id not in stalled.tables and not stalled.pool.turns
        for _, t in seats:  # no snapshot took the 4th card back off anyone's screen
            assert not [m for m in t.sent[told[id(t)]:] if m["type"] == "table"]
        # Its clock does nothing there either: no forfeit is stored for the table it lost.
        await stalled.tick()
        assert game_id not in store.ends

    asyncio.run(main())


# ----- the lobby and each room command, in memory ------------------------------------------


def last_event(transport: MemoryTransport) -> dict[str, Any] | None:
    event: dict[str, Any] | None = transport.of_type("table")[-1]["event"]
    return event


def test_the_lobby_lists_opens_and_joins_tables_within_the_limits() -> None:
    """A public table is listed at once; a second player joins it and the deal starts; limits are kept."""
    async def main() -> None:
        hub = Hub(Settings(database_url="sqlite://", ws_rate_per_s=1000, ws_rate_burst=1000, max_waiting_tables=1),
                  MemoryStore(), NoAnalysis())
        ann, ann_t = await player(hub, 1, "ann")
        await send(hub, ann, type="create_table", variant="tressette", opponent="anyone")
        table = last_table(ann_t)
        assert table["status"] == "waiting" and table["you"] == 0 and table["invite"] is None
        assert [t["id"] for t in hub.lobby.message()["tables"]] == [table["id"]]
        await send(hub, ann, type="create_table", variant="tressette", opponent="anyone")
        refused = ann_t.of_type("error")[-1]
        assert refused["code"] == "too_many_tables" and refused["params"] == {"limit": 1, "status": "waiting"}
        bob, bob_t = await player(hub, 2, "bob")
        await send(hub, bob, type="join_table", table_id="nope")
        assert bob_t.of_type("error")[-1]["code"] == "no_table"
        await send(hub, bob, type="join_table", table_id=table["id"])
        assert last_table(bob_t)["status"] == "playing" and last_table(bob_t)["you"] == 1
        assert last_table(ann_t)["status"] == "playing" and last_event(ann_t) == {"kind": "start"}
        cid, cid_t = await player(hub, 3, "cid")
        await send(hub, cid, type="join_table", table_id=table["id"])
        assert cid_t.of_type("error")[-1]["code"] == "table_full"
        await send(hub, ann, type="create_table", variant="tressette", opponent="bot", bot_level="normal")
        assert ann_t.of_type("error")[-1]["code"] == "no_bot"  # no bot is connected
        assert len(hub.tables) == 1

    asyncio.run(main())


def test_open_takes_a_seat_over_and_watch_shows_the_public_view() -> None:
    async def main() -> None:
        hub = make_hub()
        table_id, seats = await two_players(hub)
        (ann, ann_t), _ = seats
        tab, tab_t = await player(hub, 1, "ann")  # ann's second tab
        await send(hub, tab, type="open_table", table_id=table_id)
        assert last_table(tab_t)["you"] == 0 and hub.rooms.seats.seat_conn[(table_id, 0)] is tab
        assert ann_t.of_type("seat_moved")[-1] == {"type": "seat_moved", "table_id": table_id}
        await send(hub, ann, type="play", table_id=table_id, card=_mover(hub, table_id, seats)[2])
        assert ann_t.of_type("error")[-1]["code"] == "not_seated"  # the old tab plays for the seat no more
        eve, eve_t = await player(hub, 5, "eve")
        await send(hub, eve, type="watch_table", table_id=table_id)
        assert eve_t.of_type("error")[-1]["code"] == "bad_invite"  # a private table
        await send(hub, eve, type="watch_table", table_id=table_id, invite=hub.tables[table_id].invite)
        watched = last_table(eve_t)
        assert watched["you"] is None and watched["view"]["hand"] == [] and hub.tables[table_id].spectators == 1
        await send(hub, eve, type="leave_table", table_id=table_id)
        assert eve_t.of_type("left")[-1]["table_id"] == table_id and hub.tables[table_id].spectators == 0

    asyncio.run(main())


def test_rematch_and_chat_reach_the_table() -> None:
    async def main() -> None:
        store = MemoryStore()
        hub = make_hub(store)
        table_id, seats = await two_players(hub)
        (ann, ann_t), (bob, bob_t) = seats
        await send(hub, ann, type="rematch", table_id=table_id)
        assert ann_t.of_type("error")[-1]["code"] == "bad_message"  # the deal is not over
        await send(hub, bob, type="chat", table_id=table_id, text="  ciao  ")
        assert ann_t.of_type("chat")[-1]["text"] == bob_t.of_type("chat")[-1]["text"] == "ciao"
        await send(hub, bob, type="chat", table_id=table_id, text="again")
        assert bob_t.of_type("error")[-1]["code"] == "rate_limited"
        eve, eve_t = await player(hub, 5, "eve")
        await send(hub, eve, type="chat", table_id=table_id, text="hi")
        assert eve_t.of_type("error")[-1]["code"] == "not_seated"
        for _ in range(40):
            conn, _, card = _mover(hub, table_id, seats)
            await send(hub, conn, type="play", table_id=table_id, card=card)
        first_game = hub.tables[table_id].game_id
        await send(hub, ann, type="rematch", table_id=table_id)
        assert last_event(bob_t) == {"kind": "rematch", "seat": 0} and last_table(bob_t)["rematch"][0]
        await send(hub, bob, type="rematch", table_id=table_id)
        table = hub.tables[table_id]
        assert table.status == "playing" and table.deal_number == 2 and table.game_id != first_game
        assert last_event(ann_t) == {"kind": "start"} and last_table(ann_t)["match_wins"] == table.match_wins

    asyncio.run(main())


def test_the_clock_forfeits_a_late_player_and_one_away_past_the_grace() -> None:
    async def main() -> None:
        store = MemoryStore()
        hub = make_hub(store)
        table_id, seats = await two_players(hub)
        table = hub.tables[table_id]
        assert table.deal is not None and table.deadline is not None
        to_move = table.deal.to_move
        table.deadline -= 61
        await hub.tick()
        assert table.status == "finished" and store.ends[table.game_id or 0].reason == "timeout"
        assert store.ends[table.game_id or 0].winner == 1 - to_move

        other_id, others = await two_players(hub)  # the same two people, a second table
        (ann, _), (bob, bob_t) = others
        await hub.disconnect(ann)
        other = hub.tables[other_id]
        assert last_event(bob_t) == {"kind": "disconnect", "seat": 0}
        seat = other.seats[0]
        assert seat is not None and seat.disconnected_at is not None
        seat.disconnected_at -= hub.settings.reconnect_grace_s + 1
        await hub.tick()
        end = store.ends[other.game_id or 0]
        assert other.status == "finished" and end.reason == "left" and end.winner == 1
        assert last_event(bob_t) == {"kind": "end", "reason": "left", "seat": 0, "cause": "connection"}
        seat.disconnected_at -= hub.settings.reconnect_grace_s + 1  # away past the grace after the deal: unseated
        await hub.tick()
        assert other.seats[0] is None and last_event(bob_t) == {"kind": "leave", "seat": 0}

    asyncio.run(main())


def test_a_player_who_comes_back_is_seated_again() -> None:
    async def main() -> None:
        hub = make_hub()
        table_id, seats = await two_players(hub)
        (ann, _), (bob, bob_t) = seats
        await hub.disconnect(ann)
        again, again_t = await player(hub, 1, "ann")
        welcome = again_t.of_type("welcome")[-1]
        assert welcome["seats"] == [{"table_id": table_id, "seat": 0, "status": "playing", "elsewhere": False}]
        assert hub.rooms.seats.seat_conn[(table_id, 0)] is again
        assert last_event(bob_t) == {"kind": "reconnect", "seat": 0}
        await send(hub, again, type="leave_table", table_id=table_id)
        assert again_t.of_type("left")[-1]["table_id"] == table_id
        await send(hub, bob, type="leave_table", table_id=table_id)
        assert table_id not in hub.tables  # nobody left: the room closed

    asyncio.run(main())


def test_the_last_card_is_told_before_the_totals_and_the_end_after_them() -> None:
    """Issue #42: settling the totals (a second commit) is not on the last card's way; ``end`` waits for it."""
    async def main() -> None:
        store = SlowSettle()
        hub = make_hub(store)
        table_id, seats = await two_players(hub)
        for _ in range(39):
            conn, _, card = _mover(hub, table_id, seats)
            await send(hub, conn, type="play", table_id=table_id, card=card)
        conn, transport, card = _mover(hub, table_id, seats)
        last = asyncio.create_task(send(hub, conn, type="play", table_id=table_id, card=card))
        await store.settling.wait()
        events = [m["event"]["kind"] for m in transport.of_type("table") if m.get("event")]
        assert events[-1] == "trick" and last_table(transport)["status"] == "finished"  # told, not yet settled
        store.release.set()
        await last
        assert [m["event"]["kind"] for m in transport.of_type("table") if m.get("event")][-1] == "end"
        assert store.settled == [hub.tables[table_id].game_id]

    asyncio.run(main())


class SlowSettle(MemoryStore):
    """A store whose settling waits for ``release`` (a slow second commit), ``settling`` set meanwhile."""

    def __init__(self) -> None:
        super().__init__()
        self.settling = asyncio.Event()
        self.release = asyncio.Event()

    async def settle(self, game_id: int) -> bool:
        self.settling.set()
        await self.release.wait()
        return await super().settle(game_id)


def test_the_clock_looks_only_at_rooms_with_something_due(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue #42: a pass of the clock takes the lock and ticks only the rooms whose timers ran out."""
    ticked: list[str] = []
    original = Room.tick

    async def spy(room: Room, now: float) -> None:
        ticked.append(room.table.id)
        await original(room, now)
    monkeypatch.setattr(Room, "tick", spy)

    async def main() -> None:
        hub = make_hub(MemoryStore())
        tables = [(await two_players(hub))[0] for _ in range(5)]
        await hub.tick()
        assert ticked == []  # five running deals, every clock still running
        late = hub.tables[tables[2]]
        assert late.deadline is not None
        late.deadline -= 61
        await hub.tick()
        assert ticked == [tables[2]] and late.status == "finished"

    asyncio.run(main())


def test_a_lobby_to_many_sockets_goes_out_in_slices() -> None:
    """Issue #42: a card that arrives while a lobby goes out to hundreds of idle sockets waits for one slice
    of sends, not for all of them."""
    async def main() -> None:
        hub = make_hub(MemoryStore())
        idle = [await player(hub, 100 + i, f"p{i}") for i in range(5 * SEND_SLICE)]
        total = len(idle)
        lobbies_when_the_card_ran: list[int] = []

        def lobbies() -> int:
            return sum(len(t.of_type("lobby")) for _, t in idle) - total  # beyond each newcomer's own

        def arriving(conn: Connection) -> None:
            send_text = conn.send_text

            async def send(text: str) -> None:  # the moment the lobby starts going out, a card arrives
                if not lobbies_when_the_card_ran:
                    asyncio.get_running_loop().call_soon(lambda: lobbies_when_the_card_ran.append(lobbies()))
                await send_text(text)
            conn.send_text = send
        for conn, _ in idle:
            arriving(conn)
        for conn, _ in idle:
            conn.lobby_seen = ""  # each one's lobby is out of date
        hub.lobby_dirty = True
        await hub.lobby.send()
        assert lobbies() == total  # everyone got it
        assert lobbies_when_the_card_ran[0] <= SEND_SLICE  # the card ran after a slice, not after them all

    asyncio.run(main())
