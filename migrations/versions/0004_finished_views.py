"""read-only SQL sees finished games only; the move views gain the outcome's context

The read-only role loses the raw tables that hold live decks and moves (``games``, ``moves``) and
the analysis tables, and reads views instead, each limited to finished games:
``finished_games``, ``finished_moves``, ``finished_analyses``, ``finished_move_analyses`` (the
tables' own columns) and ``games_named``, ``moves_named``, ``move_analyses_named`` (card names).
``moves_named`` gains the export's context columns (docs/admin.md, "Export columns").

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-25 01:30:00
"""
from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

from alembic import op

from tressette.cards import ALL_CARDS, POINTS

revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None

READONLY_ROLE = "treset_readonly"
RAW = ("games", "moves", "analyses", "move_analyses")
"""Tables the role no longer reads: a game in progress is in ``games`` (its deck) and ``moves``."""
NAMED = ("games_named", "moves_named", "move_analyses_named")
FINISHED = ("finished_games", "finished_moves", "finished_analyses", "finished_move_analyses")
FINISHED_WHERE = "g.status = 'finished'"
_CARD_LISTS = ("hand", "opponent_known", "table_cards", "won_self", "won_opponent")

_POINTS_ARRAY = "ARRAY[" + ", ".join(str(POINTS[c]) for c in ALL_CARDS) + "]"
# As card_names (0002): the JSON text read as an integer array, a constant array for the points.
_PG_FUNCTION = f"""
CREATE FUNCTION card_points(codes json) RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT coalesce(sum(({_POINTS_ARRAY})[u.code + 1]), 0)::integer
   FROM unnest(('{{' || btrim(codes::text, '[] ') || '}}')::integer[]) AS u(code) $$;
"""


def _view(name: str, dialect: str) -> str:
    """Return ``CREATE VIEW name``; on PostgreSQL a security barrier, so that no function a reader
    writes (a temporary one, say) is evaluated on rows the view's filter drops (live games)."""
    barrier = " WITH (security_barrier = true)" if dialect == "postgresql" else ""
    return f"CREATE VIEW {name}{barrier} AS\n"


def _views(dialect: str) -> list[str]:
    """Return the CREATE VIEW statements of this revision, per dialect."""
    if dialect == "postgresql":
        def names(expr: str) -> str:
            return f"card_names({expr})"

        def one(expr: str) -> str:
            return f"card_name({expr})"

        def points(expr: str) -> str:
            return f"card_points({expr})"

        def deck_at(index: str) -> str:
            return f"(g.deck ->> ({index}))::integer"
    else:  # SQLite: comma-separated names (it has no arrays), JSON through json_each / json_extract
        def names(expr: str) -> str:
            return f"(SELECT group_concat(c.name, ', ') FROM json_each({expr}) e JOIN cards c ON c.code = e.value)"

        def one(expr: str) -> str:
            return f"(SELECT name FROM cards WHERE code = {expr})"

        def points(expr: str) -> str:
            return f"(SELECT coalesce(sum(c.points), 0) FROM json_each({expr}) e JOIN cards c ON c.code = e.value)"

        def deck_at(index: str) -> str:
            return f"json_extract(g.deck, '$[' || ({index}) || ']')"

    # The mover takes the trick when it follows suit (codes are suit * 10 + rank) with a stronger card (a
    # lower rank); the trick's winner draws the stock's top card (deck position 20 + 2 * trick), the other
    # the next one. Only a trick's second card completes it, and only the first 10 tricks have a stock.
    took = "(m.card / 10 = m.first_card / 10 AND m.card % 10 < m.first_card % 10)"

    def drawn(mover: bool) -> str:
        first, second = ("0", "1") if mover else ("1", "0")
        index = f"20 + 2 * m.trick_number + CASE WHEN {took} THEN {first} ELSE {second} END"
        return f"CASE WHEN m.first_card IS NOT NULL AND m.trick_number < 10 THEN {one(deck_at(index))} END"

    lists = ",\n  ".join(f"{names('m.' + col)} AS {col}" for col in _CARD_LISTS)
    own = "CASE m.seat WHEN 0 THEN g.points0 ELSE g.points1 END"
    theirs = "CASE m.seat WHEN 0 THEN g.points1 ELSE g.points0 END"
    moves_named = _view("moves_named", dialect) + f"""SELECT m.id, m.game_id, m.move_number, m.trick_number,
  m.variant, u.username, m.user_id, m.seat,
  {lists},
  {one('m.card')} AS card, {one('m.first_card')} AS first_card, m.score,
  {points('m.won_opponent')} AS opponent_score,
  CASE WHEN m.trick_number < 10 THEN 20 - 2 * m.trick_number ELSE 0 END AS stock_size,
  {drawn(True)} AS drawn_self,
  {drawn(False)} AS drawn_opponent,
  (g.winner_seat = m.seat) AS mover_won, m.created_at,
  g.deal_number, g.first_leader, o.username AS opponent, o.id AS opponent_id, t.rating, ot.rating AS opponent_rating,
  g.end_reason, {own} AS final_score, {theirs} AS final_opponent_score, {own} - {theirs} AS margin
FROM moves m JOIN games g ON g.id = m.game_id JOIN users u ON u.id = m.user_id
JOIN users o ON o.id = CASE m.seat WHEN 0 THEN g.player1_id ELSE g.player0_id END
LEFT JOIN user_totals t ON t.user_id = m.user_id AND t.variant = m.variant
LEFT JOIN user_totals ot ON ot.user_id = o.id AND ot.variant = m.variant
WHERE {FINISHED_WHERE}"""
    games_named = _view("games_named", dialect) + f"""SELECT g.id, g.table_id, g.deal_number, g.variant,
  g.opponent, g.bot_level, g.status,
  u0.username AS player0, u1.username AS player1, g.first_leader, {names('g.deck')} AS deck,
  g.points0, g.points1, g.winner_seat,
  CASE g.winner_seat WHEN 0 THEN u0.username WHEN 1 THEN u1.username END AS winner,
  g.end_reason, g.started_at, g.ended_at
FROM games g JOIN users u0 ON u0.id = g.player0_id JOIN users u1 ON u1.id = g.player1_id
WHERE {FINISHED_WHERE}"""
    move_analyses_named = _view("move_analyses_named", dialect) + f"""SELECT a.game_id, a.move_number,
  m.trick_number, m.variant, u.username, a.seat, {one('m.card')} AS card,
  {one('a.best_card')} AS best_card, a.loss, a.label, a.kind, a.known, a.value, a.best_value, a.win, a.best_win,
  an.version
FROM move_analyses a
JOIN analyses an ON an.game_id = a.game_id
JOIN moves m ON m.game_id = a.game_id AND m.move_number = a.move_number
JOIN games g ON g.id = a.game_id
JOIN users u ON u.id = m.user_id
WHERE {FINISHED_WHERE}"""
    finished = [
        _view("finished_games", dialect) + f"SELECT g.* FROM games g WHERE {FINISHED_WHERE}",
        _view("finished_moves", dialect) + f"SELECT m.* FROM moves m JOIN games g ON g.id = m.game_id "
                                           f"WHERE {FINISHED_WHERE}",
        _view("finished_analyses", dialect) + f"SELECT a.* FROM analyses a JOIN games g ON g.id = a.game_id "
                                              f"WHERE {FINISHED_WHERE}",
        _view("finished_move_analyses", dialect) + f"SELECT a.* FROM move_analyses a JOIN games g "
                                                   f"ON g.id = a.game_id WHERE {FINISHED_WHERE}",
    ]
    return [moves_named, games_named, move_analyses_named, *finished]


def _grants(readable: tuple[str, ...], revoked: tuple[str, ...], extra: str = "") -> str:
    """Return a DO block granting ``readable`` and revoking ``revoked`` for the role, if it exists."""
    return f"""DO $$ BEGIN
  IF EXISTS (SELECT FROM pg_roles WHERE rolname = '{READONLY_ROLE}') THEN
    REVOKE ALL ON {", ".join(revoked)} FROM {READONLY_ROLE};
    GRANT SELECT ON {", ".join(readable)} TO {READONLY_ROLE};{extra}
  END IF;
EXCEPTION
  WHEN insufficient_privilege THEN RAISE NOTICE 'may not grant to {READONLY_ROLE}: skipped';
END $$;"""


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    for name in NAMED:
        op.execute(f"DROP VIEW {name}")
    if dialect == "postgresql":
        op.execute(_PG_FUNCTION)
    for statement in _views(dialect):
        op.execute(statement)
    if dialect == "postgresql":
        op.execute(_grants(NAMED + FINISHED, RAW,
                           f"\n    GRANT EXECUTE ON FUNCTION card_points(json) TO {READONLY_ROLE};"))


def _revision(filename: str) -> ModuleType:
    """Load an earlier revision's module (migration files are not a package) to rebuild its views."""
    spec = importlib.util.spec_from_file_location(f"_treset_{filename[:4]}", Path(__file__).with_name(filename))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    for name in (*FINISHED, *NAMED):
        op.execute(f"DROP VIEW {name}")
    if dialect == "postgresql":
        op.execute("DROP FUNCTION card_points(json)")
    for statement in (*_revision("0002_ratings_views_readonly.py")._views(dialect),
                      _revision("0003_analyses.py")._view(dialect)):
        op.execute(statement)
    if dialect == "postgresql":
        op.execute(_grants(RAW + NAMED, RAW))
