"""fenced table ownership: a fence per table, an end stored with its move count, totals applied apart

- ``table_fences``: per table, the fencing token of its current owner. A process that takes a
  table (at start, or from a process that stopped renewing its lease) raises the token; every
  write for the table checks it in the same transaction, so a process that was paused past its
  lease cannot store anything for a table another process serves now (server/store/writer.py).
- ``games.moves_at_end``: how many moves the deal's end was computed from; a trigger refuses any
  move numbered from there on, so no move is ever stored after its deal's end.
- ``games.totals_pending``: the end is stored; the players' totals and ratings are still to be
  added (in their own transaction, so a locked ``user_totals`` row never holds up the move writer).

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-25 11:30:00
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None

_PG_TRIGGER = """
CREATE FUNCTION moves_before_end() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM games g WHERE g.id = NEW.game_id
             AND g.moves_at_end IS NOT NULL AND NEW.move_number >= g.moves_at_end) THEN
    RAISE EXCEPTION 'game % ended after % moves: move % is refused', NEW.game_id,
      (SELECT moves_at_end FROM games WHERE id = NEW.game_id), NEW.move_number
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER moves_before_end BEFORE INSERT ON moves FOR EACH ROW EXECUTE FUNCTION moves_before_end();
"""
_SQLITE_TRIGGER = """
CREATE TRIGGER moves_before_end BEFORE INSERT ON moves
WHEN EXISTS (SELECT 1 FROM games g WHERE g.id = NEW.game_id
             AND g.moves_at_end IS NOT NULL AND NEW.move_number >= g.moves_at_end)
BEGIN SELECT RAISE(ABORT, 'the game has ended: no move may follow its end'); END;
"""


def upgrade() -> None:
    op.create_table(
        "table_fences",
        sa.Column("table_id", sa.String(16), primary_key=True),
        sa.Column("fence", sa.Integer, nullable=False),
    )
    op.add_column("games", sa.Column("moves_at_end", sa.Integer, nullable=True))
    op.add_column("games", sa.Column("totals_pending", sa.Boolean, nullable=False, server_default=sa.false()))
    # The games that ended already: their end is fenced too.
    op.execute("UPDATE games SET moves_at_end = (SELECT count(*) FROM moves m WHERE m.game_id = games.id) "
               "WHERE status = 'finished'")
    op.create_index("ix_games_totals_pending", "games", ["id"],
                    postgresql_where=sa.text("totals_pending"), sqlite_where=sa.text("totals_pending"))
    dialect = op.get_bind().dialect.name
    op.execute(_PG_TRIGGER if dialect == "postgresql" else _SQLITE_TRIGGER)


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "postgresql":
        op.execute("DROP TRIGGER moves_before_end ON moves")
        op.execute("DROP FUNCTION moves_before_end()")
    else:
        op.execute("DROP TRIGGER moves_before_end")
    op.drop_index("ix_games_totals_pending", "games")
    # Plain ALTER TABLE on both: a batch copy of ``games`` would trip over the views that read it (SQLite).
    op.execute("ALTER TABLE games DROP COLUMN totals_pending")
    op.execute("ALTER TABLE games DROP COLUMN moves_at_end")
    op.drop_table("table_fences")
