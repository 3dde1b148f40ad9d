"""The analysis queue's order on PostgreSQL (issue #34): people's games before bot games, one position for all.

Two queues on one database stand for two server processes: a game's place in the queue is the same
from both, people's deals go before deals between two bots whenever they were asked for, and a bot
with a free slot gets them in that order.
"""

from __future__ import annotations

import asyncio
import random
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import update
from sqlalchemy.orm import Session, sessionmaker

from server.game.analysis import AnalysisQueue
from server.store import repos
from server.store.analyses import bot_games as bot_games_of
from server.store.db import make_engine, upgrade
from server.store.models import Analysis, Game
from tressette import Deal, Variant


class FakeBot:
    """A bot connection with analysis slots that only notes the jobs it is sent."""

    def __init__(self, slots: int) -> None:
        self.analysis = slots
        self.closed = False
        self.sent: list[dict[str, Any]] = []

    async def send(self, msg: dict[str, Any]) -> None:
        self.sent.append(msg)


def _game(session: Session, players: tuple[int, int]) -> int:
    deal = Deal.new(Variant.TRESSETTE, 0, random.Random(1))
    game = repos.create_game(session=session, game=Game(
        table_id="q", deal_number=1, variant="tressette", opponent="anyone", player0_id=players[0],
        player1_id=players[1], bot_level=None, first_leader=0, deck=list(deal.deck), status="finished",
        points0=20, points1=15, winner_seat=0, end_reason="finished", moves_at_end=0))
    return int(game.id)


def test_people_first_and_one_position_from_every_process(pg_url: str) -> None:
    upgrade(pg_url)
    engine = make_engine(pg_url)
    sessions = sessionmaker(engine, expire_on_commit=False)
    try:
        with sessions() as s:
            ann, bob = (repos.ensure_user(session=s, username=n, role="guest").id for n in ("ann", "bob"))
            b1, b2 = (repos.ensure_user(session=s, username=n, role="bot").id for n in ("bot-easy", "bot-master"))
            bot_games = [_game(s, (b1, b2)) for _ in range(2)]
            people = [_game(s, (ann, b1)), _game(s, (ann, bob))]
            s.commit()

        async def main() -> tuple[AnalysisQueue, AnalysisQueue, FakeBot]:
            first, second = AnalysisQueue(sessions), AnalysisQueue(sessions)
            for game_id in bot_games:  # asked for first (an admin), between bots
                assert await first.request(game_id)
            for game_id in people:  # deals with a person end later; their analysis is queued with the end
                with sessions() as s:
                    s.add(Analysis(game_id=game_id, status="queued", attempts=0))
                    s.commit()
                first.deal_ended(game_id)
            assert first.waiting == [*people, *bot_games]
            with sessions() as s:  # asked for long ago: bot games still wait behind people's
                s.execute(update(Analysis).where(Analysis.game_id.in_(bot_games))
                          .values(requested_at=datetime.now(UTC) - timedelta(hours=1)))
                s.commit()
            assert second.restore(running=False) == 4 and second.waiting == [*people, *bot_games]
            with sessions() as s:
                for queue in (first, second):
                    places = [queue.status(s, g)[1]["position"] for g in [*people, *bot_games]]
                    assert places == [1, 2, 3, 4]
            bot = FakeBot(slots=3)
            await first.hello(bot)  # type: ignore[arg-type]
            for _ in range(200):  # the jobs go out from the queue's own tasks too
                if len(bot.sent) == 3:
                    break
                await asyncio.sleep(0.02)
            return first, second, bot

        first, second, bot = asyncio.run(main())
        # Handed out in that order (the sends themselves may overlap: each reads its record off the event loop).
        assert [j.game_id for j in first.jobs.values()] == [*people, bot_games[0]]
        assert sorted(m["game_id"] for m in bot.sent) == sorted([*people, bot_games[0]])
        with sessions() as s:
            assert second.status(s, bot_games[1])[1]["position"] == 1  # the others run: it is next, seen from both
            assert first.status(s, people[0])[1] == {"status": "running", "position": 0, "bots": 1}
    finally:
        engine.dispose()


def _four(session: Session, players: tuple[int, int, int, int]) -> int:
    """Store a finished four-player deal of ``players`` (seats 0..3); return its id."""
    from tressette.partnership import PartnershipDeal

    deal = PartnershipDeal.new(0, random.Random(2))
    game = repos.create_game(session=session, game=Game(
        table_id="q4", deal_number=1, variant="partnership", opponent="anyone", player0_id=players[0],
        player1_id=players[1], player2_id=players[2], player3_id=players[3], n_players=4, bot_level=None,
        first_leader=0, deck=list(deal.deck), status="finished", points0=6, points1=5, winner_seat=0,
        end_reason="finished", moves_at_end=0))
    return int(game.id)


def test_four_player_deals_with_a_person_go_first(pg_url: str) -> None:
    """A four-player deal is a bot game only when all four seats are bots (a person at seat 2 or 3 counts too)."""
    upgrade(pg_url)
    engine = make_engine(pg_url)
    sessions = sessionmaker(engine, expire_on_commit=False)
    try:
        with sessions() as s:
            ann = repos.ensure_user(session=s, username="ann", role="guest").id
            bots = [repos.ensure_user(session=s, username=f"bot-{i}", role="bot").id for i in range(4)]
            all_bots = _four(s, (bots[0], bots[1], bots[2], bots[3]))
            person_at_3 = _four(s, (bots[0], bots[1], bots[2], ann))
            person_at_2 = _four(s, (bots[0], bots[1], ann, bots[3]))
            s.commit()
            assert bot_games_of(s, [all_bots, person_at_3, person_at_2]) == {all_bots}

        async def main() -> list[int]:
            queue = AnalysisQueue(sessions)
            for game_id in (all_bots, person_at_3, person_at_2):  # the bots' deal asked for first
                assert await queue.request(game_id)
            return queue.waiting

        assert asyncio.run(main()) == [person_at_3, person_at_2, all_bots]
        with sessions() as s:
            assert [AnalysisQueue(sessions).status(s, g)[1]["position"] for g in (person_at_3, person_at_2, all_bots)] \
                == [1, 2, 3]
    finally:
        engine.dispose()
