"""Opening the register: a path is SQLite, a `postgresql://` URL the laboratory's server
(docs/register.md). Its schema is brought up to date only by `chcert register init`
(Alembic, harness/register/migrations/); every other command refuses a schema older or
newer than its own. Database errors become one line naming the register, exit 4.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

from sqlalchemy import Engine, create_engine, event, exc
from sqlalchemy.engine import URL, Connection, make_url

from harness.errors import UserError

MIGRATIONS = Path(__file__).with_name("migrations")
LOCK_WAIT = 30.0  # seconds a change waits for another to finish before giving up
CONNECT_WAIT = 10  # seconds to reach a server


class RegisterError(UserError):
    """The register cannot do what was asked: one line, exit 4, nothing written."""


def url_of(given: str) -> URL:
    """The SQLAlchemy URL of `--register PATH|URL`."""
    if "://" not in given:
        return URL.create("sqlite", database=str(Path(given).resolve()))
    try:
        url = make_url(given)
    except exc.ArgumentError as error:
        raise RegisterError(f"--register {given}: not a database URL ({error})") from None
    if url.drivername in ("postgresql", "postgres", "postgresql+psycopg"):
        return url.set(drivername="postgresql+psycopg")
    if url.drivername == "sqlite":
        return url
    raise RegisterError(
        f"--register {shown(url)}: a path (SQLite) or a postgresql:// URL is expected"
    )


def shown(url: URL) -> str:
    """The URL as messages show it: never its password."""
    if url.drivername == "sqlite":
        return str(url.database)
    return url.render_as_string(hide_password=True).replace("postgresql+psycopg", "postgresql")


def engine_of(url: URL, read_only: bool = False) -> Engine:
    """An engine whose write transactions take the database's write lock at their start
    (SQLite's BEGIN IMMEDIATE; PostgreSQL locks the chain's head row): two changes never
    interleave, and one waits up to LOCK_WAIT for the other. `read_only`: the database
    refuses every write (the lookup page's)."""
    if url.drivername != "sqlite":
        options = f"-c lock_timeout={int(LOCK_WAIT * 1000)}"
        if read_only:
            options += " -c default_transaction_read_only=on"
        return create_engine(
            url, connect_args={"connect_timeout": CONNECT_WAIT, "options": options}
        )
    if read_only:
        url = make_url(f"sqlite:///file:{quote(str(url.database))}?mode=ro&uri=true")
    engine = create_engine(url, connect_args={"timeout": LOCK_WAIT})

    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # transactions begun below, not by the driver
        dbapi_connection.execute("PRAGMA foreign_keys = ON")

    @event.listens_for(engine, "begin")
    def _begin(connection: Connection) -> None:
        writing = connection.get_execution_options().get("chcert_write", False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if writing else "BEGIN")

    return engine


@contextlib.contextmanager
def translated(where: str) -> Iterator[None]:
    """A database's error as one line naming the register (`where`)."""
    try:
        yield
    except exc.DBAPIError as error:
        raise RegisterError(f"register {where}: {_said(error)}") from None


def _said(error: exc.DBAPIError) -> str:
    text = str(error.orig).strip().splitlines()[0] if error.orig is not None else str(error)
    if "database is locked" in text:
        return f"locked by another process: waited {LOCK_WAIT:g} s (try again)"
    if "lock timeout" in text:
        return f"locked by another change: waited {LOCK_WAIT:g} s (try again)"
    if "file is not a database" in text:
        return "not a register: the file is not an SQLite database"
    if "database" in text and "does not exist" in text:
        return f"no such database on the server: {text} (create it, then chcert register init)"
    if isinstance(error, exc.OperationalError) and "connect" in text.lower():
        return f"unreachable: {text}"
    return text


def alembic_config(connection: Connection) -> Any:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


def schema_revisions() -> list[str]:
    """This chcert's schema revisions, oldest first; the last is the one it writes."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    walked = ScriptDirectory.from_config(config).walk_revisions()
    return [script.revision for script in reversed(list(walked))]


def revision_of(connection: Connection) -> str | None:
    """The database's schema revision, or None when it holds no register."""
    from alembic.runtime.migration import MigrationContext

    return MigrationContext.configure(connection).get_current_revision()


def upgrade(connection: Connection) -> None:
    """Bring the schema to this chcert's revision, in the caller's transaction."""
    from alembic import command

    command.upgrade(alembic_config(connection), "head")


def schema_problem(revision: str | None) -> str | None:
    """Why a register of schema `revision` cannot be used by this chcert, or None."""
    known = schema_revisions()
    if revision is None:
        return "holds no register (chcert register init creates one)"
    if revision not in known:
        return (
            f"its schema ({revision}) is newer than this chcert's ({known[-1]}): "
            "use the chcert that wrote it, or a newer one"
        )
    if revision != known[-1]:
        return (
            f"its schema ({revision}) is older than this chcert's: chcert register init upgrades it"
        )
    return None
