"""The game service's store on the database: every write goes through a writer thread (group commit).

The moves go through the moves' writer (the app's); a deal's start and end and a match's end through
the deals' writer (:attr:`SqlGameStore.deals`), so that the other tables' moves never wait behind them.

The players' totals and ratings are added after a deal's end is stored, in a transaction of their
own off the writer (:meth:`SqlGameStore.settle`): a ``user_totals`` row locked elsewhere then holds
up that deal's last message at most ``settle_wait_s``, never the other tables' moves. What is not
settled then is settled by :meth:`SqlGameStore.settle_pending`, which the clock runs.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Collection
from datetime import UTC, datetime
from typing import Any, cast

from sqlalchemy import Table, insert, select, text
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from server.game.records import (
    Fence,
    GameEnd,
    Leave,
    MatchDeal,
    MatchEnd,
    NewGame,
    Player,
    SavedGame,
    Started,
)
from server.store import partnership, repos
from server.store.fences import claim_tables
from server.store.models import Analysis, Game, MatchRow, Move, User, UserTotals
from server.store.ratings import DEFAULT_RATING
from server.store.writer import MoveWriter

log = logging.getLogger("treset.store")
SETTLE_LOCK_TIMEOUT_MS = 2000
"""How long settling a deal waits for a locked totals row before it gives up (and is retried later)."""


class SqlGameStore:
    """A :class:`server.game.records.GameStore` on SQLAlchemy: writes through ``writer``, reads through ``sessions``."""

    def __init__(self, sessions: Callable[[], Session], writer: MoveWriter) -> None:
        """Store through ``writer``; ``sessions`` serves the restore at start."""
        self.sessions = sessions
        self.writer = writer
        self.deals = MoveWriter(writer.sessions, metrics=writer.metrics)
        """The deals' writer: a deal's start and end, a match's end (each several statements) on a thread
        of their own, so the moves of the other tables never wait behind them. A table has one write in
        flight at a time, so its writes keep their order across the two threads. (A thousand deals ending
        together held every move up for seconds behind their ends, issue #42.)"""
        self.settler = MoveWriter(writer.sessions)
        """A third writer, for totals only: deals ending together are settled in one transaction, and a
        totals row held locked elsewhere holds up this thread, never the moves' writer."""

    def stop(self) -> None:
        """Commit the deals' queued writes and settle what is queued, then stop those threads (the moves'
        writer is the caller's)."""
        self.deals.stop()
        self.settler.stop()

    async def bot_account(self, username: str) -> Player:
        """Return the bot account ``username``, creating it if missing."""
        def work(session: Session) -> Player:
            user = repos.ensure_user(session=session, username=username, role="bot")
            return Player(user.id, user.username, user.role)
        return await self.writer.run(work)

    async def rating(self, user_id: int, variant: str) -> float:
        """Return ``user_totals.rating`` of the user in ``variant`` (1500 for one who has not played it)."""
        def work() -> float:
            with self.sessions() as session:
                value = session.scalar(select(UserTotals.rating).where(UserTotals.user_id == user_id,
                                                                       UserTotals.variant == variant))
                return float(value) if value is not None else DEFAULT_RATING
        return await asyncio.to_thread(work)

    async def start_game(self, game: NewGame, *, fence: Fence) -> Started:
        """Insert the deal's ``games`` row (and, for a match's first deal, its ``matches`` row); return
        its id, the table's token (token 0: claimed here) and its match id."""
        def work(session: Session) -> Started:
            token = fence[1] or claim_tables(session=session, table_ids=[fence[0]])[fence[0]]
            match = game.match
            match_id = match.match_id if match else None
            four = _four(game.players)
            if match is not None and match_id is None:
                match_id = repos.open_match(session=session, match=MatchRow(
                    table_id=game.table_id, variant=game.variant, target=match.target, opponent=game.opponent,
                    bot_level=game.bot_level, player0_id=game.players[0], player1_id=game.players[1],
                    status="playing", score0=0, score1=0, deals=0, **four))
            row = repos.create_game(session=session, game=Game(
                table_id=game.table_id, deal_number=game.deal_number, variant=game.variant,
                opponent=game.opponent, player0_id=game.players[0], player1_id=game.players[1],
                bot_level=game.bot_level, first_leader=game.first_leader, deck=list(game.deck), status="playing",
                match_id=match_id, match_deal=match.deal if match else None,
                match_before0=match.before[0] if match else None, match_before1=match.before[1] if match else None,
                options=game.options, **four))
            return Started(int(row.id), token, match_id)
        return await self.deals.run(work, fence=fence if fence[1] else None)

    async def record_move(self, move: dict[str, Any], end: GameEnd | None, *, fence: Fence) -> None:
        """Insert one move (and the deal's end) in the writer's next group."""
        if end is None:
            await self.writer.insert(Move, move, fence=fence)
            return

        def work(session: Session) -> None:
            session.execute(insert(cast(Table, Move.__table__)), [move])  # counted by the end: stored first
            _finish(session, end)
        await self.deals.run(work, fence=fence)

    async def end_game(self, end: GameEnd, *, fence: Fence) -> None:
        """Record a forfeit."""
        await self.deals.run(lambda session: _finish(session, end), fence=fence)

    async def end_match(self, end: MatchEnd, *, fence: Fence) -> None:
        """Record a match forfeited between deals."""
        await self.deals.run(lambda session: _finish_match(session, end), fence=fence)

    async def leave_partnership(self, leave: Leave, *, fence: Fence) -> None:
        """Record a person leaving a four-player deal (fenced, through the writer), then rate their loss once
        (through the settler: a locked totals row never holds up the moves)."""
        await self.deals.run(lambda session: partnership.record_leaver(session=session, leave=leave), fence=fence)
        await self._settle(leave.game_id)  # the leaver's loss is rated with the settling of the deal
    async def settle(self, game_id: int) -> bool:
        """Add an ended deal to its players' totals and ratings; False if a lock held it up past the wait."""
        return await self._settle(game_id) is not None

    async def settle_pending(self) -> int:
        """Settle every ended deal whose totals are still to be added (after a refusal, or by a stopped process)."""
        def pending() -> list[int]:
            with self.sessions() as session:
                return repos.pending_totals(session=session)
        try:
            game_ids = await asyncio.to_thread(pending)
        except Exception as exc:  # noqa: BLE001 - the database is away: next time
            log.warning("settling ended deals failed: %s", str(exc).splitlines()[0])
            return 0
        # Through the settler, as at a deal's end: the deals go in groups, a locked one fails alone.
        return sum(bool(done) for done in await asyncio.gather(*(self._settle(g) for g in game_ids)))

    async def _settle(self, game_id: int) -> bool | None:
        """Apply ``game_id``'s totals through the settler: True, False (added before), None (refused: later)."""
        def work(session: Session) -> bool:
            _lock_timeout(session)
            left = partnership.rate_leavers(session=session, game_id=game_id)
            added = repos.apply_totals(session=session, game_id=game_id)
            match_id = repos.match_of(session=session, game_id=game_id)
            # A match's rating moves once, when it has ended: with its last deal's settling.
            rated = match_id is not None and repos.apply_match_rating(session=session, match_id=match_id)
            return added or rated or left
        try:
            return await self.settler.run(work)
        except Exception as exc:  # noqa: BLE001 - the end is stored: settle_pending comes back to it
            log.warning("the totals of game %s wait for later: %s", game_id, str(exc).splitlines()[0])
            return None

    def claim(self, table_ids: Collection[str] | None) -> tuple[dict[str, int], list[SavedGame]]:
        """Raise the tables' fencing tokens and read their unfinished deals, in one transaction."""
        with self.sessions() as session:
            if table_ids is None:
                table_ids = {g.table_id for g in (*repos.unfinished_games(session=session),
                                                   *repos.matches_between_deals(session=session))}
            fences = claim_tables(session=session, table_ids=table_ids) if table_ids else {}
            # Read after the claim: a former owner's write either committed before it (and is read
            # here) or comes after it (and is refused).
            saved = self._saved(session, table_ids) if table_ids else []
            session.commit()
        return fences, saved

    def unfinished_games(self, table_ids: Collection[str] | None = None) -> list[SavedGame]:
        """Return every deal still being played (at ``table_ids`` only, if given), with its moves, and the
        last deal of each match between two deals."""
        with self.sessions() as session:
            return self._saved(session, table_ids)

    @staticmethod
    def _saved(session: Session, table_ids: Collection[str] | None) -> list[SavedGame]:
        saved = []
        # A match between two deals: its last (ended) deal brings the table back, waiting for the next one.
        between = repos.matches_between_deals(session=session, table_ids=table_ids)
        for game in sorted([*repos.unfinished_games(session=session, table_ids=table_ids), *between],
                           key=lambda g: g.id):
            ids = (game.player0_id, game.player1_id, game.player2_id, game.player3_id)[:game.n_players or 2]
            users = [session.get(User, uid) for uid in ids]
            players = [Player(u.id, u.username, u.role) for u in users if u is not None]
            assert len(players) == len(ids)
            rows = repos.moves_of(session=session, game_id=game.id)
            moves = [(m.seat, m.card) for m in rows]
            extras = ([(list(m.declarations or []), m.signal) for m in rows] if game.n_players == 4 else None)
            match = None
            if game.match_id is not None:
                target = session.scalar(select(MatchRow.target).where(MatchRow.id == game.match_id))
                match = MatchDeal(int(target or 0), game.match_id, game.match_deal or 1,
                                  (game.match_before0 or 0, game.match_before1 or 0))
            saved.append(SavedGame(game.id, game.table_id, game.variant, game.opponent, game.bot_level,
                                   game.deal_number, game.first_leader, list(game.deck),
                                   tuple(players), moves, match, ended=game.status == "finished",
                                   options=game.options, extras=extras))
        return saved

    def health(self) -> dict[str, Any]:
        """Return the writer's figures."""
        return self.writer.health()


def _lock_timeout(session: Session) -> None:
    """Make this transaction give up on a row locked elsewhere after SETTLE_LOCK_TIMEOUT_MS (PostgreSQL)."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text(f"SET LOCAL lock_timeout = {SETTLE_LOCK_TIMEOUT_MS}"))


def _four(players: tuple[int, ...]) -> dict[str, Any]:
    """Return the four-player columns of a ``games`` or ``matches`` row (none for two players)."""
    if len(players) != 4:
        return {}
    return {"n_players": 4, "player2_id": players[2], "player3_id": players[3]}


def _finish(session: Session, end: GameEnd) -> None:
    repos.finish_game(session=session, game_id=end.game_id, points=end.points, winner=end.winner,
                      reason=end.reason, moves=end.moves, declared=end.declared)
    if end.match is not None:
        _finish_match(session, end.match)
    if end.analyse:  # queued once (one statement: no look first)
        upsert = pg_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert
        session.execute(upsert(Analysis).values(game_id=end.game_id, status="queued", attempts=0,
                                                requested_at=datetime.now(UTC))
                        .on_conflict_do_nothing(index_elements=[Analysis.game_id]))


def _finish_match(session: Session, end: MatchEnd) -> None:
    repos.update_match(session=session, match_id=end.match_id, scores=end.scores, deals=end.deals,
                       winner=end.winner, reason=end.reason)
