"""Which rule a wrong settlement breaks: the decision table of docs/differential.md.

A disagreement between a game's `result` and the rules oracle is attributed to
one fault kind by the first matching row of the table (`attribute` follows it row
by row); each clause catalog says which of its clauses owns each kind
(`differential:` in specs/clauses/*.yaml), so the rules knowledge stays in the
catalogs and this module only reads cards and money.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from harness.game import Action
from harness.oracle import SeatSettlement, Settlement

KINDS = (
    "refused",
    "refused-act",
    "malfunction",
    "deck",
    "deal",
    "hand-evaluation",
    "dealer-qualification",
    "fold",
    "fold-aa-bonus",
    "aa-bonus-odds",
    "aa-bonus-hand",
    "call-stake",
    "nonqualifying-ante",
    "nonqualifying-call",
    "tie",
    "comparison",
    "player-wins",
    "dealer-wins",
    "ante-odds",
    "call-odds",
    "result-shape",
    "aa-bonus-early",  # the AA Bonus settled before a decision (aa-bonus-timing's events)
    "aa-bonus-late",  # the AA Bonus settled after the turn, or never
)


@dataclass(frozen=True)
class Disagreement:
    """One seat-hand the game settled otherwise than the rules: the kind of fault, a
    detail that tells causes apart (`straight->high_card`, `ante flush`), and the
    seat's settlement on both sides."""

    seat: int
    kind: str
    detail: str
    expected: dict[str, Any]
    actual: dict[str, Any]
    settled: bool = True  # False: the game refused the round; none of its seats was settled

    @property
    def cause(self) -> tuple[str, str]:
        return self.kind, self.detail


def slug(kind: str, detail: str) -> str:
    """A cause as part of an item name: `dealer-qualification-dealer-pair-qualifies-false`."""
    return re.sub(r"[^a-z0-9]+", "-", f"{kind} {detail}".lower()).strip("-")


# What a legal stacked round's refused request breaks (row 0 of the table): its stakes
# refused, the clause of wagers; a decision refused, the clause of decisions. An internal
# error, or its result refused, is a malfunction no clause owns: the clause whose item
# played the round fails, with the game's own words.
REFUSED = {"round": "refused", "act": "refused-act"}


def refused(seat: int, op: str, code: str, message: str) -> Disagreement:
    """A legal stacked round the game refused, by the request it refused."""
    kind = "malfunction" if code == "internal" else REFUSED.get(op, "malfunction")
    return Disagreement(
        seat,
        kind,
        f"{op} refused with {code}",
        {"reply": "ok"},
        {"error": {"code": code, "message": message}},
        settled=False,
    )


def dealt(reply: dict[str, Any], result: dict[str, Any]) -> dict[str, Any]:
    """The cards the game says it dealt, as a stacked round's `cards` param."""
    board = (_items(result.get("board")) + [None] * 5)[:5]
    return {
        "seats": {
            str(e.get("seat")): e.get("hole")
            for e in _items(reply.get("seats"))
            if isinstance(e, dict)
        },
        "dealer": _obj(result.get("dealer")).get("hole"),
        "flop": reply.get("flop"),
        "turn": board[3],
        "river": board[4],
    }


def judge(
    want: Settlement, stacked: dict[str, Any], reply: dict[str, Any], result: dict[str, Any]
) -> list[Disagreement]:
    """Every disagreement of a played stacked round with the rules, by the decision table:
    cards other than the stacked ones (row 1) stand alone, since nothing else can then be
    judged; seats the result reports beyond those that played break its shape (row 4)."""
    shown = dealt(reply, result)
    if shown != stacked or _items(result.get("board"))[:3] != stacked["flop"]:
        first = min((s.seat for s in want.seats), default=1)
        return [Disagreement(first, "deal", "cards other than the stacked ones", stacked, shown)]
    found = disagreements(want, result)
    played = {s.seat for s in want.seats}
    extra = sorted(
        {
            s.get("seat")
            for s in _items(result.get("seats"))
            if isinstance(s, dict) and isinstance(s.get("seat"), (int, str))
        }
        - played,
        key=str,
    )
    if extra:
        found.append(
            Disagreement(
                min(played, default=1), "result-shape", "seats that did not play",
                {"seats": sorted(played)}, {"extra_seats": extra},
            )
        )  # fmt: skip
    return found


def _items(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _pair(value: Any) -> list[Any] | None:
    return [value.get("stake"), value.get("returned")] if isinstance(value, dict) else None


def _outcome(pair: list[Any] | None) -> str:
    """won, pushed or lost, from [stake, returned]."""
    if not pair or not all(isinstance(v, int) for v in pair):
        return "unreported"
    stake, returned = pair
    return "won" if returned > stake else "pushed" if returned == stake else "lost"


def expected_seat(seat: SeatSettlement) -> dict[str, Any]:
    """A seat's settlement as the wire shows it."""
    row: dict[str, Any] = {
        "action": seat.action.value,
        "hand": seat.hand.wire if seat.action is Action.CALL else None,
        "ante": [seat.ante.stake, seat.ante.returned],
        "call": [seat.call.stake, seat.call.returned],
        "aa_bonus": [seat.aa_bonus.stake, seat.aa_bonus.returned] if seat.aa_bonus else None,
    }
    return row


def actual_seat(reported: dict[str, Any]) -> dict[str, Any]:
    wagers = reported.get("wagers") if isinstance(reported.get("wagers"), dict) else {}
    assert isinstance(wagers, dict)
    aa = _pair(wagers.get("aa_bonus"))
    return {
        "action": reported.get("action"),
        "hand": reported.get("hand"),
        "ante": _pair(wagers.get("ante")),
        "call": _pair(wagers.get("call")),
        "aa_bonus": None if aa in (None, [0, 0]) else aa,
    }


def disagreements(want: Settlement, result: dict[str, Any]) -> list[Disagreement]:
    """Every seat whose settlement differs from the oracle's, attributed by the table."""
    dealer = result.get("dealer") if isinstance(result.get("dealer"), dict) else {}
    assert isinstance(dealer, dict)
    reported = {s.get("seat"): s for s in result.get("seats") or [] if isinstance(s, dict)}
    found = []
    for seat in want.seats:
        expected = expected_seat(seat)
        got = reported.get(seat.seat)
        actual = actual_seat(got) if got is not None else {}
        shown = (
            {k: v for k, v in actual.items() if k != "hand"}
            if seat.action is Action.FOLD
            else actual
        )
        if seat.action is Action.FOLD:
            expected = {k: v for k, v in expected.items() if k != "hand"}
        dealer_differs = (
            dealer.get("hand") != want.dealer_hand.wire
            or dealer.get("qualifies") != want.dealer_qualifies
        )
        if shown == expected and not dealer_differs:
            continue
        kind, detail = attribute(want, seat, expected, actual if got is not None else None, dealer)
        found.append(Disagreement(seat.seat, kind, detail, expected, actual))
    return found


def attribute(
    want: Settlement,
    seat: SeatSettlement,
    expected: dict[str, Any],
    actual: dict[str, Any] | None,
    dealer: dict[str, Any],
) -> tuple[str, str]:
    """(kind, detail) of a seat's disagreement, by the first matching row of the table."""
    if dealer.get("hand") != want.dealer_hand.wire:
        return "hand-evaluation", f"dealer {want.dealer_hand.wire}->{dealer.get('hand')}"
    if dealer.get("qualifies") != want.dealer_qualifies:
        return (
            "dealer-qualification",
            f"dealer {want.dealer_hand.wire} qualifies {want.dealer_qualifies}",
        )
    if actual is None or any(actual.get(w) is None for w in ("ante", "call")):
        return "result-shape", "seat or wager missing"
    called = seat.action is Action.CALL
    if called and actual.get("hand") != expected["hand"]:
        return "hand-evaluation", f"player {expected['hand']}->{actual.get('hand')}"
    if not called:
        if [actual["ante"], actual["call"]] != [expected["ante"], expected["call"]]:
            return "fold", "ante or call of a fold"
        return "fold-aa-bonus", "AA Bonus of a fold"
    if actual.get("aa_bonus") != expected["aa_bonus"]:
        row = seat.aa_hand.wire if seat.aa_hand is not None else "none"
        if _outcome(expected["aa_bonus"]) == "won" and _outcome(actual.get("aa_bonus")) == "won":
            return "aa-bonus-odds", f"AA Bonus {row}"
        return "aa-bonus-hand", f"AA Bonus {row}"
    if actual["call"][0] != expected["call"][0]:
        return "call-stake", "call stake"
    ante_out, call_out = _outcome(expected["ante"]), _outcome(expected["call"])
    same_outcomes = _outcome(actual["ante"]) == ante_out and _outcome(actual["call"]) == call_out
    if not want.dealer_qualifies and not same_outcomes:
        if _outcome(actual["ante"]) != ante_out:
            return "nonqualifying-ante", f"ante {ante_out} as {_outcome(actual['ante'])}"
        return "nonqualifying-call", f"call {call_out} as {_outcome(actual['call'])}"
    if not same_outcomes:
        hands = f"{seat.hand.wire} vs {want.dealer_hand.wire}"
        if call_out == "pushed":
            return "tie", hands
        if _outcome(actual["ante"]) == _outcome(actual["call"]):
            # The game settled the seat as one outcome, the wrong one: it compared the hands
            # otherwise than the rules (a kicker, a best five it chose wrongly).
            return "comparison", f"{hands}: {call_out} as {_outcome(actual['call'])}"
        return ("player-wins" if call_out == "won" else "dealer-wins"), hands
    if actual["ante"] != expected["ante"]:
        return "ante-odds", f"ante {seat.hand.wire}"
    return "call-odds", f"call {seat.hand.wire}"
