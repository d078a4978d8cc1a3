"""Failures as a person reads them: grouped by cause, each group with one worked round.

A mutant that pays a flush at even money fails a dozen vectors with the same message
but for the stakes; listing them one by one buries the finding. Failures whose clause,
kind and message agree once numbers and cards are set aside share a cause: the group
shows its count, one worked example (the round as cards, and each wager's money as the
rules settle it beside what the game paid) with the command reproducing it, and names
the others. results.json keeps every failure in full.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from reportlab.lib import colors
from reportlab.lib.units import mm
from reportlab.platypus import KeepTogether, Paragraph, Preformatted, Spacer, TableStyle
from reportlab.platypus.flowables import Flowable

from harness.report.style import (
    BODY,
    MONO,
    MONO_LINE,
    SMALL,
    STDERR_LINES,
    esc,
    grid,
    para,
    text_shown,
)

WAGERS = ("ante", "call", "aa_bonus")
OTHERS_NAMED = 20  # members of a group named beside its example; all are in results.json
DUMP_LIMIT = 3_000  # characters of a JSON value shown as text when no round can be drawn
_DIFFERS = colors.HexColor("#f6d5d3")
# What varies between failures of one cause: card codes, numbers, quoted values.
# A quote touching a letter is an apostrophe ("the game's"), not a quoted value.
_VARIABLE = re.compile(r"\b(?:10|[2-9TJQKA])[cdhs]\b|-?\d[\d,_.]*|(?<!\w)'[^']*'(?!\w)|\"[^\"]*\"")


def cause_of(f: dict[str, Any]) -> tuple[str, str, str]:
    """The key failures of one cause share: kind, clause, and what went wrong. A round
    settled otherwise is known by its hand and the fields that differ ("flush: ante"),
    whichever item found it (vector, differential, simulation); anything else by its
    message's shape with cards and numbers taken out."""
    view = round_view(f)
    wrong = [
        f"{seat.expected.get('hand') or seat.actual.get('hand') or 'a hand'}: "
        + ", ".join(k.replace("_", " ") for k in (*WAGERS, "action", "hand") if seat.differs(k))
        for seat in (view.seats if view else [])
        if any(seat.differs(k) for k in (*WAGERS, "action", "hand"))
    ]
    what = (
        f"{'; '.join(sorted(set(wrong)))} settled otherwise than the rules"
        if wrong
        else _VARIABLE.sub("#", str(f.get("message", ""))[:500])
    )
    return str(f.get("kind", "")), str(f.get("clause") or "-"), what


@dataclass
class Cause:
    """Failures that share a cause; the first is the worked example."""

    key: tuple[str, str, str]
    members: list[dict[str, Any]] = field(default_factory=list)


def group_failures(failures: list[Any]) -> list[Cause]:
    """Groups in order of first appearance (the run's order: clause by clause)."""
    groups: dict[tuple[str, str, str], Cause] = {}
    for f in failures:
        if isinstance(f, dict):
            key = cause_of(f)
            groups.setdefault(key, Cause(key)).members.append(f)
    return list(groups.values())


@dataclass(frozen=True)
class SeatMoney:
    """One seat of a failing round: its cards, and each wager as [stake, returned]."""

    seat: str
    hole: str
    expected: dict[str, Any]
    actual: dict[str, Any]

    def differs(self, key: str) -> bool:
        """Whether the game's value of `key` is not the rules' (both must be recorded)."""
        return (
            key in self.expected and key in self.actual and self.expected[key] != self.actual[key]
        )


@dataclass(frozen=True)
class RoundView:
    board: str
    dealer: str
    seats: list[SeatMoney]


def _cards(value: Any) -> str:
    if isinstance(value, list):
        return " ".join(str(c) for c in value)
    return "" if value is None else str(value)


def _dealt(evidence: dict[str, Any]) -> dict[str, Any] | None:
    """The stacked or dealt cards of the round, in the `cards` shape of a round request."""
    for key in ("cards", "round"):
        value = evidence.get(key)
        if isinstance(value, dict) and isinstance(value.get("seats"), dict) and "flop" in value:
            return value
    return None


def _seat_money(value: Any) -> dict[str, dict[str, Any]]:
    """Per seat, its settlement fields, from the shapes failures record: a vector's
    {"seats": {"1": {...}}}, one seat's {"ante": ..., "call": ...} (the differential, the
    RTP simulation), or an archive's RTP simulation [[ante stake, returned], [call ...]]."""
    if isinstance(value, dict) and isinstance(value.get("seats"), dict):
        return {str(k): v for k, v in value["seats"].items() if isinstance(v, dict)}
    if isinstance(value, dict) and any(w in value for w in WAGERS):
        return {"": value}
    if isinstance(value, list) and len(value) == 2 and all(isinstance(v, list) for v in value):
        return {"": {"ante": value[0], "call": value[1]}}
    return {}


def round_view(f: dict[str, Any]) -> RoundView | None:
    """The failing round as cards and money, when the failure records enough of it."""
    evidence = f.get("evidence") if isinstance(f.get("evidence"), dict) else {}
    assert isinstance(evidence, dict)
    expected, actual = _seat_money(f.get("expected")), _seat_money(f.get("actual"))
    if not expected and not actual:
        return None
    dealt = _dealt(evidence) or {}
    holes = dealt.get("seats") if isinstance(dealt.get("seats"), dict) else {}
    assert isinstance(holes, dict)
    flop: list[Any] = dealt["flop"] if isinstance(dealt.get("flop"), list) else []
    board = [*flop, dealt.get("turn"), dealt.get("river")] if dealt else []
    if not board and isinstance(f.get("expected"), dict):
        board = f["expected"].get("board") or []
    seats = []
    for seat in sorted(set(expected) | set(actual), key=lambda s: (len(s), s)):
        name = seat or str(evidence.get("seat") or (next(iter(holes)) if len(holes) == 1 else ""))
        seats.append(
            SeatMoney(name, _cards(holes.get(name)), expected.get(seat, {}), actual.get(seat, {}))
        )
    return RoundView(_cards([c for c in board if c]), _cards(dealt.get("dealer")), seats)


def _pair(value: Any) -> str:
    """A wager's [stake, returned] as money: "stake 100, returned 300"."""
    if isinstance(value, list) and len(value) == 2:
        return (
            f"stake {value[0]:,}, returned {value[1]:,}"
            if all(isinstance(v, int) for v in value)
            else json.dumps(value, default=str)
        )
    return "-" if value is None else json.dumps(value, default=str)


def round_table(view: RoundView) -> list[Flowable]:
    """Cards on top, then one row per seat and wager: the rules' money beside the game's."""
    flow: list[Flowable] = []
    cards = [f"Board {view.board or '?'}", f"dealer {view.dealer or '?'}"]
    flow.append(para("; ".join(cards), BODY))
    rows: list[list[Any]] = [
        [para(h, SMALL) for h in ("Seat", "Hole", "Wager", "The rules (oracle)", "The game")]
    ]
    differs: list[int] = []
    for seat in view.seats:
        keys = [k for k in (*WAGERS, "action", "hand") if k in seat.expected or k in seat.actual]
        for key in keys:
            want, got = seat.expected.get(key), seat.actual.get(key)
            shown = (_pair(want), _pair(got)) if key in WAGERS else (str(want), str(got))
            if want != got:
                differs.append(len(rows))
            rows.append(
                [
                    para(seat.seat or "-", SMALL),
                    para(seat.hole or "-", SMALL),
                    para(key.replace("_", " "), SMALL),
                    para(shown[0], SMALL),
                    para(shown[1], SMALL),
                ]
            )
    table = grid(rows, [12 * mm, 20 * mm, 18 * mm, 60 * mm, 60 * mm])
    table.setStyle(TableStyle([("BACKGROUND", (4, i), (4, i), _DIFFERS) for i in differs]))
    return [*flow, table]


def _dump(label: str, value: Any) -> Preformatted:
    """A JSON value wrapped over as many lines as it needs, cut with its size said."""
    text = json.dumps(value, default=str, ensure_ascii=False)
    if len(text) > DUMP_LIMIT:
        text = f"{text[:DUMP_LIMIT]}\n[... cut: {len(text):,} characters in all, see results.json]"
    return Preformatted(f"{label} {text_shown(text, DUMP_LIMIT + 100)}", MONO, MONO_LINE)


def _tail(text: Any, lines: int = STDERR_LINES) -> str:
    shown = [text_shown(line, MONO_LINE * 3) for line in str(text).rstrip().splitlines()[-lines:]]
    return "\n".join(shown)


def stderr_block(text: Any, title: str) -> list[Flowable]:
    if not text or not str(text).strip():
        return []
    return [para(title, SMALL), Preformatted(_tail(text), MONO, maxLineLength=MONO_LINE)]


def worked_example(f: dict[str, Any]) -> list[Flowable]:
    """One failure in full: the round as cards and money (or the values as JSON), the
    game's stderr, the repro vector and the command reproducing it."""
    evidence = f.get("evidence") if isinstance(f.get("evidence"), dict) else {}
    assert isinstance(evidence, dict)
    item = f.get("item") or f.get("vector") or f.get("check") or "?"
    # Each value escaped and cut on its own, so that a cut states that value's own length.
    head = f"Example: {esc(item, 300)}: {esc(f.get('message', ''))}"
    block: list[Flowable] = [Paragraph(head, BODY)]
    view = round_view(f)
    if view is not None:
        block += round_table(view)
    else:
        block += [_dump("expected:", f.get("expected")), _dump("actual:", f.get("actual"))]
    rest = {
        k: v
        for k, v in evidence.items()
        if k not in ("stderr_tail", "cards", "round", "result", "seat")
    }
    block += [_dump(f"{key}:", value) for key, value in rest.items()]
    block += stderr_block(evidence.get("stderr_tail"), "The game's stderr (last lines):")
    if f.get("repro"):
        block.append(para(f"Repro vector: {f['repro']} (in the folder of results.json)", SMALL))
    block.append(para(f"Reproduce: {f.get('reproduce', '')}", MONO))
    return block


def cause_block(cause: Cause, title: Flowable) -> list[Flowable]:
    """A group under its title: the worked example, then the other members named. The
    title, the example's first line and its round stay on one page."""
    example = worked_example(cause.members[0])
    flow: list[Flowable] = [KeepTogether([title, *example[:3]]), *example[3:]]
    others = cause.members[1:]
    if others:
        named = [
            f"{o.get('item', '?')}: {text_shown(o.get('message', ''), 160)}"
            for o in others[:OTHERS_NAMED]
        ]
        more = len(others) - OTHERS_NAMED
        tail = [f"... and {more} more, each in results.json"] if more > 0 else []
        flow.append(para(f"The {len(others)} others: " + " | ".join([*named, *tail]), SMALL))
    flow.append(Spacer(1, 3 * mm))
    return flow
