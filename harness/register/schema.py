"""The register's tables, as the queries see them. The migrations
(harness/register/migrations/versions/) create and change them; a test holds the two equal.

No table has a status column, and no row is ever updated but the chain's head: a
certificate's status is read from its events, so it cannot be edited apart from them.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Column,
    ForeignKey,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
)

metadata = MetaData()

# One row (id 1): the last event's seq and hash. Every change locks it first, so that
# changes are appended one after another.
head = Table(
    "chain_head",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("seq", Integer, nullable=False),
    Column("hash", String(64), nullable=False),
)

settings = Table(
    "settings",
    metadata,
    Column("key", String(64), primary_key=True),
    Column("value", Text, nullable=False),
)

events = Table(
    "events",
    metadata,
    Column("seq", Integer, primary_key=True, autoincrement=False),
    Column("kind", String(16), nullable=False),
    Column("number", String(64), nullable=True, index=True),
    Column("at", String(32), nullable=False),
    Column("by", Text, nullable=False),
    Column("reason", Text, nullable=False),
    Column("detail", Text, nullable=False),  # canonical JSON
    Column("prev", String(64), nullable=False),
    Column("hash", String(64), nullable=False, unique=True),
)

certificates = Table(
    "certificates",
    metadata,
    Column("number", String(64), primary_key=True),
    Column("kind", String(16), nullable=False),
    Column("verdict", String(16), nullable=False),
    Column("why_not_certificate", Text, nullable=False),
    Column("report_id", String(64), nullable=False),
    Column("profile", Text, nullable=False),
    Column("profile_sha256", String(64), nullable=False),
    Column("build_sha256", String(64), nullable=True, index=True),
    Column("game", Text, nullable=False),
    Column("report_sha256", String(64), nullable=False, unique=True),
    Column("results_sha256", String(64), nullable=False),
    Column("signer", Text, nullable=True),
    Column("signed_at", String(32), nullable=True),
    Column("laboratory", Text, nullable=True),
    Column("finished", String(32), nullable=False),
)

artifacts = Table(
    "artifacts",
    metadata,
    Column("number", String(64), ForeignKey("certificates.number"), primary_key=True),
    Column("position", Integer, primary_key=True, autoincrement=False),
    Column("name", Text, nullable=False),
    Column("sha256", String(64), nullable=False, index=True),
    Column("bytes", BigInteger, nullable=False),
)

# The signed report itself, byte for byte: retrievable, and checked against its hash.
documents = Table(
    "documents",
    metadata,
    Column("number", String(64), ForeignKey("certificates.number"), primary_key=True),
    Column("pdf", LargeBinary, nullable=False),
)

# The signing certificates whose reports the register takes as certificates.
signers = Table(
    "signers",
    metadata,
    Column("sha256", String(64), primary_key=True),
    Column("subject", Text, nullable=False),
    Column("pem", Text, nullable=False),
)

# The production audits run against each build (`chcert audit --register`): one row a
# build an audit met, with what the register said of it; the `audited` event carries
# their hash.
audits = Table(
    "audits",
    metadata,
    Column("seq", Integer, ForeignKey("events.seq"), primary_key=True, autoincrement=False),
    Column("build", Text, primary_key=True),
    Column("rounds", BigInteger, nullable=False),
    Column("coverage", String(16), nullable=False),
    Column("number", String(64), nullable=True),
)
