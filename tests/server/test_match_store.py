"""Matches in the database (PostgreSQL and SQLite) through the real move writer and settler.

A match's deals are linked to its row with the totals before each; a deal of a match adds to the
players' totals but not to their ratings; the match's end moves the ratings once; a table between two
deals of a match comes back from the store (a restart or a takeover) with its last deal; a match that
is over cannot be ended again.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable

import pytest
from sqlalchemy import select

from server.game.records import EndRefused, GameEnd, MatchDeal, MatchEnd, NewGame
from server.store.gamestore import SqlGameStore
from server.store.models import Game, MatchRow, UserTotals
from server.store.ratings import Rating, after_game
from tests.server.test_fencing import _close, _players, _row, _store
from tressette import Deal, Match, Variant


@pytest.fixture(params=["postgresql", "sqlite"])
def any_url(request: pytest.FixtureRequest, make_pg_db: Callable[[], str], sqlite_url: str) -> str:
    return make_pg_db() if request.param == "postgresql" else sqlite_url


async def _play_match_deal(store: SqlGameStore, fence: tuple[str, int], players: tuple[int, int], match: Match,
                           match_id: int | None, number: int, rng: random.Random) -> tuple[int, int | None, Match]:
    deal = Deal.new(Variant.TRESSETTE, number % 2, rng)
    started = await store.start_game(NewGame(fence[0], number + 1, "tressette", "anyone", players, None, number % 2,
                                             list(deal.deck),
                                             match=MatchDeal(11, match_id, match.deals + 1, match.scores)),
                                     fence=fence)
    for n in range(40):
        end = None
        if n == 39:
            probe = deal.copy()
            probe.play(probe.legal_moves()[0])
            after = match.after(probe.final_points())
            assert started.match_id is not None
            end = GameEnd(started.game_id, probe.final_points(), probe.outcome().winner, "finished", "tressette",
                          players, moves=40,
                          match=MatchEnd(started.match_id, after.scores, after.deals, after.winner,
                                         "finished" if after.is_over else None))
        await store.record_move(_row(started.game_id, players, deal, n), end, fence=fence)
    await store.settle(started.game_id)
    return started.game_id, started.match_id, match.after(deal.final_points())


def test_a_match_is_stored_linked_and_rated_once(any_url: str) -> None:
    store, writer, sessions = _store(any_url)
    players_list = _players(sessions, "mia", "max")
    players = (players_list[0], players_list[1])

    async def main() -> tuple[list[int], Match, int]:
        fences, _ = await asyncio.to_thread(store.claim, ["m1"])
        fence = ("m1", fences["m1"])
        match, match_id, rng = Match(Variant.TRESSETTE, 11), None, random.Random(9)
        games: list[int] = []
        while not match.is_over:
            game_id, match_id, match = await _play_match_deal(store, fence, players, match, match_id, len(games), rng)
            games.append(game_id)
            if not match.is_over:  # between two deals: the table comes back from the store with its last deal
                fences, saved = await asyncio.to_thread(store.claim, ["m1"])
                assert len(saved) == 1 and saved[0].game_id == game_id and saved[0].ended
                assert saved[0].match is not None and saved[0].match.match_id == match_id
                assert saved[0].match.deal == match.deals and len(saved[0].moves) == 40
                fence = ("m1", fences["m1"])  # the new owner's token: the next deal is its
        _, saved = await asyncio.to_thread(store.claim, ["m1"])
        assert saved == []  # the match is over: nothing to bring back
        assert match_id is not None
        with pytest.raises(EndRefused):  # a match over cannot end again (a paused process's forfeit, say)
            fences, _ = await asyncio.to_thread(store.claim, ["m1"])
            await store.end_match(MatchEnd(match_id, match.scores, match.deals, 0, "left"), fence=("m1", fences["m1"]))
        return games, match, match_id

    games, match, match_id = asyncio.run(main())
    try:
        with sessions() as s:
            row = s.get(MatchRow, match_id)
            assert row is not None and row.status == "finished" and not row.rating_pending
            assert (row.score0, row.score1, row.deals, row.winner_seat) == (*match.scores, match.deals, match.winner)
            deals = list(s.scalars(select(Game).where(Game.match_id == match_id).order_by(Game.id)))
            assert [g.id for g in deals] == games and [g.match_deal for g in deals] == list(range(1, len(games) + 1))
            assert all(not g.totals_pending for g in deals)
            replayed = Match(Variant.TRESSETTE, 11)
            for g in deals:
                assert (g.match_before0, g.match_before1) == replayed.scores
                replayed = replayed.after((g.points0 or 0, g.points1 or 0))
            totals = [s.get(UserTotals, (uid, "tressette")) for uid in players]
            assert all(t is not None and t.games == len(games) for t in totals)
            rated, _ = after_game(Rating(), Rating(), match.winner or 0)  # one update, for the match
            assert totals[0] is not None and abs(totals[0].rating - rated.rating) < 1e-6
            assert abs(totals[0].rating_rd - rated.rd) < 1e-6
    finally:
        store.stop()
        _close(writer, sessions)
