"""Failures as a person reads them: grouped by cause, each group with one worked round.

A mutant that pays a flush at even money fails a dozen vectors with the same message
but for the stakes; listing them one by one buries the finding. Failures that share a
cause (`Failure.key()`, harness/results/model.py Fault: the clause, the fault's kind and detail,
the wager and field settled otherwise, the source that found it) are one group: it
shows its count, one worked example (the round as cards, and each wager's money as the
rules settle it beside what the game paid) with the command reproducing it, and names
the others. results.json keeps every failure in full.
"""

from __future__ import annotations

import json
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
from harness.results.model import SETTLED, WAGERS, Failure, Fault, seat_money

OTHERS_NAMED = 20  # members of a group named beside its example; all are in results.json
DUMP_LIMIT = 3_000  # characters of a JSON value shown as text when no round can be drawn
TITLE_WHAT = 120  # characters of a cause's *what* in its heading
_DIFFERS = colors.HexColor("#f6d5d3")


@dataclass
class CauseGroup:
    """Failures that share a cause, whoever found them; the first is the worked example."""

    cause: Fault
    members: list[Failure] = field(default_factory=list)

    @property
    def found_by(self) -> list[str]:
        """The sources that found the cause, in order of first appearance."""
        return list(dict.fromkeys(str(f.key().found_by) for f in self.members))


def group_failures(failures: list[Failure]) -> list[CauseGroup]:
    """Groups in order of first appearance (the run's order: clause by clause)."""
    groups: dict[tuple[str | None, str, str, str, str], CauseGroup] = {}
    for f in failures:
        fault = f.key()
        groups.setdefault(fault.cause, CauseGroup(fault)).members.append(f)
    return list(groups.values())


def cause_what(cause: Fault) -> str:
    """What went wrong, as a group's heading says it (docs/report.md, How failures are
    grouped): the fault's kind and detail, and the wager or field settled otherwise
    ("ante-odds (ante flush): ante settled otherwise than the rules")."""
    wrong = [w.replace("_", " ") for w in (cause.wager, cause.field) if w]
    settled = f": {', '.join(wrong)} settled otherwise than the rules" if wrong else ""
    return cause.what() + settled


def cause_title(group: CauseGroup) -> str:
    """A group's heading under Failures: the clause, the *what*, how many, who found it."""
    n = len(group.members)
    count = f"{n} failures" if n > 1 else "1 failure"
    what = text_shown(cause_what(group.cause), TITLE_WHAT)
    found = ", ".join(group.found_by)
    return f"{group.cause.clause or '-'}: {what} ({count}, found by {found})"


@dataclass(frozen=True)
class SeatMoney:
    """One seat of a failing round: its cards, and each wager as [stake, returned]."""

    seat: str
    hole: str
    expected: dict[str, Any]
    actual: dict[str, Any]


@dataclass(frozen=True)
class RoundView:
    board: str
    dealer: str
    seats: list[SeatMoney]
    expected_is: str = "The rules (oracle)"  # a refusal's: the control round's settlement


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


def round_view(f: Failure) -> RoundView | None:
    """The failing round as cards and money, when the failure records enough of it."""
    expected, actual = seat_money(f.expected), seat_money(f.actual)
    if not expected and not actual:
        return None
    dealt = _dealt(f.evidence) or {}
    holes = dealt.get("seats") if isinstance(dealt.get("seats"), dict) else {}
    assert isinstance(holes, dict)
    flop: list[Any] = dealt["flop"] if isinstance(dealt.get("flop"), list) else []
    board = [*flop, dealt.get("turn"), dealt.get("river")] if dealt else []
    if not board and isinstance(f.expected, dict):
        board = f.expected.get("board") or []
    # A failure of one seat names it in its evidence, or by the only hole cards dealt.
    one = str(f.evidence.get("seat") or (next(iter(holes)) if len(holes) == 1 else ""))
    seats = []
    for seat in sorted(set(expected) | set(actual), key=lambda s: (len(s), s)):
        name = seat or one
        seats.append(
            SeatMoney(name, _cards(holes.get(name)), expected.get(seat, {}), actual.get(seat, {}))
        )
    label = f.evidence.get("expected_is")
    return RoundView(
        _cards([c for c in board if c]),
        _cards(dealt.get("dealer")),
        seats,
        *([label] if isinstance(label, str) and label else []),
    )


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
        [para(h, SMALL) for h in ("Seat", "Hole", "Wager", view.expected_is, "The game")]
    ]
    differs: list[int] = []
    for seat in view.seats:
        keys = [k for k in SETTLED if k in seat.expected or k in seat.actual]
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


def worked_example(f: Failure) -> list[Flowable]:
    """One failure in full: the round as cards and money (or the values as JSON), the
    game's stderr, the repro vector and the command reproducing it."""
    # Each value escaped and cut on its own, so that a cut states that value's own length.
    head = f"Example: {esc(f.item or '?', 300)}: {esc(f.message)}"
    block: list[Flowable] = [Paragraph(head, BODY)]
    view = round_view(f)
    if view is not None:
        block += round_table(view)
    else:
        block += [_dump("expected:", f.expected), _dump("actual:", f.actual)]
    rest = {
        k: v
        for k, v in f.evidence.items()
        if k not in ("stderr_tail", "cards", "round", "result", "seat")
    }
    block += [_dump(f"{key}:", value) for key, value in rest.items()]
    block += stderr_block(f.evidence.get("stderr_tail"), "The game's stderr (last lines):")
    if f.repro:
        block.append(para(f"Repro vector: {f.repro} (in the folder of results.json)", SMALL))
    block.append(para(f"Reproduce: {f.reproduce}", MONO))
    return block


def cause_block(group: CauseGroup, title: Flowable) -> list[Flowable]:
    """A group under its title: the worked example, then the other members named. The
    title, the example's first line and its round stay on one page."""
    example = worked_example(group.members[0])
    flow: list[Flowable] = [KeepTogether([title, *example[:3]]), *example[3:]]
    others = group.members[1:]
    if others:
        named = [f"{o.item}: {text_shown(o.message, 160)}" for o in others[:OTHERS_NAMED]]
        more = len(others) - OTHERS_NAMED
        tail = [f"... and {more} more, each in results.json"] if more > 0 else []
        flow.append(para(f"The {len(others)} others: " + " | ".join([*named, *tail]), SMALL))
    flow.append(Spacer(1, 3 * mm))
    return flow
