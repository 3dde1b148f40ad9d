"""ratings, query indexes, the cards table, card-name views and a read-only SQL role

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-23 09:10:00
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from tressette.cards import ALL_CARDS, POINTS, RANKS, STRENGTH, SUITS, card_name

revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None

READONLY_ROLE = "treset_readonly"
# What the read-only role may read: everything but tokens and password hashes. A later
# migration that adds a table grants it here explicitly (no default privileges, on purpose).
READABLE = ("games", "moves", "user_totals", "cards", "moves_named", "games_named")
USER_COLUMNS = "id, username, role, created_at"

_CARD_LISTS = ("hand", "opponent_known", "table_cards", "won_self", "won_opponent")


def _views(dialect: str) -> tuple[str, str]:
    """Return the CREATE VIEW statements for moves and games with card names, per dialect."""
    if dialect == "postgresql":
        def names(expr: str) -> str:
            return f"card_names({expr})"

        def one(expr: str) -> str:
            return f"card_name({expr})"
    else:  # SQLite: a comma-separated string (it has no arrays)
        def names(expr: str) -> str:
            return f"(SELECT group_concat(c.name, ', ') FROM json_each({expr}) e JOIN cards c ON c.code = e.value)"

        def one(expr: str) -> str:
            return f"(SELECT name FROM cards WHERE code = {expr})"
    lists = ",\n  ".join(f"{names('m.' + col)} AS {col}" for col in _CARD_LISTS)
    moves = f"""CREATE VIEW moves_named AS
SELECT m.id, m.game_id, m.move_number, m.trick_number, m.variant, u.username, m.user_id, m.seat,
  {lists},
  {one('m.card')} AS card, {one('m.first_card')} AS first_card, m.score,
  (g.winner_seat = m.seat) AS mover_won, m.created_at
FROM moves m JOIN games g ON g.id = m.game_id JOIN users u ON u.id = m.user_id"""
    games = f"""CREATE VIEW games_named AS
SELECT g.id, g.table_id, g.deal_number, g.variant, g.opponent, g.bot_level, g.status,
  u0.username AS player0, u1.username AS player1, g.first_leader, {names('g.deck')} AS deck,
  g.points0, g.points1, g.winner_seat,
  CASE g.winner_seat WHEN 0 THEN u0.username WHEN 1 THEN u1.username END AS winner,
  g.end_reason, g.started_at, g.ended_at
FROM games g JOIN users u0 ON u0.id = g.player0_id JOIN users u1 ON u1.id = g.player1_id"""
    return moves, games


_NAMES_ARRAY = "ARRAY[" + ", ".join(f"'{card_name(c)}'" for c in ALL_CARDS) + "]"
# A constant array rather than a join with ``cards``, and the JSON text read as an integer
# array rather than parsed as JSON: the views call these for every row (2.5x faster).
_PG_FUNCTIONS = f"""
CREATE FUNCTION card_name(code integer) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT ({_NAMES_ARRAY})[code + 1] $$;
CREATE FUNCTION card_names(codes json) RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT ARRAY(SELECT ({_NAMES_ARRAY})[u.code + 1]
                FROM unnest(('{{' || btrim(codes::text, '[] ') || '}}')::integer[]) WITH ORDINALITY AS u(code, ord)
                ORDER BY u.ord) $$;
"""

# Roles belong to the whole cluster: create it once, tolerate a concurrent creator, and
# skip (with a notice) where the migrating user may not create roles (managed databases).
_PG_ROLE = f"""
DO $$
BEGIN
  BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{READONLY_ROLE}') THEN
      CREATE ROLE {READONLY_ROLE} NOLOGIN;
    END IF;
  EXCEPTION WHEN duplicate_object THEN NULL;  -- another database's migration made it meanwhile
  END;
  EXECUTE format('GRANT CONNECT ON DATABASE %I TO {READONLY_ROLE}', current_database());
  GRANT USAGE ON SCHEMA public TO {READONLY_ROLE};
  GRANT SELECT ON {", ".join(READABLE)} TO {READONLY_ROLE};
  GRANT SELECT ({USER_COLUMNS}) ON users TO {READONLY_ROLE};
  GRANT EXECUTE ON FUNCTION card_name(integer), card_names(json) TO {READONLY_ROLE};
EXCEPTION
  WHEN insufficient_privilege THEN RAISE NOTICE 'may not create role {READONLY_ROLE}: skipped';
END $$;
"""


def upgrade() -> None:
    with op.batch_alter_table('user_totals', schema=None) as batch_op:
        batch_op.add_column(sa.Column('rating', sa.Float(), server_default='1500', nullable=False))
        batch_op.add_column(sa.Column('rating_rd', sa.Float(), server_default='350', nullable=False))
        batch_op.add_column(sa.Column('rating_volatility', sa.Float(), server_default='0.06', nullable=False))
        batch_op.create_index('ix_user_totals_variant_rating', ['variant', 'rating'], unique=False)
        batch_op.create_index('ix_user_totals_variant_games', ['variant', 'games'], unique=False)
    with op.batch_alter_table('games', schema=None) as batch_op:
        batch_op.create_index('ix_games_variant_ended', ['variant', 'ended_at'], unique=False)
    with op.batch_alter_table('moves', schema=None) as batch_op:
        batch_op.create_index('ix_moves_created_at', ['created_at'], unique=False)

    cards = op.create_table('cards',
        sa.Column('code', sa.Integer(), autoincrement=False, nullable=False),
        sa.Column('name', sa.String(length=16), nullable=False),
        sa.Column('suit', sa.String(length=1), nullable=False),
        sa.Column('rank', sa.String(length=8), nullable=False),
        sa.Column('points', sa.Integer(), nullable=False),
        sa.Column('strength', sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint('code'))
    op.bulk_insert(cards, [
        {"code": c, "name": card_name(c), "suit": SUITS[c // 10], "rank": RANKS[c % 10],
         "points": POINTS[c], "strength": STRENGTH[c]} for c in ALL_CARDS])

    dialect = op.get_bind().dialect.name
    if dialect == "postgresql":
        op.execute(_PG_FUNCTIONS)
    for statement in _views(dialect):
        op.execute(statement)
    if dialect == "postgresql":
        op.execute(_PG_ROLE)


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "postgresql":
        # The role may serve other databases of the cluster: only this database's grants go.
        op.execute(f"""DO $$ BEGIN
  IF EXISTS (SELECT FROM pg_roles WHERE rolname = '{READONLY_ROLE}') THEN
    REVOKE ALL ON {", ".join(READABLE)}, users FROM {READONLY_ROLE};
    EXECUTE format('REVOKE CONNECT ON DATABASE %I FROM {READONLY_ROLE}', current_database());
  END IF;
END $$;""")
    op.execute("DROP VIEW games_named")
    op.execute("DROP VIEW moves_named")
    if dialect == "postgresql":
        op.execute("DROP FUNCTION card_names(json)")
        op.execute("DROP FUNCTION card_name(integer)")
    op.drop_table('cards')
    with op.batch_alter_table('moves', schema=None) as batch_op:
        batch_op.drop_index('ix_moves_created_at')
    with op.batch_alter_table('games', schema=None) as batch_op:
        batch_op.drop_index('ix_games_variant_ended')
    with op.batch_alter_table('user_totals', schema=None) as batch_op:
        batch_op.drop_index('ix_user_totals_variant_games')
        batch_op.drop_index('ix_user_totals_variant_rating')
        batch_op.drop_column('rating_volatility')
        batch_op.drop_column('rating_rd')
        batch_op.drop_column('rating')
