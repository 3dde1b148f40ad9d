"""Four-player rooms in-process (store and transport in memory): leaving, time, the last person, seated bots.

The same through the real server, PostgreSQL and the agent is in test_partnership.py and
test_partnership_bots.py.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from server.game.connection import Connection
from server.game.hub import Hub
from server.game.partnership.room import FourRoom
from server.game.records import MemoryStore
from server.game.transport import MemoryTransport
from server.protocol import LevelInfo
from tests.server.test_game_service import last_table, make_hub, player, send

RULES = [LevelInfo(name="rules", time_ms=100)]


async def bot(hub: Hub) -> tuple[Connection, MemoryTransport]:
    """Connect a bot that plays the four-player level ``rules`` (it never answers: turns wait with it)."""
    transport = MemoryTransport()
    conn = Connection(send_text=transport.send_text, user_id=999, username="bot-x", role="bot")
    await hub.connect(conn)
    await hub.register_bot(conn, levels=["normal"], capacity=8, analysis=0, level_info=[], partnership=RULES)
    return conn, transport


async def four_people(hub: Hub, **create: Any) -> tuple[str, list[tuple[Connection, MemoryTransport]]]:
    people = [await player(hub, i + 1, f"p{i}") for i in range(4)]
    await send(hub, people[0][0], type="create_table", game="partnership", opponent="invite", **create)
    t = last_table(people[0][1])
    for seat in (1, 2, 3):
        await send(hub, people[seat][0], type="join_table", table_id=t["id"], invite=t["invite"], seat=seat)
    assert last_table(people[3][1])["status"] == "playing"
    return t["id"], people


def room_of(hub: Hub, table_id: str) -> FourRoom:
    room = hub.rooms.by_id[table_id]
    assert isinstance(room, FourRoom)
    return room


def test_a_person_out_of_time_is_replaced_by_a_bot_and_watches_on() -> None:
    async def main() -> None:
        store = MemoryStore()
        hub = make_hub(store)
        await bot(hub)
        table_id, people = await four_people(hub, target=21)
        room = room_of(hub, table_id)
        assert room.table.deal is not None
        late = room.table.deal.to_move
        room.table.deadline = time.time() - 1
        async with room.lock:
            await room.tick(time.time())
        t = last_table(people[(late + 1) % 4][1])
        assert t["players"][late]["is_bot"] and t["players"][late]["replaced"] == f"p{late}"
        events = [m["event"] for m in people[(late + 1) % 4][1].of_type("table")]
        assert {"kind": "bot_took_seat", "seat": late, "replaced": f"p{late}", "cause": "timeout"} in events
        assert [(x.seat, x.user_id, x.cause) for x in store.leaves] == [(late, late + 1, "timeout")]
        assert last_table(people[late][1])["you"] is None  # the late one watches the table go on
        assert table_id in people[late][0].watching
    asyncio.run(main())


def test_a_person_away_past_the_grace_is_replaced_and_the_last_person_leaving_abandons() -> None:
    async def main() -> None:
        store = MemoryStore()
        hub = make_hub(store)
        await bot(hub)
        people = [await player(hub, i + 1, f"p{i}") for i in range(2)]
        await send(hub, people[0][0], type="create_table", game="partnership", target=0,
                   bots=[None, None, "rules", "rules"])
        t = last_table(people[0][1])
        assert t["status"] == "waiting" and [p and p["username"] for p in t["players"]][2:] == ["bot-rules",
                                                                                                "bot-rules-2"]
        await send(hub, people[1][0], type="join_table", table_id=t["id"])
        assert last_table(people[1][1])["status"] == "playing"
        room = room_of(hub, t["id"])
        await hub.disconnect(people[1][0])
        seat = room.table.seats[1]
        assert seat is not None and seat.disconnected_at is not None
        seat.disconnected_at -= hub.settings.reconnect_grace_s + 1
        async with room.lock:
            await room.tick(time.time())
        assert room.table.seats[1] is not None and room.table.seats[1].is_bot
        assert store.leaves[-1].cause == "connection" and room.table.replaced[1] == "p1"
        # The last person leaves: the deal is abandoned (stored), the table closes.
        await send(hub, people[0][0], type="leave_table", table_id=t["id"])
        assert people[0][1].of_type("left")
        game_id = room.table.game_id
        assert game_id is not None and store.ends[game_id].reason == "abandoned"
        assert store.ends[game_id].winner is None and t["id"] not in hub.tables
    asyncio.run(main())


def test_seats_of_a_waiting_table_are_taken_freed_and_filled_with_bots() -> None:
    async def main() -> None:
        hub = make_hub()
        await bot(hub)
        a, b, c = [await player(hub, i + 1, n) for i, n in enumerate(("ann", "bob", "cy"))]
        await send(hub, a[0], type="create_table", game="partnership")
        t = last_table(a[1])
        await send(hub, b[0], type="join_table", table_id=t["id"], seat=2)
        assert last_table(a[1])["players"][2]["username"] == "bob"
        await send(hub, c[0], type="join_table", table_id=t["id"], seat=2)
        assert c[1].of_type("error")[-1]["code"] == "seat_taken"
        await send(hub, b[0], type="seat_bot", table_id=t["id"], seat=1, level="rules")
        assert b[1].of_type("error")[-1]["code"] == "not_seated"  # only the creator seats bots
        await send(hub, b[0], type="leave_table", table_id=t["id"])
        assert last_table(a[1])["players"][2] is None and last_table(a[1])["status"] == "waiting"
        for seat in (1, 2):
            await send(hub, a[0], type="seat_bot", table_id=t["id"], seat=seat, level="rules")
        assert last_table(a[1])["status"] == "waiting"
        await send(hub, c[0], type="join_table", table_id=t["id"])  # the first free seat: 3
        table = last_table(c[1])
        assert table["you"] == 3 and table["status"] == "playing"
        await send(hub, a[0], type="seat_bot", table_id=t["id"], seat=1, level="rules")
        assert a[1].of_type("error")[-1]["code"] == "bad_message"  # not while the deal runs
    asyncio.run(main())


def test_four_seekers_make_a_table_and_friends_who_name_each_other_sit_across() -> None:
    async def main() -> None:
        hub = make_hub()
        people = [await player(hub, i + 1, n) for i, n in enumerate(("ann", "bob", "cy", "dee", "eve"))]
        await send(hub, people[4][0], type="seek", variant="tressette", target=0)  # a two-player seek: apart
        await send(hub, people[0][0], type="seek", game="partnership", target=21, partner="dee")
        await send(hub, people[1][0], type="seek", game="partnership", target=21)
        await send(hub, people[2][0], type="seek", game="partnership", target=21)
        seeking = people[2][1].of_type("seeking")[-1]
        assert (seeking["variant"], seeking["target"], seeking["waiting"]) == ("partnership", 21, 3)
        assert not people[0][1].of_type("seek_ended")
        await send(hub, people[3][0], type="seek", game="partnership", target=21, partner="ann")
        for _, transport in people[:4]:
            assert transport.of_type("seek_ended")[-1]["reason"] == "paired"
        t = last_table(people[0][1])
        names = [p["username"] for p in t["players"]]
        assert t["game"] == "partnership" and t["status"] == "playing" and t["target"] == 21
        assert abs(names.index("ann") - names.index("dee")) == 2  # partners across
        assert not people[4][1].of_type("seek_ended")  # the two-player seeker waits on
        await send(hub, people[4][0], type="seek", game="partnership", target=11)
        assert people[4][1].of_type("error")[-1]["code"] == "bad_message"
    asyncio.run(main())


async def play_out(hub: Hub, people: list[tuple[Connection, MemoryTransport]], table_id: str,
                   signal: str | None = None) -> dict[str, Any]:
    """Play the deal out, each seat its first legal card (with ``signal`` when it leads from the second trick)."""
    while True:
        t = last_table(people[0][1])
        if t["status"] != "playing":
            return t
        seat = t["view"]["to_move"]
        view = last_table(people[seat][1])["view"]
        extra = {"signal": signal} if signal and not view["table"] and view["tricks"] else {}
        await send(hub, people[seat][0], type="play", table_id=table_id, card=view["legal"][0], **extra)
        if extra and people[seat][1].of_type("error"):
            return last_table(people[0][1])


def test_options_off_refuse_declarations_and_signals_and_a_rematch_passes_the_lead_on() -> None:
    async def main() -> None:
        store = MemoryStore()
        hub = make_hub(store)
        table_id, people = await four_people(hub, target=0, declarations=False, signals=False)
        t = last_table(people[0][1])
        assert t["options"] == {"declarations": False, "signals": False} and t["view"]["declarable"] == []
        first = t["view"]["to_move"]
        mover = people[first]
        await send(hub, mover[0], type="play", table_id=table_id, card=last_table(mover[1])["view"]["legal"][0],
                   declarations=[{"kind": "four", "rank": "3"}])
        error = mover[1].of_type("error")[-1]
        assert error["params"]["reason"] == "bad_declaration"
        assert error["params"]["detail"] in ("declaration_not_allowed", "false_declaration")
        # A signal at a table without signals: refused in the second trick, nothing changes.
        await play_out(hub, people, table_id, signal="busso")
        refused = [e for _, tr in people for e in tr.of_type("error") if e["params"].get("reason") == "bad_signal"]
        assert refused and refused[0]["params"]["detail"] == "signal_not_allowed"
        end = await play_out(hub, people, table_id)
        assert end["status"] == "finished" and end["result"]["declared"] == [0, 0]
        assert end["result"]["rated"] is True and sum(end["result"]["points"]) == 11
        for conn, _ in people:
            await send(hub, conn, type="rematch", table_id=table_id)
        again = last_table(people[0][1])
        assert again["status"] == "playing" and again["deal_number"] == 2
        assert again["view"]["first_leader"] == (first + 1) % 4  # the lead passes to the next seat
        assert len(store.games) == 2 and all(len(g.players) == 4 for g in store.games.values())
    asyncio.run(main())


def test_a_restart_brings_back_a_deal_half_played_and_a_match_between_deals() -> None:
    async def main() -> None:
        store = MemoryStore()
        hub = make_hub(store)
        table_id, people = await four_people(hub, target=21, declarations=True)
        end = await play_out(hub, people, table_id)
        assert end["status"] == "finished" and end["match"]["end"] is None
        first = end["view"]["first_leader"]
        # A new process on the same store: the match waits between its deals, its people away.
        again = make_hub(store)
        assert again.restore() == 1
        room = room_of(again, table_id)
        assert room.table.status == "finished" and room.table.match is not None
        assert list(room.table.match.scores) == end["match"]["scores"]
        back = [await player(again, i + 1, f"p{i}") for i in range(4)]
        for conn, _ in back:
            await send(again, conn, type="rematch", table_id=table_id)
        t = last_table(back[0][1])
        assert t["status"] == "playing" and t["deal_number"] == 2 and t["view"]["first_leader"] == (first + 1) % 4
        # Half the second deal, then another restart: the deal comes back as stored, declarations too.
        for _ in range(18):
            t = last_table(back[0][1])
            seat = t["view"]["to_move"]
            view = last_table(back[seat][1])["view"]
            await send(again, back[seat][0], type="play", table_id=table_id, card=view["legal"][0],
                       declarations=view["declarable"])
        before = last_table(back[0][1])["view"]
        third = make_hub(store)
        assert third.restore() == 1
        resumed = [await player(third, i + 1, f"p{i}") for i in range(4)]
        view = last_table(resumed[0][1])["view"]
        assert (view["tricks"], view["table"], view["declarations"]) == (before["tricks"], before["table"],
                                                                          before["declarations"])
        assert view["match"] == before["match"]
        final = await play_out(third, resumed, table_id)
        assert final["status"] == "finished" and final["deal_number"] == 2
    asyncio.run(main())


def test_a_two_player_table_refuses_four_player_fields() -> None:
    async def main() -> None:
        from tests.server.test_game_service import two_players

        hub = make_hub()
        table_id, seats = await two_players(hub)
        t = last_table(seats[0][1])
        mover = seats[0] if t["view"]["to_move"] == t["you"] else seats[1]
        view = last_table(mover[1])["view"]
        assert view["legal"]
        await send(hub, mover[0], type="play", table_id=table_id, card=view["legal"][0], signal="volo")
        assert mover[1].of_type("error")[-1]["code"] == "bad_message"
        await send(hub, mover[0], type="seat_bot", table_id=table_id, seat=1, level="rules")
        assert mover[1].of_type("error")[-1]["code"] == "bad_message"
        assert last_table(mover[1])["view"] == view  # nothing changed
    asyncio.run(main())
