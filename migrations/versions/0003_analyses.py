"""post-game analyses: one row per game, per-move figures, a named view, read-only grants

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-25 00:45:00
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None

READONLY_ROLE = "treset_readonly"
# 0002 grants nothing by default on purpose: each new table is granted here explicitly.
READABLE = ("analyses", "move_analyses", "move_analyses_named")


def _view(dialect: str) -> str:
    """Return the CREATE VIEW of the per-move figures with card names and the mover's name."""
    if dialect == "postgresql":
        def one(expr: str) -> str:
            return f"card_name({expr})"
    else:
        def one(expr: str) -> str:
            return f"(SELECT name FROM cards WHERE code = {expr})"
    return f"""CREATE VIEW move_analyses_named AS
SELECT a.game_id, a.move_number, m.trick_number, m.variant, u.username, a.seat, {one('m.card')} AS card,
  {one('a.best_card')} AS best_card, a.loss, a.label, a.kind, a.known, a.value, a.best_value, a.win, a.best_win,
  an.version
FROM move_analyses a
JOIN analyses an ON an.game_id = a.game_id
JOIN moves m ON m.game_id = a.game_id AND m.move_number = a.move_number
JOIN users u ON u.id = m.user_id"""


def upgrade() -> None:
    op.create_table('analyses',
        sa.Column('game_id', sa.Integer(), autoincrement=False, nullable=False),
        sa.Column('status', sa.String(length=16), nullable=False),
        sa.Column('version', sa.String(length=64), nullable=True),
        sa.Column('result', sa.JSON(), nullable=True),
        sa.Column('error', sa.String(length=500), nullable=True),
        sa.Column('attempts', sa.Integer(), server_default='0', nullable=False),
        sa.Column('accuracy0', sa.Float(), nullable=True),
        sa.Column('accuracy1', sa.Float(), nullable=True),
        sa.Column('requested_at', sa.DateTime(timezone=True), server_default=sa.text('(CURRENT_TIMESTAMP)'),
                  nullable=False),
        sa.Column('started_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('finished_at', sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(['game_id'], ['games.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('game_id'))
    op.create_index('ix_analyses_status_requested', 'analyses', ['status', 'requested_at'], unique=False)
    op.create_table('move_analyses',
        sa.Column('game_id', sa.Integer(), autoincrement=False, nullable=False),
        sa.Column('move_number', sa.Integer(), autoincrement=False, nullable=False),
        sa.Column('seat', sa.Integer(), nullable=False),
        sa.Column('known', sa.Boolean(), nullable=False),
        sa.Column('best_card', sa.Integer(), nullable=False),
        sa.Column('value', sa.Float(), nullable=False),
        sa.Column('best_value', sa.Float(), nullable=False),
        sa.Column('loss', sa.Float(), nullable=False),
        sa.Column('win', sa.Float(), nullable=True),
        sa.Column('best_win', sa.Float(), nullable=True),
        sa.Column('label', sa.String(length=16), nullable=False),
        sa.Column('kind', sa.String(length=16), nullable=True),
        sa.ForeignKeyConstraint(['game_id'], ['analyses.game_id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('game_id', 'move_number'))
    dialect = op.get_bind().dialect.name
    op.execute(_view(dialect))
    if dialect == "postgresql":
        # The role exists unless 0002 was not allowed to create it (then there is nothing to grant).
        op.execute(f"""DO $$ BEGIN
  IF EXISTS (SELECT FROM pg_roles WHERE rolname = '{READONLY_ROLE}') THEN
    GRANT SELECT ON {", ".join(READABLE)} TO {READONLY_ROLE};
  END IF;
EXCEPTION
  WHEN insufficient_privilege THEN RAISE NOTICE 'may not grant to {READONLY_ROLE}: skipped';
END $$;""")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(f"""DO $$ BEGIN
  IF EXISTS (SELECT FROM pg_roles WHERE rolname = '{READONLY_ROLE}') THEN
    REVOKE ALL ON {", ".join(READABLE)} FROM {READONLY_ROLE};
  END IF;
END $$;""")
    op.execute("DROP VIEW move_analyses_named")
    op.drop_table('move_analyses')
    op.drop_index('ix_analyses_status_requested', table_name='analyses')
    op.drop_table('analyses')
