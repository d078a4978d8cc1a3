"""Alembic's environment: always given an open connection by harness/register/database.py
(`upgrade`), never a URL of its own."""

from __future__ import annotations

from alembic import context

from harness.register.schema import metadata


def run_migrations() -> None:
    connection = context.config.attributes["connection"]
    context.configure(connection=connection, target_metadata=metadata)
    with context.begin_transaction():
        context.run_migrations()


if hasattr(context, "config"):  # run by Alembic; merely imported, it does nothing
    run_migrations()
