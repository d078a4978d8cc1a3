"""The history's hash chain (docs/register.md#the-history): each event's hash covers its
fields and the hash before it, so an event edited, deleted or moved breaks every link
after it. Pure functions over records; the store reads and writes them."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

import msgspec

from harness.register.records import Event, EventKind, Head, Problem

GENESIS = "0" * 64  # the hash before the first event


def canonical(value: Any) -> bytes:
    """The one byte form of a JSON value that is hashed: keys sorted, no spaces, UTF-8."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def digest(value: Any) -> str:
    return hashlib.sha256(canonical(value)).hexdigest()


HASHED = ("seq", "kind", "number", "at", "by", "reason", "detail", "prev")


def event_hash(event: Event) -> str:
    """The hash an event must carry: of every field but that hash, the previous one's
    included."""
    return digest({name: getattr(event, name) for name in HASHED})


def sealed(
    seq: int,
    kind: EventKind,
    number: str | None,
    at: str,
    by: str,
    reason: str,
    detail: dict[str, Any],
    prev: str,
) -> Event:
    """The event appended after the one whose hash is `prev`."""
    unsealed = Event(
        seq=seq, kind=kind, number=number, at=at, by=by, reason=reason, detail=detail, prev=prev,
        hash="",
    )  # fmt: skip
    return msgspec.structs.replace(unsealed, hash=event_hash(unsealed))


def chain_problems(events: Sequence[Event], head: Head | None) -> list[Problem]:
    """Where the chain breaks, in order: a hash that does not cover its event (edited), an
    event out of place or missing (deleted, reordered), a head past the last event (the
    history cut short and the head not), each named by its seq."""
    problems: list[Problem] = []
    prev = GENESIS
    expected = 1
    for ev in events:  # in seq order
        where = f"event {ev.seq}"
        if ev.seq != expected:
            gap = f"{expected}" if ev.seq == expected + 1 else f"{expected} to {ev.seq - 1}"
            problems.append(Problem(where=f"event {gap}", what="deleted: missing from the history"))
        expected = ev.seq + 1
        if event_hash(ev) != ev.hash:
            problems.append(Problem(where=where, what="edited: its hash does not cover it"))
        if ev.prev != prev:
            problems.append(
                Problem(
                    where=where,
                    what="does not follow the event before it (an event deleted, "
                    "reordered or edited before it)",
                )
            )
        prev = ev.hash
    last = Head(seq=events[-1].seq if events else 0, hash=prev)
    if head is not None and head != last:
        problems.append(
            Problem(
                where="the chain's head",
                what=f"names event {head.seq} ({head.hash[:16]}...), but the history ends "
                f"at event {last.seq} ({last.hash[:16]}...): events deleted or added "
                "outside the register",
            )
        )
    return problems


def holds(events: Sequence[Event], head: Head) -> bool:
    """Whether the history holds `head` (one printed or exported earlier) as one of its
    events: a history cut short and re-chained since cannot."""
    return any(ev.seq == head.seq and ev.hash == head.hash for ev in events)
