"""tokens: when each was last used (sessions expire after an idle period, docs/security.md)

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-25 01:20:00
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # NULL until first use after the upgrade: the expiry then counts from ``created_at``.
    with op.batch_alter_table("auth_tokens") as batch:
        batch.add_column(sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("auth_tokens") as batch:
        batch.drop_column("last_used_at")
