"""matches: deals added up to 11, 21 or 31; each deal's game row linked to its match

- ``matches``: one row a match (its table, variant, target, players, running totals, how many
  deals, and how it ended). A match is one rated game: ratings move once, when it ends.
- ``games.match_id``, ``games.match_deal`` (1, 2, ... inside the match) and
  ``games.match_before0`` / ``match_before1`` (the match's totals before the deal); NULL for a
  single deal.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-25 14:10:00
"""
from __future__ import annotations

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
        sa.Column("started_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
    )
    # Plain ALTER TABLE: a batch copy of ``games`` would trip over the views that read it (SQLite).
    op.execute("ALTER TABLE games ADD COLUMN match_id INTEGER REFERENCES matches (id)")
    op.execute("ALTER TABLE games ADD COLUMN match_deal INTEGER")
    op.execute("ALTER TABLE games ADD COLUMN match_before0 INTEGER")
    op.execute("ALTER TABLE games ADD COLUMN match_before1 INTEGER")
    op.create_index("ix_games_match_id", "games", ["match_id"])


def downgrade() -> None:
    op.drop_index("ix_games_match_id", "games")
    for column in ("match_before1", "match_before0", "match_deal", "match_id"):
        op.execute(f"ALTER TABLE games DROP COLUMN {column}")
    op.drop_table("matches")
