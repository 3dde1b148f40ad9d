"""users: the page language an account keeps (en, sl, it, hr; NULL until its owner picks one)

The page stores the language picked in its header on the account, so signing in elsewhere brings
it back (issue #45). The allowed codes are checked by the API (``server/api/routes_auth.py``,
``LANGUAGES``), not by a constraint, so a language added later needs no migration.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-26 10:00:00
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0009'
down_revision = '0008'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("lang", sa.String(8), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.drop_column("lang")
