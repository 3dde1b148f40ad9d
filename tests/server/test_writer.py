"""The move writer on SQLite (the embedded default) and PostgreSQL: group commit, order, a refused write alone.

On PostgreSQL a group's moves and its fence check are one statement (``server.store.fences.insert_fenced``),
so the order and the refusal of one bad move are checked there too.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import psycopg
import pytest
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import sessionmaker

from server.game.records import GameEnd, NewGame
from server.store import repos
from server.store.db import make_engine, upgrade, writer_sessions
from server.store.gamestore import SqlGameStore
from server.store.models import Analysis, Game, Move
from server.store.movelog import move_fields
from server.store.writer import MoveWriter
from tressette import Deal, Variant


def _store(url: str) -> tuple[SqlGameStore, MoveWriter, sessionmaker]:  # type: ignore[type-arg]
    upgrade(url)
    sessions = sessionmaker(make_engine(url), expire_on_commit=False)
    writer = MoveWriter(sessions)
    return SqlGameStore(sessions, writer), writer, sessions


def _close(store: SqlGameStore, writer: MoveWriter, sessions: sessionmaker) -> None:  # type: ignore[type-arg]
    store.stop()
    writer.stop()
    sessions.kw["bind"].dispose()  # no connection is left for the collector (warnings are errors)


def _move(game_id: int, user_id: int, deal: Deal, number: int) -> dict[str, object]:
    seat = deal.to_move
    card = deal.legal_moves()[0]
    row = {"game_id": game_id, "user_id": user_id, "move_number": number, "variant": "tressette",
           **move_fields(deal, seat, card)}
    deal.play(card)
    return row


@pytest.fixture(params=["postgresql", "sqlite"])
def any_url(request: pytest.FixtureRequest, make_pg_db: Callable[[], str], sqlite_url: str) -> str:
    return make_pg_db() if request.param == "postgresql" else sqlite_url


def test_tables_moves_are_committed_in_groups_and_in_order(any_url: str) -> None:
    store, writer, sessions = _store(any_url)
    with sessions() as s:
        a = repos.ensure_user(session=s, username="ann", role="guest")
        b = repos.ensure_user(session=s, username="bob", role="guest")
        s.commit()
        players = (a.id, b.id)

    async def table(n: int) -> int:
        deal = Deal.new(Variant.TRESSETTE, 0)
        game_id, token, _ = await store.start_game(NewGame(f"t{n}", 1, "tressette", "invite", players, None, 0,
                                                        list(deal.deck)), fence=(f"t{n}", 0))  # taken here
        fence = (f"t{n}", token)
        for number in range(40):
            row = _move(game_id, players[deal.to_move], deal, number)
            end = None
            if deal.is_over:
                o = deal.outcome()
                end = GameEnd(game_id, o.points, o.winner, "finished", "tressette", players, moves=40, analyse=True)
            await store.record_move(row, end, fence=fence)
        assert await store.settle(game_id)
        return game_id

    async def main() -> list[int]:
        return await asyncio.gather(*(table(n) for n in range(20)))

    game_ids = asyncio.run(main())
    store.stop()
    writer.stop()
    # 20 games: 780 moves through the moves' writer, grouped; each start and end (with its last move) through the deals'
    assert writer.writes == 20 * 39 and store.deals.writes == 20 * 2 and writer.batches < writer.writes
    with sessions() as s:
        for game_id in game_ids:
            numbers = list(s.scalars(select(Move.move_number).where(Move.game_id == game_id).order_by(Move.id)))
            assert numbers == list(range(40))  # in order, every one
            game = s.get(Game, game_id)
            assert game is not None and game.status == "finished"
            assert s.get(Analysis, game_id) is not None  # queued with the end
            assert game.moves_at_end == 40 and not game.totals_pending
        assert store.unfinished_games() == []
        totals = repos.totals_row(session=s, user_id=players[0], variant="tressette")
        assert totals.games == 20  # each deal added once
    _close(store, writer, sessions)


def test_a_refused_write_fails_alone(any_url: str) -> None:
    store, writer, sessions = _store(any_url)
    with sessions() as s:
        a = repos.ensure_user(session=s, username="ann", role="guest")
        s.commit()
        user_id = a.id

    async def main() -> list[object]:
        deal = Deal.new(Variant.TRESSETTE, 0)
        fence = ("t", store.claim(["t"])[0]["t"])
        game_id, _, _ = await store.start_game(NewGame("t", 1, "tressette", "invite", (user_id, user_id), None, 0,
                                                    list(deal.deck)), fence=fence)
        good = [_move(game_id, user_id, deal, n) for n in range(3)]
        bad = dict(good[0], game_id=game_id + 999, move_number=0)  # no such game: the database refuses it
        return await asyncio.gather(store.record_move(good[0], None, fence=fence),
                                    store.record_move(bad, None, fence=fence),
                                    store.record_move(good[1], None, fence=fence),
                                    store.record_move(good[2], None, fence=fence), return_exceptions=True)

    results = asyncio.run(main())
    assert results[0] is None and results[2] is None and results[3] is None
    assert isinstance(results[1], IntegrityError)
    with sessions() as s:
        assert list(s.scalars(select(Move.move_number).order_by(Move.id))) == [0, 1, 2]
    _close(store, writer, sessions)


@pytest.mark.parametrize("stop_twice", [False, True])
def test_stop_commits_what_is_queued(sqlite_url: str, stop_twice: bool) -> None:
    store, writer, sessions = _store(sqlite_url)
    player = asyncio.run(store.bot_account("bot-normal"))
    writer.stop()
    if stop_twice:
        writer.stop()
    with sessions() as s:
        assert repos.get_user_by_name(session=s, username="bot-normal") is not None
    assert player.username == "bot-normal" and player.role == "bot"


def test_the_writer_without_pings_survives_dropped_connections(make_pg_db: Callable[[], str]) -> None:
    """The writer's pool does not ping (server.store.db.writer_sessions): a connection the database dropped
    fails its group once, and the group is tried again on a fresh connection: no write lost, none refused."""
    url = make_pg_db()
    upgrade(url)
    sessions = writer_sessions(url)
    writer = MoveWriter(sessions)
    store = SqlGameStore(sessions, writer)
    with sessions() as s:
        user_id = repos.ensure_user(session=s, username="ann", role="guest").id
        s.commit()

    async def main() -> list[int]:
        deal = Deal.new(Variant.TRESSETTE, 0)
        fence = ("t", (await asyncio.to_thread(store.claim, ["t"]))[0]["t"])
        game_id, _, _ = await store.start_game(NewGame("t", 1, "tressette", "invite", (user_id, user_id), None, 0,
                                                    list(deal.deck)), fence=fence)
        await store.record_move(_move(game_id, user_id, deal, 0), None, fence=fence)
        with psycopg.connect(url.replace("postgresql+psycopg", "postgresql"), autocommit=True) as admin:
            dropped = admin.execute("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                                    " WHERE datname = current_database() AND pid <> pg_backend_pid()").fetchone()
        assert dropped is not None and dropped[0] >= 1  # the writer's pooled connection was among them
        await store.record_move(_move(game_id, user_id, deal, 1), None, fence=fence)  # alone: tried again
        await asyncio.gather(*(store.record_move(_move(game_id, user_id, deal, n), None, fence=fence)
                               for n in range(2, 4)))
        return [game_id]

    asyncio.run(main())
    assert writer.failures == 0
    with sessions() as s:
        assert list(s.scalars(select(Move.move_number).order_by(Move.id))) == [0, 1, 2, 3]
    _close(store, writer, sessions)
