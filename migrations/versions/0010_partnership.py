"""four-player partnership deals: four players a game, declarations and signals a move, leavers

A four-player deal is stored like any other (docs/protocol-four.md): one ``games`` row a deal, one
``moves`` row a card, linked to its ``matches`` row. Its ``variant`` is ``partnership`` (also the
totals' and ratings' key), ``n_players`` is 4.

- ``games``: ``n_players`` (2 or 4), ``player2_id``/``player3_id`` (seats 2 and 3; seats 0 and 2
  play against 1 and 3), ``options`` (``{"declarations", "signals"}``), ``declared0``/``declared1``
  (whole points each partnership declared). At a four-player deal ``points0``/``points1`` are the
  partnerships' whole card points and ``winner_seat`` the winning **partnership** (NULL: drawn).
  ``unrated``: a person left the deal (a bot took the seat): it moves no rating but the leaver's.
- ``matches``: the same ``n_players``, ``player2_id``, ``player3_id``, ``unrated``.
- ``moves``: ``declarations`` (JSON list, as the rules' JSON) and ``signal`` (busso, volo,
  striscio) that went with the card. A four-player move's ``won_self``/``won_opponent`` are the
  cards taken by the mover's partnership and the other, ``score`` the partnership's thirds.
- ``partnership_leavers``: who left which four-player deal (the leaver's rated loss, once).
- Views: ``finished_games``, ``finished_moves``, ``finished_matches`` read the new columns;
  ``partnership_moves_named`` is a four-player move with the mover's seat, partner and
  partnership, the partnership's points, declarations and signal, finished deals only (the
  read-only role reads it, not the raw tables).

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-27 07:00:00
"""
from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import sqlalchemy as sa
from alembic import op

revision = '0010'
down_revision = '0009'
branch_labels = None
depends_on = None

_GAME_COLUMNS = (
    "n_players INTEGER NOT NULL DEFAULT 2",
    "player2_id INTEGER REFERENCES users (id)",
    "player3_id INTEGER REFERENCES users (id)",
    "options JSON",
    "declared0 INTEGER",
    "declared1 INTEGER",
    "unrated BOOLEAN NOT NULL DEFAULT false",
)
_MATCH_COLUMNS = (
    "n_players INTEGER NOT NULL DEFAULT 2",
    "player2_id INTEGER REFERENCES users (id)",
    "player3_id INTEGER REFERENCES users (id)",
    "unrated BOOLEAN NOT NULL DEFAULT false",
)
_MOVE_COLUMNS = ("declarations JSON", "signal VARCHAR(16)")
FINISHED = ("finished_games", "finished_moves", "finished_matches")


def _revision(filename: str) -> ModuleType:
    """Load an earlier revision's module (migration files are not a package) for its view helpers."""
    spec = importlib.util.spec_from_file_location(f"_treset_{filename[:4]}", Path(__file__).with_name(filename))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _finished(dialect: str) -> list[str]:
    """Return the finished-only views of whole rows (``*`` is expanded when a view is made: made again)."""
    base = _revision("0004_finished_views.py")
    return [
        base._view("finished_games", dialect) + "SELECT g.* FROM games g WHERE g.status = 'finished'",
        base._view("finished_moves", dialect) + "SELECT m.* FROM moves m JOIN games g ON g.id = m.game_id "
                                                "WHERE g.status = 'finished'",
        base._view("finished_matches", dialect) + "SELECT * FROM matches WHERE status = 'finished'",
    ]


def _partnership_moves(dialect: str) -> str:
    """Return the view of four-player moves with their seats, partnerships, declarations and signals."""
    base = _revision("0004_finished_views.py")
    if dialect == "postgresql":
        def names(expr: str) -> str:
            return f"card_names({expr})"

        def one(expr: str) -> str:
            return f"card_name({expr})"
    else:
        def names(expr: str) -> str:
            return f"(SELECT group_concat(c.name, ', ') FROM json_each({expr}) e JOIN cards c ON c.code = e.value)"

        def one(expr: str) -> str:
            return f"(SELECT name FROM cards WHERE code = {expr})"

    def player(seat_expr: str) -> str:
        return (f"CASE {seat_expr} WHEN 0 THEN g.player0_id WHEN 1 THEN g.player1_id "
                f"WHEN 2 THEN g.player2_id ELSE g.player3_id END")

    own = "CASE m.seat % 2 WHEN 0 THEN g.points0 ELSE g.points1 END"
    theirs = "CASE m.seat % 2 WHEN 0 THEN g.points1 ELSE g.points0 END"
    own_declared = "CASE m.seat % 2 WHEN 0 THEN g.declared0 ELSE g.declared1 END"
    theirs_declared = "CASE m.seat % 2 WHEN 0 THEN g.declared1 ELSE g.declared0 END"
    return base._view("partnership_moves_named", dialect) + f"""SELECT m.id, m.game_id, m.move_number,
  m.trick_number, u.username, m.user_id, m.seat, m.seat % 2 AS partnership,
  p.username AS partner, p.id AS partner_id,
  {names('m.hand')} AS hand, {names('m.table_cards')} AS table_cards,
  {names('m.won_self')} AS won_partnership, {names('m.won_opponent')} AS won_opponents,
  {one('m.card')} AS card, {one('m.first_card')} AS first_card, m.score AS partnership_thirds,
  m.declarations, m.signal, m.created_at,
  g.deal_number, g.first_leader, g.options, g.end_reason, g.unrated,
  {own} AS final_score, {theirs} AS final_opponent_score, {own_declared} AS declared,
  {theirs_declared} AS opponent_declared, (g.winner_seat = m.seat % 2) AS partnership_won,
  g.match_id, g.match_deal,
  CASE m.seat % 2 WHEN 0 THEN g.match_before0 ELSE g.match_before1 END AS match_score,
  CASE m.seat % 2 WHEN 0 THEN g.match_before1 ELSE g.match_before0 END AS match_opponent_score
FROM moves m JOIN games g ON g.id = m.game_id JOIN users u ON u.id = m.user_id
JOIN users p ON p.id = {player('(m.seat + 2) % 4')}
WHERE g.status = 'finished' AND g.n_players = 4"""


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    # Plain ALTER TABLE: a batch copy of ``games`` would trip over the views that read it (SQLite).
    for column in _GAME_COLUMNS:
        op.execute(f"ALTER TABLE games ADD COLUMN {column}")
    for column in _MATCH_COLUMNS:
        op.execute(f"ALTER TABLE matches ADD COLUMN {column}")
    for column in _MOVE_COLUMNS:
        op.execute(f"ALTER TABLE moves ADD COLUMN {column}")
    op.create_table(
        "partnership_leavers",
        sa.Column("game_id", sa.Integer, sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False, index=True),
        sa.Column("cause", sa.String(16), nullable=False),
        sa.Column("rating_before", sa.Float, nullable=True),
        sa.Column("rating_after", sa.Float, nullable=True),
        sa.Column("left_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False),
    )
    for name in FINISHED:
        op.execute(f"DROP VIEW {name}")
    for statement in _finished(dialect):
        op.execute(statement)
    op.execute(_partnership_moves(dialect))
    if dialect == "postgresql":
        base = _revision("0004_finished_views.py")
        op.execute(base._grants((*FINISHED, "partnership_moves_named"), ("partnership_leavers",)))


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    op.execute("DROP VIEW partnership_moves_named")
    for name in FINISHED:
        op.execute(f"DROP VIEW {name}")
    op.drop_table("partnership_leavers")
    for column in reversed(_MOVE_COLUMNS):
        op.execute(f"ALTER TABLE moves DROP COLUMN {column.split()[0]}")
    for column in reversed(_MATCH_COLUMNS):
        op.execute(f"ALTER TABLE matches DROP COLUMN {column.split()[0]}")
    for column in reversed(_GAME_COLUMNS):
        op.execute(f"ALTER TABLE games DROP COLUMN {column.split()[0]}")
    for statement in _finished(dialect):
        op.execute(statement)
    if dialect == "postgresql":
        base = _revision("0004_finished_views.py")
        op.execute(base._grants(FINISHED, ("matches",)))
