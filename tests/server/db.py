"""Direct database access for server tests: a session on a test database, and an admin's token."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import create_engine
from sqlalchemy.orm import Session

from server.store import repos


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
