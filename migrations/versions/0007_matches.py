"""matches: deals added up to 11, 21 or 31; each deal's game row linked to its match

- ``matches``: one row a match (its table, variant, target, players, running totals, how many
  deals, and how it ended). A match is one rated game: ratings move once, when it ends.
- ``games.match_id``, ``games.match_deal`` (1, 2, ... inside the match) and
  ``games.match_before0`` / ``match_before1`` (the match's totals before the deal); NULL for a
  single deal.
- ``matches.rating_pending``: the match has ended, its rating update is still to be made (once,
  by the settler, like a deal's totals).
- Views: ``finished_games``, ``games_named`` and ``moves_named`` gain the match columns
  (``moves_named``: ``match_score`` and ``match_opponent_score``, the mover's and the other's match
  totals before the deal); ``finished_matches``: the finished matches, for the read-only role.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-25 14:10:00
"""
from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import sqlalchemy as sa
from alembic import op

revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "matches",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("table_id", sa.String(16), nullable=False, index=True),
        sa.Column("variant", sa.String(16), nullable=False),
        sa.Column("target", sa.Integer, nullable=False),
        sa.Column("opponent", sa.String(16), nullable=False),
        sa.Column("bot_level", sa.String(16), nullable=True),
        sa.Column("player0_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False, index=True),
        sa.Column("player1_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False, index=True),
        sa.Column("status", sa.String(16), nullable=False, server_default="playing"),
        sa.Column("score0", sa.Integer, nullable=False, server_default="0"),
        sa.Column("score1", sa.Integer, nullable=False, server_default="0"),
        sa.Column("deals", sa.Integer, nullable=False, server_default="0"),
        sa.Column("winner_seat", sa.Integer, nullable=True),
        sa.Column("end_reason", sa.String(16), nullable=True),
        sa.Column("rating_pending", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("started_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
    )
    # Plain ALTER TABLE: a batch copy of ``games`` would trip over the views that read it (SQLite).
    op.execute("ALTER TABLE games ADD COLUMN match_id INTEGER REFERENCES matches (id)")
    op.execute("ALTER TABLE games ADD COLUMN match_deal INTEGER")
    op.execute("ALTER TABLE games ADD COLUMN match_before0 INTEGER")
    op.execute("ALTER TABLE games ADD COLUMN match_before1 INTEGER")
    op.create_index("ix_games_match_id", "games", ["match_id"])
    _rebuild_views(with_matches=True)


def downgrade() -> None:
    _rebuild_views(with_matches=False)
    op.drop_index("ix_games_match_id", "games")
    for column in ("match_before1", "match_before0", "match_deal", "match_id"):
        op.execute(f"ALTER TABLE games DROP COLUMN {column}")
    op.drop_table("matches")


REBUILT = ("moves_named", "games_named", "finished_games")
_GAME_COLUMNS = "g.end_reason, g.started_at, g.ended_at\nFROM games g"
_MOVE_COLUMNS = " AS margin\nFROM moves m"


def _revision(filename: str) -> ModuleType:
    """Load an earlier revision's module (migration files are not a package) to rebuild its views."""
    spec = importlib.util.spec_from_file_location(f"_treset_{filename[:4]}", Path(__file__).with_name(filename))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _rebuild_views(*, with_matches: bool) -> None:
    """Drop and make again the views that list the games' columns (revision 0004's, plus the match columns)."""
    dialect = op.get_bind().dialect.name
    base = _revision("0004_finished_views.py")
    if not with_matches:
        op.execute("DROP VIEW finished_matches")
    for name in REBUILT:
        op.execute(f"DROP VIEW {name}")
    for statement in base._views(dialect):
        name = statement.split()[2]
        if name not in REBUILT:
            continue
        if with_matches and name == "games_named":
            assert _GAME_COLUMNS in statement
            statement = statement.replace(_GAME_COLUMNS, "g.end_reason, g.started_at, g.ended_at, g.match_id, "
                                          "g.match_deal, g.match_before0, g.match_before1\nFROM games g")
        elif with_matches and name == "moves_named":
            assert _MOVE_COLUMNS in statement
            statement = statement.replace(_MOVE_COLUMNS, " AS margin, g.match_id, g.match_deal,\n  "
                                          "CASE m.seat WHEN 0 THEN g.match_before0 ELSE g.match_before1 END "
                                          "AS match_score,\n  CASE m.seat WHEN 0 THEN g.match_before1 "
                                          "ELSE g.match_before0 END AS match_opponent_score\nFROM moves m")
        op.execute(statement)
    if with_matches:
        op.execute(base._view("finished_matches", dialect) + "SELECT * FROM matches WHERE status = 'finished'")
    if dialect == "postgresql":
        readable = (*REBUILT, "finished_matches") if with_matches else REBUILT
        op.execute(base._grants(readable, ("matches",)) if with_matches else base._grants(readable, ("games",)))
