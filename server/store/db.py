"""Engine and sessions, and running the migrations."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker

ROOT = Path(__file__).resolve().parents[2]


def private_sqlite_file(url: str) -> None:
    """Create an SQLite database's folder (0700) and file (0600) if missing, and make the file private.

    The file holds password and token hashes: no other local user may read it. SQLite gives its
    ``-wal`` and ``-shm`` files the database file's mode.
    """
    path = url.split("///", 1)[-1]
    if not url.startswith("sqlite") or not path or path == ":memory:" or path.startswith("file:"):
        return
    file = Path(path)
    if not file.parent.exists():
        file.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.close(os.open(file, os.O_CREAT | os.O_WRONLY, 0o600))
    os.chmod(file, 0o600)


def make_engine(url: str) -> Engine:
    """Return an engine for ``url`` (SQLite gets its folder and private file created, and foreign keys on)."""
    if url.startswith("sqlite"):
        private_sqlite_file(url)
        engine = create_engine(url, connect_args={"check_same_thread": False})

        @event.listens_for(engine, "connect")
        def _fk_on(conn, _record):  # type: ignore[no-untyped-def]
            conn.execute("PRAGMA foreign_keys=ON")
            conn.execute("PRAGMA journal_mode=WAL")

        return engine
    return create_engine(url, pool_size=10, max_overflow=20, pool_pre_ping=True)


@lru_cache
def engine_for(url: str) -> Engine:
    """Return the shared engine for ``url``."""
    return make_engine(url)


def session_factory(url: str) -> sessionmaker[Session]:
    """Return a session factory bound to ``url``'s engine."""
    return sessionmaker(engine_for(url), expire_on_commit=False)


@lru_cache
def writer_sessions(url: str) -> sessionmaker[Session]:
    """Return the session factory of the writer threads (:class:`server.store.writer.MoveWriter`).

    On PostgreSQL its own small pool, without the ping before each checkout: the writer takes a
    connection for every group it commits, and the ping was a third of its time, one more round trip
    in every card's latency (issue #42). A connection the database dropped fails its group instead;
    SQLAlchemy then discards the pool's connections, and the writer retries each write alone on
    fresh ones.
    """
    if url.startswith("sqlite"):
        return session_factory(url)  # one file, one engine: the writer is its only writer anyway
    return sessionmaker(create_engine(url, pool_size=2, max_overflow=4), expire_on_commit=False)


def alembic_config(url: str) -> Config:
    """Return an Alembic configuration for ``url``."""
    cfg = Config(str(ROOT / "alembic.ini"))
    cfg.set_main_option("script_location", str(ROOT / "migrations"))
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def upgrade(url: str) -> None:
    """Run every migration up to head on ``url``."""
    private_sqlite_file(url)
    command.upgrade(alembic_config(url), "head")
