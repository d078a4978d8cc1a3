"""Which rule a wrong settlement breaks: the decision table of docs/differential.md.

A disagreement between a game's `result` and the rules oracle is attributed to
one fault kind by the first matching row of the table (`attribute` follows it row
by row); each clause catalog says which of its clauses owns each kind
(`differential:` in specs/clauses/*.yaml), so the rules knowledge stays in the
catalogs and this module only reads cards and money.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from harness.rules.game import Action
from harness.rules.oracle import SeatSettlement, Settlement

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
    # The cause row 6 would give the seat (a seat settled as another of the round) where
    # the round alone cannot tell it from the seat's own fault: taken when the item's
    # other rounds show the copy beyond doubt (`resolve_copies`).
    alternative: tuple[str, str] | None = None

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
    copied, maybe = settled_as_another(want, reported)
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
        kind, detail = attribute(
            want, seat, expected, actual if got is not None else None, dealer, seat.seat in copied
        )
        alternative = COPY_CAUSE if seat.seat in maybe else None
        found.append(Disagreement(seat.seat, kind, detail, expected, actual, True, alternative))
    return found


def resolve_copies(found: list[Disagreement]) -> list[Disagreement]:
    """An item's disagreements, the ambiguous copies (`Disagreement.alternative`) taken as
    copies when another round of the item shows a seat settled as another beyond doubt,
    and as each seat's own fault when none does: one game's rounds are settled by one
    program, so the rounds that tell the faults apart decide those that cannot."""
    if not any(d.cause == COPY_CAUSE for d in found):
        return found
    return [
        d if d.alternative is None else replace(d, kind=d.alternative[0], detail=d.alternative[1])
        for d in found
    ]


WAGERS = ("ante", "call", "aa_bonus")
COPIED = "a seat settled as another seat of the round"  # row 6's detail: one cause
COPY_CAUSE = ("comparison", COPIED)


def _money(row: dict[str, Any]) -> dict[str, Any]:
    """A seat's wagers as [stake, returned] pairs, an AA Bonus not staked as None."""
    return {w: (None if row.get(w) in (None, [0, 0]) else row.get(w)) for w in WAGERS}


def _stake(pair: Any) -> int:
    return pair[0] if isinstance(pair, list) and isinstance(pair[0], int) else 0


def _as_source(got: Any, source: Any, own: Any, mode: str) -> bool:
    """Whether a wager the game reported is the source seat's by the rules, in one way of
    copying it: `literal` (its stake and return), `returned` (the seat's own stake, the
    source's return) or `scaled` (the source's outcome at the seat's own stake)."""
    if mode == "literal" or source is None or _stake(source) == 0:
        return bool(got == source)
    if not isinstance(got, list) or _stake(got) != _stake(own) or _stake(own) == 0:
        return False
    if mode == "returned":
        return bool(got[1] == source[1])
    returned = got[1]
    return isinstance(returned, int) and returned * source[0] == source[1] * got[0]


def _evident(
    mode: str, source: dict[str, Any], others: dict[int, tuple[Any, Any]], wrong: list[int]
) -> bool:
    """Whether the round shows the copy, not a fault of one seat's own settlement that
    happens to match another seat's (a tie settled as lost beside a seat that lost, at
    other stakes). Every other seat reported with the source's very wagers, stakes and
    returns, is the copy itself (literal). A seat paid the source's return on a stake of
    its own must show it on a return that is not nothing, at a stake that differs from
    the source's (returned): every lost wager returns 0. The source's outcome at each
    seat's own stakes (scaled) is what a one-row fault beside seats that lost or won
    alike shows too, so it needs a round of three seats or more, two of them settled
    wrongly, one of them at a rate its own hand does not give (a wager won at other
    odds, an AA Bonus settled otherwise), which no confusion of won, pushed and lost
    gives."""
    # Seats owed the same rates (two flushes, each paid at even money) are one row's
    # fault as well as a copy: only seats owed different rates tell them apart.
    owed = {tuple(_rate(others[n][1][w]) for w in WAGERS) for n in wrong}
    if mode == "literal":  # beyond doubt when a seat shows stakes not its own, or two
        # seats owed different rates both show the source's (no one row explains both)
        return len(owed) >= 2 or any(
            _stake(others[n][0][w]) != _stake(others[n][1][w]) for n in wrong for w in WAGERS
        )
    if mode == "returned":  # a seat settled wrongly shows a return that is not nothing at
        # a stake not the source's, and two seats owed different rates show it: one seat
        # paid even money beside a push at twice its stake is a one-row fault as well
        return len(owed) >= 2 and any(
            source[w] is not None and source[w][1] > 0 and _stake(own[w]) != _stake(source[w])
            for got, own in (others[n] for n in wrong)
            for w in WAGERS
        )
    rate = any(
        got[w] != own[w] and (w == "aa_bonus" or _outcome(got[w]) == _outcome(own[w]))
        for got, own in others.values()
        for w in WAGERS
    )
    return len(others) >= 2 and len(wrong) >= 2 and rate and len(owed) >= 2


def _rate(pair: Any) -> Fraction | None:
    """What a wager returns per unit staked; None when nothing was staked."""
    return Fraction(pair[1], pair[0]) if _stake(pair) else None


def settled_as_another(
    want: Settlement, reported: dict[Any, dict[str, Any]]
) -> tuple[dict[int, int], dict[int, int]]:
    """Row 6 of the table: the seats the game settled as another seat of the same round
    (the seat it maps to), where each hand is to be settled against the dealer on its own
    (000 Rules bullet 8; s000-r8 and its kin own `comparison`). One seat the game settled
    as the rules say (the source) explains every other seat's money, some of them
    wrongly, and the round shows it (_evident): the fault is then one
    finding, not a scatter of the pay-table, tie and decision rows each seat's money
    would otherwise fall in. Every other seat must match the source, not one: a round
    of two seats at the same stakes is where a one-row fault can match by chance (a
    tie settled as lost beside a seat that lost), and this row then takes it, as the
    first matching row of the table does (docs/differential.md)."""
    expected = {s.seat: _money(expected_seat(s)) for s in want.seats}
    actual = {
        n: _money(actual_seat(reported[n])) for n in expected if isinstance(reported.get(n), dict)
    }
    if len(expected) < 2 or len(actual) < len(expected):
        return {}, {}
    maybe: dict[int, int] = {}
    for source in sorted(expected):
        if actual[source] != expected[source]:
            continue  # a source is a seat the game settled right
        others = {n: (actual[n], expected[n]) for n in expected if n != source}
        wrong = [n for n, (got, own) in others.items() if got != own]
        if not wrong:
            continue
        for mode in ("literal", "returned", "scaled"):
            if not all(
                _as_source(got[w], expected[source][w], own[w], mode)
                for got, own in others.values()
                for w in WAGERS
            ):
                continue
            if _evident(mode, expected[source], others, wrong):
                return {n: source for n in wrong}, {}
            maybe = maybe or {n: source for n in wrong}
    return {}, maybe


def attribute(
    want: Settlement,
    seat: SeatSettlement,
    expected: dict[str, Any],
    actual: dict[str, Any] | None,
    dealer: dict[str, Any],
    copied: bool = False,
) -> tuple[str, str]:
    """(kind, detail) of a seat's disagreement, by the first matching row of the table;
    `copied`: the seat is one the game settled as another seat (row 6,
    settled_as_another)."""
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
    if copied:
        return "comparison", COPIED
    if not called:
        if [actual["ante"], actual["call"]] != [expected["ante"], expected["call"]]:
            return "fold", "ante or call of a fold"
        return "fold-aa-bonus", "AA Bonus of a fold"
    if actual.get("aa_bonus") != expected["aa_bonus"]:
        return aa_bonus_fault(seat, actual.get("aa_bonus"))
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


SEVEN_CARDS = "AA Bonus judged on the seven cards, not hole + flop"  # row 9's detail: one cause


def aa_bonus_fault(seat: SeatSettlement, paid: Any) -> tuple[str, str]:
    """Rows 9 to 11 of the table, by the cards judged as well as the amount. The rules
    judge the AA Bonus on hole + flop (000 "Side bets"). A payment that is the pay
    table's own for the best five of the seven cards, where hole + flop pays otherwise,
    is those cards judged (`aa-bonus-hand`: five-card trips that became quads on the
    river, paid 40); any other amount where both sides pay is the hole + flop hand's row
    paid at other odds (`aa-bonus-odds`); a bet one side pays and the other does not is
    the hand judged to win or lose otherwise (`aa-bonus-hand`)."""
    row = seat.aa_hand.wire if seat.aa_hand is not None else "none"
    seven = seat.aa_bonus_on_seven
    if seven is not None and seven != seat.aa_bonus and paid == [seven.stake, seven.returned]:
        return "aa-bonus-hand", SEVEN_CARDS
    wanted = [seat.aa_bonus.stake, seat.aa_bonus.returned] if seat.aa_bonus else None
    if _outcome(wanted) == "won" and _outcome(paid) == "won":
        return "aa-bonus-odds", f"AA Bonus {row}"
    return "aa-bonus-hand", f"AA Bonus {row}"
