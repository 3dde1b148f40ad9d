"""puzzles: endgame positions with one winning card, found in the move log; players' puzzle ratings

- ``puzzles``: one row per distinct position (``position_key``), from a game (``game_id``,
  ``move_number``: the position before that move; ``seat``: the player to move there). ``data``
  is the puzzle as served and checked (docs/protocol.md, "Puzzles": hands, the card in play,
  points so far, the solution line, the cards accepted at each step, the refutations); its
  features (``depth``, ``legal``, ``missed``, ``after_mistake``) seed the rating; ``themes``
  lists theme keys. Glicko-2 rating per puzzle; ``attempts``/``solved`` count the tries.
- ``puzzle_attempts``: a puzzle served to a user (one row a user and puzzle): answered once.
- ``puzzle_ratings``: a user's puzzle rating (Glicko-2).
- ``puzzle_scans``: which games have been searched for puzzles (and by which finder version).
- ``finished_puzzles``: the read-only role's view: puzzles from finished games only.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-25 14:20:00
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None

READONLY_ROLE = "treset_readonly"
_VIEW = """CREATE VIEW finished_puzzles{barrier} AS
SELECT p.id, p.variant, p.game_id, p.move_number, p.seat, p.data, p.themes, p.depth, p.legal, p.missed,
       p.after_mistake, p.rating, p.rating_rd, p.attempts, p.solved, p.created_at
FROM puzzles p JOIN games g ON g.id = p.game_id
WHERE g.status = 'finished'"""


def upgrade() -> None:
    op.create_table(
        "puzzles",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("position_key", sa.String(64), nullable=False, unique=True),
        sa.Column("variant", sa.String(16), nullable=False),
        sa.Column("game_id", sa.Integer, sa.ForeignKey("games.id", ondelete="CASCADE"), nullable=False, index=True),
        sa.Column("move_number", sa.Integer, nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("data", sa.JSON, nullable=False),
        sa.Column("themes", sa.JSON, nullable=False),
        sa.Column("depth", sa.Integer, nullable=False),
        sa.Column("legal", sa.Integer, nullable=False),
        sa.Column("missed", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("after_mistake", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("rating", sa.Float, nullable=False, server_default="1500"),
        sa.Column("rating_rd", sa.Float, nullable=False, server_default="350"),
        sa.Column("rating_volatility", sa.Float, nullable=False, server_default="0.06"),
        sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
        sa.Column("solved", sa.Integer, nullable=False, server_default="0"),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False),
    )
    op.create_index("ix_puzzles_variant_rating", "puzzles", ["variant", "rating"])
    op.create_table(
        "puzzle_attempts",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("puzzle_id", sa.Integer, sa.ForeignKey("puzzles.id", ondelete="CASCADE"), nullable=False),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False, index=True),
        sa.Column("served_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False),
        sa.Column("answered_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("solved", sa.Boolean, nullable=True),
        sa.Column("cards", sa.JSON, nullable=True),
        sa.Column("rating_before", sa.Float, nullable=True),
        sa.Column("rating_after", sa.Float, nullable=True),
        sa.UniqueConstraint("puzzle_id", "user_id", name="uq_puzzle_attempts_puzzle_user"),
    )
    op.create_table(
        "puzzle_ratings",
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("rating", sa.Float, nullable=False, server_default="1500"),
        sa.Column("rating_rd", sa.Float, nullable=False, server_default="350"),
        sa.Column("rating_volatility", sa.Float, nullable=False, server_default="0.06"),
        sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
        sa.Column("solved", sa.Integer, nullable=False, server_default="0"),
    )
    op.create_table(
        "puzzle_scans",
        sa.Column("game_id", sa.Integer, sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("version", sa.String(32), nullable=False),
        sa.Column("found", sa.Integer, nullable=False, server_default="0"),
        sa.Column("scanned_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False),
    )
    dialect = op.get_bind().dialect.name
    op.execute(_VIEW.format(barrier=" WITH (security_barrier = true)" if dialect == "postgresql" else ""))
    if dialect == "postgresql":
        op.execute(f"""DO $$ BEGIN
  IF EXISTS (SELECT FROM pg_roles WHERE rolname = '{READONLY_ROLE}') THEN
    GRANT SELECT ON finished_puzzles TO {READONLY_ROLE};
  END IF;
EXCEPTION
  WHEN insufficient_privilege THEN RAISE NOTICE 'may not grant to {READONLY_ROLE}: skipped';
END $$;""")


def downgrade() -> None:
    op.execute("DROP VIEW finished_puzzles")
    op.drop_table("puzzle_scans")
    op.drop_table("puzzle_ratings")
    op.drop_table("puzzle_attempts")
    op.drop_index("ix_puzzles_variant_rating", "puzzles")
    op.drop_table("puzzles")
