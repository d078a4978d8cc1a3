"""The register: its head, settings, events, certificates, artifacts, documents, signers.

Revision ID: r0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "r0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "chain_head",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("hash", sa.String(64), nullable=False),
    )
    op.create_table(
        "settings",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
    )
    op.create_table(
        "events",
        sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("number", sa.String(64), nullable=True, index=True),
        sa.Column("at", sa.String(32), nullable=False),
        sa.Column("by", sa.Text, nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("detail", sa.Text, nullable=False),
        sa.Column("prev", sa.String(64), nullable=False),
        sa.Column("hash", sa.String(64), nullable=False, unique=True),
    )
    op.create_table(
        "certificates",
        sa.Column("number", sa.String(64), primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("verdict", sa.String(16), nullable=False),
        sa.Column("why_not_certificate", sa.Text, nullable=False),
        sa.Column("report_id", sa.String(64), nullable=False),
        sa.Column("profile", sa.Text, nullable=False),
        sa.Column("profile_sha256", sa.String(64), nullable=False),
        sa.Column("build_sha256", sa.String(64), nullable=True, index=True),
        sa.Column("game", sa.Text, nullable=False),
        sa.Column("report_sha256", sa.String(64), nullable=False, unique=True),
        sa.Column("results_sha256", sa.String(64), nullable=False),
        sa.Column("signer", sa.Text, nullable=True),
        sa.Column("signed_at", sa.String(32), nullable=True),
        sa.Column("laboratory", sa.Text, nullable=True),
        sa.Column("finished", sa.String(32), nullable=False),
    )
    op.create_table(
        "artifacts",
        sa.Column("number", sa.String(64), sa.ForeignKey("certificates.number"), primary_key=True),
        sa.Column("position", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("sha256", sa.String(64), nullable=False, index=True),
        sa.Column("bytes", sa.BigInteger, nullable=False),
    )
    op.create_table(
        "documents",
        sa.Column("number", sa.String(64), sa.ForeignKey("certificates.number"), primary_key=True),
        sa.Column("pdf", sa.LargeBinary, nullable=False),
    )
    op.create_table(
        "signers",
        sa.Column("sha256", sa.String(64), primary_key=True),
        sa.Column("subject", sa.Text, nullable=False),
        sa.Column("pem", sa.Text, nullable=False),
    )


def downgrade() -> None:
    for table in ("signers", "documents", "artifacts", "certificates", "events"):
        op.drop_table(table)
    op.drop_table("settings")
    op.drop_table("chain_head")
