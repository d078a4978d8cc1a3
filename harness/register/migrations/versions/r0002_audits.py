"""The production audits run against each build: one row a build an audit met.

Revision ID: r0002
Revises: r0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "r0002"
down_revision = "r0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "audits",
        sa.Column(
            "seq", sa.Integer, sa.ForeignKey("events.seq"), primary_key=True, autoincrement=False
        ),
        sa.Column("build", sa.Text, primary_key=True),
        sa.Column("rounds", sa.BigInteger, nullable=False),
        sa.Column("coverage", sa.String(16), nullable=False),
        sa.Column("number", sa.String(64), nullable=True),
    )


def downgrade() -> None:
    op.drop_table("audits")
