"""Durable rounds for the reference game: SQLite, one transaction per change of state.

A game declaring capability `recovery` must survive a kill at any moment: every
answer it gave and every decision it acknowledged must still hold when the same
command starts it again (docs/adapter-protocol.md, "Interrupted rounds"). The
engine keeps its rounds in memory as it always does; this store mirrors each
change of that state in one SQLite transaction, committed before the engine
answers, and rebuilds the state at start-up. It holds no rules: it maps the
engine's `Round` and `Seat` dataclasses (harness/reference/rounds.py) to rows and back,
nothing more.

Durability comes from SQLite itself: write-ahead log (`journal_mode=WAL`), each
commit synced to disk (`synchronous=FULL`), so a commit that returned survives
a kill and a power cut, and a transaction interrupted half-way is rolled back
when the file is next opened. The changes, each its own transaction:

- a round opened (its cards, wagers and the round counter, so that a restarted
  game never gives a round id twice);
- a decision recorded, and with the last one the round's settlement, its place
  in the history and the round the history then forgets, together;
- the interrupted rounds voided at start-up (`recovery="void"`).

The file is held with an exclusive lock while the game runs (a second game on
the same file is refused rather than dealing the same round ids), carries
`PRAGMA application_id` (this kind of file) and `PRAGMA user_version` (the
schema), and records the game class and the profile its rounds were dealt
under: reopened by another game or profile, a settled round would render
differently, so that is refused too.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from harness.errors import InvalidCards, UserError
from harness.reference.rounds import Phase, Round, Seat
from harness.rules.cards import Card, parse_card, parse_cards
from harness.rules.game import Action

SCHEMA_VERSION = 1
APPLICATION_ID = int.from_bytes(b"chRS", "big")  # "chcert reference store", in the file header
LOCK_WAIT_SECONDS = 5.0  # a game killed a moment ago may still be releasing its lock

_SCHEMA = (
    """CREATE TABLE meta (
        key   TEXT PRIMARY KEY,
        value NOT NULL
    )""",
    """CREATE TABLE rounds (
        seq             INTEGER PRIMARY KEY,  -- the order the rounds were opened in
        ident           TEXT NOT NULL UNIQUE,
        dealer          TEXT NOT NULL,        -- cards run together: 'AsKd'
        flop            TEXT NOT NULL,
        turn            TEXT NOT NULL,
        river           TEXT NOT NULL,
        phase           TEXT NOT NULL CHECK (phase IN ('decisions', 'done', 'void')),
        dealer_strength INTEGER,
        events          TEXT NOT NULL,        -- JSON array, as `result` shows it
        history         INTEGER UNIQUE,       -- place in the history, NULL while it is open
        CHECK ((phase = 'decisions') = (history IS NULL))
    )""",
    """CREATE TABLE seats (
        round          INTEGER NOT NULL REFERENCES rounds (seq) ON DELETE CASCADE,
        number         INTEGER NOT NULL,
        ante           INTEGER NOT NULL,
        aa_bonus       INTEGER NOT NULL,
        hole           TEXT NOT NULL,
        action         TEXT CHECK (action IN ('call', 'fold')),
        ante_returned  INTEGER NOT NULL,
        call_returned  INTEGER NOT NULL,
        aa_returned    INTEGER NOT NULL,
        final_strength INTEGER,
        PRIMARY KEY (round, number)
    ) WITHOUT ROWID""",
    "INSERT INTO meta (key, value) VALUES ('next_round', 1)",
)
# The columns `Round` and `Seat` map to, in the order of their fields.
_ROUND_COLUMNS = "ident, dealer, flop, turn, river, phase, dealer_strength, events"
_SEAT_COLUMNS = (
    "number, ante, aa_bonus, hole, action, ante_returned, call_returned, aa_returned, "
    "final_strength"
)


class StoreError(UserError):
    """The file cannot serve as the round store, or a change could not be committed."""


@dataclass
class Snapshot:
    """Everything the engine keeps, as the store holds it."""

    rounds: dict[str, Round]  # in the order they were opened
    history: list[str]  # oldest first
    next_round: int


class RoundStore:
    """The reference game's rounds in one SQLite file (see the module docstring)."""

    Error = StoreError  # as DB-API connections carry theirs: the engine catches it from here

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        try:
            self._db = sqlite3.connect(
                self.path,
                timeout=LOCK_WAIT_SECONDS,
                isolation_level=None,  # transactions are begun and committed explicitly
                check_same_thread=False,  # the HTTP server calls from its threads, one at a time
            )
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: cannot open: {exc}") from exc
        try:
            self._prepare()
        except BaseException:
            self._db.close()
            raise

    def _prepare(self) -> None:
        """Check the file is a store of this kind and version (or empty), then make it one."""
        db = self._db
        try:
            # Before WAL is turned on: the log then lives in this process's memory, not in
            # a shared-memory file, and the lock taken below is held until the game ends.
            db.execute("PRAGMA locking_mode = EXCLUSIVE")
            app_id = db.execute("PRAGMA application_id").fetchone()[0]
            version = db.execute("PRAGMA user_version").fetchone()[0]
            tables = db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        except sqlite3.OperationalError as exc:  # locked by another game, unreadable, ...
            raise StoreError(f"{self.path}: {_explained(exc)}") from exc
        except sqlite3.DatabaseError as exc:
            raise StoreError(
                f"{self.path} is not a round store of the reference game ({exc})"
            ) from exc
        fresh = app_id == 0 and version == 0 and tables == 0
        if not fresh and app_id != APPLICATION_ID:
            raise StoreError(
                f"{self.path} is an SQLite database, but not a round store of the reference game"
            )
        if not fresh and version > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path} was written by a newer reference game (store schema {version}; "
                f"this one reads schema {SCHEMA_VERSION})"
            )
        if not fresh and version != SCHEMA_VERSION:
            raise StoreError(f"{self.path}: a round store with an unknown schema {version}")
        try:
            mode = db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if mode != "wal":
                raise StoreError(f"{self.path}: the write-ahead log cannot be used here ({mode})")
            db.execute("PRAGMA synchronous = FULL")  # WAL synced at every commit
            db.execute("PRAGMA foreign_keys = ON")
            with self._transaction("EXCLUSIVE"):  # takes the lock now, not at the first round
                if fresh:
                    for statement in _SCHEMA:
                        db.execute(statement)
                    db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        except sqlite3.OperationalError as exc:
            raise StoreError(f"{self.path}: {_explained(exc)}") from exc

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> RoundStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------ identity

    def bind(self, game: str, profile: str) -> None:
        """Record which game and profile deal into this file, or check they are the same.

        A settled round is stored as money and strengths; `result` renders it through
        the game's rule hooks and the profile (the call stake, whether the dealer
        qualifies), so only the same game under the same profile answers it as before.
        """
        wanted = {"game": game, "profile": profile}
        try:
            rows = self._db.execute("SELECT key, value FROM meta WHERE key IN ('game', 'profile')")
            stored = dict(rows.fetchall())
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: a round store that cannot be read: {exc}") from exc
        if not stored:
            with self._transaction() as db:
                db.executemany("INSERT INTO meta (key, value) VALUES (?, ?)", wanted.items())
        elif stored != wanted:
            raise StoreError(
                f"{self.path} holds rounds of {stored.get('game')} under profile "
                f"{stored.get('profile')}, not of {game} under {profile}: use another file"
            )

    # ------------------------------------------------------------- loading

    def load(self) -> Snapshot:
        """The rounds, the history and the round counter, as last committed."""
        db = self._db
        try:
            seats: dict[int, dict[int, Seat]] = {}
            for round_seq, *row in db.execute(f"SELECT round, {_SEAT_COLUMNS} FROM seats"):
                seats.setdefault(round_seq, {})[row[0]] = _seat(row)
            rounds: dict[str, Round] = {}
            history: list[tuple[int, str]] = []
            query = f"SELECT seq, history, {_ROUND_COLUMNS} FROM rounds ORDER BY seq"
            for seq, place, *row in db.execute(query):
                rnd = _round(row, dict(sorted(seats.get(seq, {}).items())))
                rounds[rnd.ident] = rnd
                if place is not None:
                    history.append((place, rnd.ident))
            (next_round,) = db.execute("SELECT value FROM meta WHERE key = 'next_round'").fetchone()
        except (sqlite3.Error, InvalidCards, ValueError, TypeError) as exc:
            raise StoreError(f"{self.path}: a round store that cannot be read: {exc}") from exc
        return Snapshot(rounds, [ident for _, ident in sorted(history)], _int(next_round))

    # ------------------------------------------------------------- changes

    def open_round(self, rnd: Round, next_round: int) -> None:
        """A round dealt: its cards, wagers and events, and the counter past its id."""
        with self._transaction() as db:
            cursor = db.execute(
                f"INSERT INTO rounds ({_ROUND_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                _round_row(rnd),
            )
            db.executemany(
                f"INSERT INTO seats (round, {_SEAT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(cursor.lastrowid, *_seat_row(seat)) for seat in rnd.seats.values()],
            )
            db.execute("UPDATE meta SET value = ? WHERE key = 'next_round'", (next_round,))

    def record_decision(self, rnd: Round, forgotten: Iterable[str] = ()) -> None:
        """A decision recorded; with the last, the settlement and the history entry too."""
        with self._transaction() as db:
            _update(db, rnd)
            _forget(db, forgotten)

    def void(self, rounds: Iterable[Round], forgotten: Iterable[str] = ()) -> None:
        """The rounds a restart interrupted, voided together (their stakes returned)."""
        with self._transaction() as db:
            for rnd in rounds:
                _update(db, rnd)
            _forget(db, forgotten)

    @contextlib.contextmanager
    def _transaction(self, kind: str = "IMMEDIATE") -> Iterator[sqlite3.Connection]:
        """One transaction: committed whole when the block ends, rolled back on any error."""
        db = self._db
        try:
            db.execute(f"BEGIN {kind}")
            try:
                yield db
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: {_explained(exc)}; nothing was written") from exc


# ------------------------------------------------------------------ rows


def _cards(cards: Iterable[Card]) -> str:
    return "".join(str(c) for c in cards)


def _round_row(rnd: Round) -> tuple[object, ...]:
    return (
        rnd.ident,
        _cards(rnd.dealer),
        _cards(rnd.flop),
        str(rnd.turn),
        str(rnd.river),
        rnd.phase.value,
        rnd.dealer_strength,
        _events(rnd),
    )


def _events(rnd: Round) -> str:
    return json.dumps(rnd.events, separators=(",", ":"))


def _seat_row(seat: Seat) -> tuple[object, ...]:
    return (
        seat.number,
        seat.ante,
        seat.aa_bonus,
        _cards(seat.hole),
        seat.action.value if seat.action is not None else None,
        seat.ante_returned,
        seat.call_returned,
        seat.aa_returned,
        seat.final_strength,
    )


def _seat(row: list[object]) -> Seat:
    number, ante, aa_bonus, hole, action, ante_ret, call_ret, aa_ret, strength = row
    first, second = parse_cards(str(hole))
    return Seat(
        number=_int(number),
        ante=_int(ante),
        aa_bonus=_int(aa_bonus),
        hole=(first, second),
        action=None if action is None else Action(str(action)),
        ante_returned=_int(ante_ret),
        call_returned=_int(call_ret),
        aa_returned=_int(aa_ret),
        final_strength=None if strength is None else _int(strength),
    )


def _round(row: list[object], seats: dict[int, Seat]) -> Round:
    ident, dealer, flop, turn, river, phase, dealer_strength, events = row
    d1, d2 = parse_cards(str(dealer))
    f1, f2, f3 = parse_cards(str(flop))
    if not seats:
        raise ValueError(f"round {ident} has no seats")
    return Round(
        ident=str(ident),
        seats=seats,
        dealer=(d1, d2),
        flop=(f1, f2, f3),
        turn=parse_card(turn),
        river=parse_card(river),
        phase=Phase(phase),
        events=json.loads(str(events)),
        dealer_strength=None if dealer_strength is None else _int(dealer_strength),
    )


def _int(value: object) -> int:
    if not isinstance(value, int):
        raise TypeError(f"an integer column holds {value!r}")
    return value


def _update(db: sqlite3.Connection, rnd: Round) -> None:
    """Write a round's decisions, money and phase; a round that ends joins the history."""
    found = db.execute("SELECT seq FROM rounds WHERE ident = ?", (rnd.ident,)).fetchone()
    if found is None:  # the engine's state and the file disagree: write nothing
        raise sqlite3.IntegrityError(f"round {rnd.ident} is not in the store")
    db.execute(
        "UPDATE rounds SET phase = :phase, dealer_strength = :strength, events = :events, "
        "history = CASE WHEN :phase = 'decisions' THEN NULL "
        "ELSE coalesce(history, (SELECT coalesce(max(history), 0) + 1 FROM rounds)) END "
        "WHERE seq = :seq",
        {
            "phase": rnd.phase.value,
            "strength": rnd.dealer_strength,
            "events": _events(rnd),
            "seq": found[0],
        },
    )
    seats = db.executemany(
        "UPDATE seats SET action = ?, ante_returned = ?, call_returned = ?, aa_returned = ?, "
        "final_strength = ? WHERE round = ? AND number = ?",
        [
            (
                seat.action.value if seat.action is not None else None,
                seat.ante_returned,
                seat.call_returned,
                seat.aa_returned,
                seat.final_strength,
                found[0],
                seat.number,
            )
            for seat in rnd.seats.values()
        ],
    )
    if seats.rowcount != len(rnd.seats):
        raise sqlite3.IntegrityError(f"round {rnd.ident}: its seats are not in the store")


def _forget(db: sqlite3.Connection, idents: Iterable[str]) -> None:
    """Rounds the history no longer keeps (the engine forgets them too); seats cascade."""
    db.executemany("DELETE FROM rounds WHERE ident = ?", [(i,) for i in idents])


def _explained(exc: sqlite3.Error) -> str:
    text = str(exc)
    if "locked" in text:
        return f"{text}: another game process holds this file"
    return text
