"""Aborted deals: a forfeit before both players have played a card rates nothing and counts nowhere.

Through the real move writer and settler against PostgreSQL: a deal left (or timed out) after 0 or 1
card adds no game, win or point and moves no rating, and its players are not on the leaderboard; after
2 cards the forfeit counts as before. A match lost in its first deal that way is not rated either.
In-process, the table tells its players (``result.rated``, ``match.end.rated``).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable

from server.game.records import GameEnd, MatchDeal, MatchEnd, MemoryStore, NewGame, aborted
from server.store.gamestore import SqlGameStore
from server.store.models import MatchRow, UserTotals
from server.store.rankings import ranking
from server.store.ratings import Rating
from tests.server.test_fencing import _close, _players, _row, _store
from tests.server.test_game_service import last_table, make_hub, send
from tests.server.test_matches import match_table
from tressette import Deal, Variant, card_name


def test_the_rule() -> None:
    assert aborted("timeout", 0) and aborted("left", 1) and aborted("absent", 0)
    assert not aborted("left", 2) and not aborted("timeout", 39) and not aborted("finished", 40)


async def _forfeit_after(store: SqlGameStore, table_id: str, players: tuple[int, int], cards: int, *,
                         target: int = 0) -> tuple[int, int | None]:
    """Start a deal (of a new match to ``target`` if given), play ``cards`` cards, then seat 1 leaves."""
    deal = Deal.new(Variant.TRESSETTE, 0, random.Random(cards))
    fences, _ = await asyncio.to_thread(store.claim, [table_id])
    fence = (table_id, fences[table_id])
    match = MatchDeal(target, None, 1, (0, 0)) if target else None
    game_id, _, match_id = await store.start_game(
        NewGame(table_id, 1, "tressette", "anyone", players, None, 0, list(deal.deck), match=match), fence=fence)
    for n in range(cards):
        await store.record_move(_row(game_id, players, deal, n), None, fence=fence)
    end_match = MatchEnd(match_id, (0, 0), 1, 0, "left") if match_id is not None else None
    await store.end_game(GameEnd(game_id, deal.final_points(), 0, "left", "tressette", players, moves=cards,
                                 match=end_match), fence=fence)
    await store.settle(game_id)
    return game_id, match_id


def test_a_forfeit_before_both_played_is_not_rated_nor_counted(make_pg_db: Callable[[], str]) -> None:
    store, writer, sessions = _store(make_pg_db())
    ids = _players(sessions, "ada", "bea", "cid", "dan", "eve", "fay")
    try:
        asyncio.run(_forfeit_after(store, "t0", (ids[0], ids[1]), 0))
        asyncio.run(_forfeit_after(store, "t1", (ids[2], ids[3]), 1))
        asyncio.run(_forfeit_after(store, "t2", (ids[4], ids[5]), 2))
        with sessions() as s:
            for uid in ids[:4]:  # aborted: no totals at all, so not ranked
                assert s.get(UserTotals, (uid, "tressette")) is None
            counted = [s.get(UserTotals, (uid, "tressette")) for uid in ids[4:]]
            assert counted[0] is not None and counted[1] is not None
            assert (counted[0].games, counted[0].wins, counted[1].games, counted[1].wins) == (1, 1, 1, 0)
            assert counted[0].rating > Rating().rating > counted[1].rating
            board = [p["username"] for p in ranking(s, variant="tressette")]
            assert board == ["eve", "fay"]
    finally:
        store.stop()
        _close(writer, sessions)


def test_a_match_lost_in_its_first_deal_before_both_played_is_not_rated(make_pg_db: Callable[[], str]) -> None:
    store, writer, sessions = _store(make_pg_db())
    ids = _players(sessions, "gus", "hal", "ivy", "jon")
    try:
        _, early = asyncio.run(_forfeit_after(store, "m0", (ids[0], ids[1]), 1, target=11))
        _, late = asyncio.run(_forfeit_after(store, "m1", (ids[2], ids[3]), 2, target=11))
        with sessions() as s:
            for match_id in (early, late):
                row = s.get(MatchRow, match_id)
                assert row is not None and row.status == "finished" and not row.rating_pending
            assert s.get(UserTotals, (ids[0], "tressette")) is None and s.get(UserTotals, (ids[1], "tressette")) is None
            winner, loser = s.get(UserTotals, (ids[2], "tressette")), s.get(UserTotals, (ids[3], "tressette"))
            assert winner is not None and loser is not None and winner.rating > 1500 > loser.rating
    finally:
        store.stop()
        _close(writer, sessions)


def test_the_table_says_a_forfeit_before_both_played_is_unrated() -> None:
    async def main() -> None:
        hub = make_hub(MemoryStore())
        table_id, seats = await match_table(hub, 11)
        table = hub.tables[table_id]
        assert table.deadline is not None
        table.deadline -= 61  # the first player's clock runs out before any card
        await hub.tick()
        seen = last_table(seats[0][1])
        assert seen["result"]["rated"] is False and seen["match"]["end"]["rated"] is False

        other_id, others = await match_table(hub, 11)
        other = hub.tables[other_id]
        assert other.deal is not None
        for _ in range(2):  # both play a card; then the clock runs out: a rated forfeit
            s = other.seats[other.deal.to_move]
            conn = next(c for c, _ in others if s is not None and c.user_id == s.user_id)
            await send(hub, conn, type="play", table_id=other_id, card=card_name(other.deal.legal_moves()[0]))
        assert other.deadline is not None
        other.deadline -= 61
        await hub.tick()
        seen = last_table(others[0][1])
        assert seen["result"]["rated"] is True and seen["match"]["end"]["rated"] is True

    asyncio.run(main())

