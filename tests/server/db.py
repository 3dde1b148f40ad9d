"""Direct database access for server tests: a session on a test database, and an admin's token."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import create_engine, func, select
from sqlalchemy.orm import Session

from server.store import repos
from server.store.models import Game, Move


@contextmanager
def db_session(url: str) -> Iterator[Session]:
    """Yield a session on the database at ``url`` (its engine is disposed of afterwards)."""
    engine = create_engine(url)
    try:
        with Session(engine) as session:
            yield session
    finally:
        engine.dispose()


def admin_token(url: str) -> str:
    """Create an admin account with a fresh name in the database at ``url``; return its session token."""
    with db_session(url) as session:
        _, token = repos.create_admin(session=session, username=f"admin-{uuid.uuid4().hex[:6]}", password="secret1")
        session.commit()
    return token


def assert_one_deal_stored(url: str) -> None:
    """The database at ``url`` holds one game, finished by play, with its 40 moves numbered 0-39 once each."""
    with db_session(url) as s:
        game = s.scalars(select(Game)).one()
        assert game.status == "finished" and game.end_reason == "finished"
        numbers = list(s.scalars(select(Move.move_number).where(Move.game_id == game.id).order_by(Move.move_number)))
        assert numbers == list(range(40))  # none lost, none doubled
        assert s.scalar(select(func.count()).select_from(Move)) == 40
