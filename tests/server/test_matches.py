"""Matches in the game service, in-process (store and transport in memory): deals linked, totals, the end.

The same through the real server, PostgreSQL and a bot is in tests/web/test_match.py.
"""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

import pytest

from server.game.connection import Connection
from server.game.hub import Hub
from server.game.playing import NEXT_DEAL_WAIT_S
from server.game.records import MemoryStore
from server.game.transport import MemoryTransport
from tests.server.test_game_service import last_table, make_hub, player, send
from tressette import Match, Variant, card_name, deal_score


async def match_table(hub: Hub, target: int, variant: str = "tressette"
                      ) -> tuple[str, list[tuple[Connection, MemoryTransport]]]:
    a = await player(hub, 1, "ann")
    b = await player(hub, 2, "bob")
    await send(hub, a[0], type="create_table", variant=variant, opponent="invite", target=target)
    t = last_table(a[1])
    assert t["target"] == target and t["match"] == {"target": target, "scores": [0, 0], "deal": 0, "end": None,
                                                    "next_deal_at": None}
    await send(hub, b[0], type="join_table", table_id=t["id"], invite=t["invite"])
    return t["id"], [a, b]


async def play_deal(hub: Hub, table_id: str, seats: list[tuple[Connection, MemoryTransport]],
                    rng: random.Random) -> None:
    table = hub.tables[table_id]
    while table.status == "playing":
        assert table.deal is not None
        s = table.seats[table.deal.to_move]
        assert s is not None
        conn = next(c for c, _ in seats if c.user_id == s.user_id)
        await send(hub, conn, type="play", table_id=table_id, card=card_name(rng.choice(table.deal.legal_moves())))


def events(transport: MemoryTransport) -> list[dict[str, Any]]:
    return [m["event"] for m in transport.of_type("table") if m.get("event")]


def test_a_match_to_11_adds_whole_points_until_one_wins_then_a_rematch_opens_a_new_one() -> None:
    async def main() -> None:
        for variant in (Variant.TRESSETTE, Variant.KIFAMENO):
            store = MemoryStore()
            hub = make_hub(store)
            rng = random.Random(5)
            table_id, seats = await match_table(hub, 11, variant.value)
            table = hub.tables[table_id]
            expected = Match(variant, 11)
            leaders = []
            while True:
                assert table.deal is not None
                leaders.append(table.deal.first_leader)
                game_id = table.game_id or 0
                assert store.games[game_id].match is not None
                assert store.games[game_id].match.before == expected.scores  # type: ignore[union-attr]
                assert store.games[game_id].match.deal == expected.deals + 1  # type: ignore[union-attr]
                assert last_table(seats[1][1])["match"]["deal"] == expected.deals + 1
                await play_deal(hub, table_id, seats, rng)
                expected = expected.after(store.ends[game_id].points)
                seen = last_table(seats[0][1])
                assert seen["match"]["scores"] == list(expected.scores)
                assert seen["result"]["match"] == {"id": table.match_id,
                                                   "before": list(store.games[game_id].match.before),  # type: ignore[union-attr]
                                                   "scores": list(expected.scores), "deal": expected.deals}
                assert store.ends[game_id].match is not None
                assert store.ends[game_id].match.scores == expected.scores  # type: ignore[union-attr]
                if expected.is_over:
                    break
                # no clock between deals until a player is ready for the next one
                assert seen["match"]["end"] is None and seen["match"]["next_deal_at"] is None
                for conn, _ in seats:  # both ask for the next deal
                    await send(hub, conn, type="rematch", table_id=table_id)
                assert table.status == "playing"
            end = last_table(seats[1][1])["match"]["end"]
            assert end == {"winner": expected.winner, "margin": expected.margin(), "reason": "finished", "rated": True}
            assert all(b == 1 - a for a, b in zip(leaders, leaders[1:], strict=False))  # the first lead alternates
            assert len({g.match.match_id for g in store.games.values() if g.match}) == 1  # type: ignore[union-attr]
            first_match = table.match_id
            for conn, _ in seats:  # a rematch after the match: a new match from 0-0
                await send(hub, conn, type="rematch", table_id=table_id)
            assert table.status == "playing" and table.match_id != first_match
            assert last_table(seats[0][1])["match"]["scores"] == [0, 0]
            assert sum(deal_score(store.ends[g].points)[0] for g in store.ends) == expected.scores[0]

    asyncio.run(main())


def test_a_timeout_or_leaving_between_deals_forfeits_the_match() -> None:
    async def main() -> None:
        store = MemoryStore()
        hub = make_hub(store)
        rng = random.Random(1)
        table_id, seats = await match_table(hub, 21)
        table = hub.tables[table_id]
        assert table.deal is not None and table.deadline is not None
        late = table.deal.to_move
        table.deadline -= 61
        await hub.tick()
        end = store.ends[table.game_id or 0]
        assert end.reason == "timeout" and end.match is not None
        assert end.match.winner == 1 - late and end.match.reason == "timeout" and end.match.scores == (0, 0)
        assert last_table(seats[0][1])["match"]["end"] == {"winner": 1 - late, "margin": 0, "reason": "timeout",
                                                           "rated": False}  # before any card: aborted

        other_id, others = await match_table(hub, 11)
        await play_deal(hub, other_id, others, rng)
        other = hub.tables[other_id]
        assert other.match_going_on and other.deadline is None
        await send(hub, others[1][0], type="leave_table", table_id=other_id)  # bob leaves between deals
        forfeit = store.matches[other.match_id or 0]
        assert forfeit.winner == 0 and forfeit.reason == "left" and forfeit.deals == 1
        assert {"kind": "match_end", "reason": "left", "seat": 1} in events(others[0][1])
        assert last_table(others[0][1])["match"]["end"]["winner"] == 0

    asyncio.run(main())


def test_the_next_deal_waits_for_both_players_and_one_never_ready_loses_only_after_the_wait() -> None:
    async def main() -> None:
        store = MemoryStore()
        hub = make_hub(store)
        table_id, seats = await match_table(hub, 31)
        table = hub.tables[table_id]
        cy = await player(hub, 3, "cy")  # a spectator sees the match as the players do
        await send(hub, cy[0], type="watch_table", table_id=table_id, invite=table.invite)
        await play_deal(hub, table_id, seats, random.Random(2))
        watched = last_table(cy[1])
        assert watched["you"] is None and watched["match"] == last_table(seats[0][1])["match"]
        assert watched["match"]["scores"] == list(table.match.scores)  # type: ignore[union-attr]
        # Nobody ready: no deal starts by itself and no clock runs, however long both read.
        assert table.status == "finished" and table.deadline is None
        room = hub.rooms.by_id[table_id]
        async with table.lock:
            await room.tick(time.time() + 3600)
        assert table.status == "finished" and table.match_end is None
        await send(hub, seats[0][0], type="rematch", table_id=table_id)  # ann is ready: bob has the wait
        assert table.status == "finished" and table.deadline is not None
        assert table.deadline == pytest.approx(time.time() + NEXT_DEAL_WAIT_S, abs=2)
        assert last_table(seats[1][1])["match"]["next_deal_at"] == int(table.deadline * 1000)
        await hub.tick()
        assert table.status == "finished" and table.match_end is None  # not yet
        table.deadline -= NEXT_DEAL_WAIT_S + 1
        await hub.tick()
        assert table.match_end is not None and table.match_end["winner"] == 0
        assert table.match_end["reason"] == "absent" and table.match_end["rated"] is True
        stored = store.matches[table.match_id or 0]
        assert stored.winner == 0 and stored.reason == "absent"
        assert {"kind": "match_end", "reason": "absent", "seat": 1} in events(seats[0][1])
        assert table.status == "finished"  # the loser kept the seat: a new match needs both again

    asyncio.run(main())


def test_the_next_deal_starts_when_both_are_ready_with_a_fresh_clock() -> None:
    async def main() -> None:
        hub = make_hub(MemoryStore())
        table_id, seats = await match_table(hub, 31)
        table = hub.tables[table_id]
        await play_deal(hub, table_id, seats, random.Random(3))
        await send(hub, seats[1][0], type="rematch", table_id=table_id)
        assert table.status == "finished"
        await send(hub, seats[0][0], type="rematch", table_id=table_id)
        assert table.status == "playing" and table.match is not None and table.match.deals == 1
        seen = last_table(seats[0][1])
        assert seen["match"]["deal"] == 2
        assert seen["turn_deadline"] == pytest.approx((time.time() + hub.settings.move_timeout_s) * 1000, abs=2000)

    asyncio.run(main())


def test_a_match_comes_back_from_the_store_mid_deal_and_between_deals() -> None:
    async def main() -> None:
        store = MemoryStore()
        hub = make_hub(store)
        rng = random.Random(4)
        table_id, seats = await match_table(hub, 21)
        await play_deal(hub, table_id, seats, rng)
        old = hub.tables[table_id]
        assert old.match is not None and old.match_going_on
        again = make_hub(store)  # a restart between two deals: the table waits for the next deal
        assert again.restore() == 1
        table = again.tables[table_id]
        assert table.status == "finished" and table.match == old.match and table.match_id == old.match_id
        assert table.result is not None and table.result["match"] == old.result["match"]  # type: ignore[index]
        assert table.deadline is None and table.next_first_leader == old.next_first_leader
        ann = await player(again, 1, "ann")
        bob = await player(again, 2, "bob")
        for conn, _ in (ann, bob):
            await send(again, conn, type="open_table", table_id=table_id)
        for conn, _ in (ann, bob):
            await send(again, conn, type="rematch", table_id=table_id)
        assert table.status == "playing" and store.games[table.game_id or 0].match.deal == 2  # type: ignore[union-attr]
        for _ in range(3):  # a restart mid-deal: the match goes on from its totals before the deal
            s = table.seats[table.deal.to_move]  # type: ignore[union-attr]
            conn = ann[0] if s is not None and s.user_id == 1 else bob[0]
            await send(again, conn, type="play", table_id=table_id, card=card_name(table.deal.legal_moves()[0]))  # type: ignore[union-attr]
        third = make_hub(store)
        assert third.restore() == 1
        back = third.tables[table_id]
        assert back.status == "playing" and back.move_number == 3 and back.match == table.match
        assert back.match_state() == table.match_state() | {"next_deal_at": None}

    asyncio.run(main())
