"""Fencing and ends in the database itself (issue #29), on PostgreSQL and SQLite through the real move writer.

- A table taken over (its token raised) refuses the former owner's writes, in the same group as
  another table's writes that commit.
- An end is stored only with the move count it was computed from; no move is stored after it.
- A ``user_totals`` row locked by someone else holds up neither the deal's end nor other tables'
  moves: the totals wait and are added later, once.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import psycopg
import pytest
from sqlalchemy import select
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session, sessionmaker

from server.game.records import EndRefused, FenceRefused, GameEnd, NewGame
from server.store import repos
from server.store.db import make_engine, upgrade
from server.store.gamestore import SqlGameStore
from server.store.models import Game, Move
from server.store.movelog import move_fields
from server.store.writer import MoveWriter
from tressette import Deal, Variant


def _store(url: str) -> tuple[SqlGameStore, MoveWriter, sessionmaker[Session]]:
    upgrade(url)
    sessions = sessionmaker(make_engine(url), expire_on_commit=False)
    writer = MoveWriter(sessions)
    return SqlGameStore(sessions, writer), writer, sessions


def _close(writer: MoveWriter, sessions: sessionmaker[Session]) -> None:
    writer.stop()
    sessions.kw["bind"].dispose()  # no connection is left for the collector (warnings are errors)


def _players(sessions: sessionmaker[Session], *names: str) -> list[int]:
    with sessions() as s:
        ids = [repos.ensure_user(session=s, username=n, role="guest").id for n in names]
        s.commit()
    return ids


async def _start(store: SqlGameStore, table_id: str, players: tuple[int, int]) -> tuple[Deal, int, tuple[str, int]]:
    deal = Deal.new(Variant.TRESSETTE, 0)
    fences, _ = await asyncio.to_thread(store.claim, [table_id])
    fence = (table_id, fences[table_id])
    game_id, _, _ = await store.start_game(NewGame(table_id, 1, "tressette", "anyone", players, None, 0, list(deal.deck)),
                                     fence=fence)
    return deal, game_id, fence


def _row(game_id: int, players: tuple[int, int], deal: Deal, number: int) -> dict[str, object]:
    seat = deal.to_move
    card = deal.legal_moves()[0]
    row = {"game_id": game_id, "user_id": players[seat], "move_number": number, "variant": "tressette",
           **move_fields(deal, seat, card)}
    deal.play(card)
    return row


@pytest.fixture(params=["postgresql", "sqlite"])
def any_url(request: pytest.FixtureRequest, make_pg_db: Callable[[], str], sqlite_url: str) -> str:
    return make_pg_db() if request.param == "postgresql" else sqlite_url


def test_a_table_taken_over_refuses_its_former_owner(any_url: str) -> None:
    store, writer, sessions = _store(any_url)
    ann, bob = _players(sessions, "ann", "bob")
    players = (ann, bob)

    async def main() -> list[BaseException | None]:
        deal_a, game_a, fence_a = await _start(store, "ta", players)
        deal_b, game_b, fence_b = await _start(store, "tb", players)
        await store.record_move(_row(game_a, players, deal_a, 0), None, fence=fence_a)
        fences, saved = await asyncio.to_thread(store.claim, ["ta"])  # another process takes table A
        assert fences["ta"] == fence_a[1] + 1 and len(saved[0].moves) == 1  # it read the stored card
        late = _row(game_a, players, deal_a, 1)
        return list(await asyncio.gather(  # one group: the stale table's write is refused, the other's commits
            store.record_move(late, None, fence=fence_a), store.record_move(
                _row(game_b, players, deal_b, 0), None, fence=fence_b),
            store.end_game(GameEnd(game_a, (0, 0), 1, "timeout", "tressette", players, moves=1),
                           fence=fence_a),
            return_exceptions=True))

    late, other, forfeit = asyncio.run(main())
    assert isinstance(late, FenceRefused) and isinstance(forfeit, FenceRefused) and other is None
    with sessions() as s:
        by_game = {g.table_id: g for g in s.scalars(select(Game))}
        assert by_game["ta"].status == "playing" and by_game["ta"].end_reason is None  # no wrong end stored
        assert list(s.scalars(select(Move.move_number).where(Move.game_id == by_game["ta"].id))) == [0]
        assert list(s.scalars(select(Move.move_number).where(Move.game_id == by_game["tb"].id))) == [0]
    _close(writer, sessions)


def test_an_end_counts_its_moves_and_no_move_follows_it(any_url: str) -> None:
    store, writer, sessions = _store(any_url)
    ann, bob = _players(sessions, "ann", "bob")
    players = (ann, bob)

    async def main() -> tuple[int, dict[str, object]]:
        deal, game_id, fence = await _start(store, "t", players)
        for n in range(3):
            await store.record_move(_row(game_id, players, deal, n), None, fence=fence)
        with pytest.raises(EndRefused):  # computed from 2 moves: 3 are stored
            await store.end_game(GameEnd(game_id, (0, 0), 1, "timeout", "tressette", players, moves=2),
                                 fence=fence)
        await store.end_game(GameEnd(game_id, (0, 0), 1, "timeout", "tressette", players, moves=3),
                             fence=fence)
        with pytest.raises(EndRefused):  # over already
            await store.end_game(GameEnd(game_id, (0, 0), 0, "left", "tressette", players, moves=3),
                                 fence=fence)
        return game_id, _row(game_id, players, deal, 3)

    game_id, after = asyncio.run(main())
    with sessions() as s, pytest.raises(DBAPIError):  # the database itself refuses a move after the end
        s.add(Move(**after))
        s.flush()
    with sessions() as s:
        game = s.get(Game, game_id)
        assert game is not None and game.moves_at_end == 3 and game.winner_seat == 1 and game.totals_pending
        assert s.scalar(select(Move.move_number).order_by(Move.move_number.desc()).limit(1)) == 2
    _close(writer, sessions)


def test_a_locked_totals_row_holds_up_no_other_table(make_pg_db: Callable[[], str]) -> None:
    url = make_pg_db()
    store, writer, sessions = _store(url)
    ann, bob, cid, dan = _players(sessions, "ann", "bob", "cid", "dan")
    with sessions() as s:
        repos.totals_row(session=s, user_id=ann, variant="tressette")
        s.commit()
    conninfo = url.replace("postgresql+psycopg://", "postgresql://")
    locker = psycopg.connect(conninfo)
    locker.execute("SELECT * FROM user_totals WHERE user_id = %s FOR UPDATE", (ann,))  # held until rollback

    async def main() -> tuple[int, bool, list[float]]:
        deal, game_id, fence = await _start(store, "ended", (ann, bob))
        for n in range(39):
            await store.record_move(_row(game_id, (ann, bob), deal, n), None, fence=fence)
        last = _row(game_id, (ann, bob), deal, 39)
        outcome = deal.outcome()
        await store.record_move(last, GameEnd(game_id, outcome.points, outcome.winner, "finished", "tressette",
                                              (ann, bob), moves=40), fence=fence)  # the end: stored, not held up

        other, other_id, other_fence = await _start(store, "other", (cid, dan))
        waits: list[float] = []

        async def play_other() -> None:
            for n in range(20):
                started = time.perf_counter()
                await store.record_move(_row(other_id, (cid, dan), other, n), None, fence=other_fence)
                waits.append(time.perf_counter() - started)

        settled, _ = await asyncio.gather(store.settle(game_id), play_other())
        return game_id, settled, waits

    game_id, settled, waits = asyncio.run(main())
    # Everything above finished while the row was still locked: the totals waited, nothing else did.
    print(f"other table's 20 moves during the lock: max {max(waits) * 1000:.1f} ms, "
          f"mean {sum(waits) / len(waits) * 1000:.1f} ms")
    assert settled is False and len(waits) == 20
    with sessions() as s:
        game = s.get(Game, game_id)
        assert game is not None and game.status == "finished" and game.totals_pending
    locker.rollback()
    locker.close()
    assert asyncio.run(store.settle_pending()) == 1
    assert asyncio.run(store.settle_pending()) == 0  # once only
    with sessions() as s:
        assert repos.totals_row(session=s, user_id=ann, variant="tressette").games == 1
        assert repos.totals_row(session=s, user_id=bob, variant="tressette").games == 1
    _close(writer, sessions)
