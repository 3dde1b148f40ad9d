"""four-player analyses: the accuracy of seats 2 and 3

A four-player deal's analysis (docs/protocol-four.md, "Analysis") is stored like a two-player one: one
``analyses`` row and a ``move_analyses`` row a card, whose columns fit it as they are (its values are
exact: ``known`` true, ``win`` the deal's result). Seats 2 and 3 need their accuracy copied out too, for
the profile averages: ``accuracy2``/``accuracy3`` (NULL at two-player games). ``finished_analyses``
(``a.*``, expanded when a view is made) is made again to show them.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-27 10:00:00
"""
from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import sqlalchemy as sa
from alembic import op

revision = '0011'
down_revision = '0010'
branch_labels = None
depends_on = None

COLUMNS = ("accuracy2", "accuracy3")


def _base() -> ModuleType:
    """Load revision 0004 (migration files are not a package) for its view helpers."""
    path = Path(__file__).with_name("0004_finished_views.py")
    spec = importlib.util.spec_from_file_location("_treset_0004", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _finished_analyses(dialect: str) -> None:
    """Make ``finished_analyses`` again (after the columns changed) and grant it to the read-only role."""
    base = _base()
    op.execute(base._view("finished_analyses", dialect) + "SELECT a.* FROM analyses a JOIN games g "
                                                         f"ON g.id = a.game_id WHERE {base.FINISHED_WHERE}")
    if dialect == "postgresql":
        op.execute(base._grants(("finished_analyses",), ("analyses",)))


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    op.execute("DROP VIEW finished_analyses")
    for name in COLUMNS:
        op.add_column("analyses", sa.Column(name, sa.Float(), nullable=True))
    _finished_analyses(dialect)


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    op.execute("DROP VIEW finished_analyses")
    # Plain ALTER TABLE: a batch copy of ``analyses`` would trip over the view that reads it (SQLite).
    for name in reversed(COLUMNS):
        op.execute(f"ALTER TABLE analyses DROP COLUMN {name}")
    _finished_analyses(dialect)
