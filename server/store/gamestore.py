"""The game service's store on the database: every write goes through the move writer (group commit)."""

from __future__ import annotations

from collections.abc import Callable, Collection
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.orm import Session

from server.game.records import GameEnd, NewGame, Player, SavedGame
from server.store import repos
from server.store.models import Analysis, Game, Move, User
from server.store.writer import MoveWriter


class SqlGameStore:
    """A :class:`server.game.records.GameStore` on SQLAlchemy: writes through ``writer``, reads through ``sessions``."""

    def __init__(self, sessions: Callable[[], Session], writer: MoveWriter) -> None:
        """Store through ``writer``; ``sessions`` serves the restore at start."""
        self.sessions = sessions
        self.writer = writer

    async def bot_account(self, username: str) -> Player:
        """Return the bot account ``username``, creating it if missing."""
        def work(session: Session) -> Player:
            user = repos.ensure_user(session=session, username=username, role="bot")
            return Player(user.id, user.username, user.role)
        return await self.writer.run(work)

    async def start_game(self, game: NewGame) -> int:
        """Insert the deal's ``games`` row; return its id."""
        def work(session: Session) -> int:
            row = repos.create_game(session=session, game=Game(
                table_id=game.table_id, deal_number=game.deal_number, variant=game.variant,
                opponent=game.opponent, player0_id=game.players[0], player1_id=game.players[1],
                bot_level=game.bot_level, first_leader=game.first_leader, deck=list(game.deck), status="playing"))
            return int(row.id)
        return await self.writer.run(work)

    async def record_move(self, move: dict[str, Any], end: GameEnd | None) -> None:
        """Insert one move (and the deal's end) in the writer's next group."""
        if end is None:
            await self.writer.insert(Move, move)
            return

        def work(session: Session) -> None:
            repos.add_move(session=session, move=Move(**move))
            if end is not None:
                _finish(session, end)
        await self.writer.run(work)

    async def end_game(self, end: GameEnd) -> None:
        """Record a forfeit."""
        await self.writer.run(lambda session: _finish(session, end))

    def unfinished_games(self, table_ids: Collection[str] | None = None) -> list[SavedGame]:
        """Return every deal still being played (at ``table_ids`` only, if given), with its moves."""
        saved = []
        with self.sessions() as session:
            for game in repos.unfinished_games(session=session, table_ids=table_ids):
                users = [session.get(User, uid) for uid in (game.player0_id, game.player1_id)]
                players = [Player(u.id, u.username, u.role) for u in users if u is not None]
                assert len(players) == 2
                moves = [(m.seat, m.card) for m in repos.moves_of(session=session, game_id=game.id)]
                saved.append(SavedGame(game.id, game.table_id, game.variant, game.opponent, game.bot_level,
                                       game.deal_number, game.first_leader, list(game.deck),
                                       (players[0], players[1]), moves))
        return saved

    def health(self) -> dict[str, Any]:
        """Return the writer's figures."""
        return self.writer.health()


def _finish(session: Session, end: GameEnd) -> None:
    repos.finish_game(session=session, game_id=end.game_id, points=end.points, winner=end.winner,
                      reason=end.reason, variant=end.variant, players=end.players)
    if end.analyse and session.get(Analysis, end.game_id) is None:
        session.add(Analysis(game_id=end.game_id, status="queued", attempts=0, requested_at=datetime.now(UTC)))
