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

import msgspec

from harness.differential.rounds import PlannedRound
from harness.protocol.messages import Dealer, Dealt, Result, Settled, SettledSeat, StackedCards
from harness.rules.batch import Seats, settle_seats
from harness.rules.evaluator import Category
from harness.rules.game import MAX_SEATS, Action, Wager
from harness.rules.oracle import SeatSettlement, Settlement
from harness.rules.profiles import Profile
from harness.rules.table import Table

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
    expected: object  # evidence, as JSON shows it: the rules' side
    actual: object  # evidence: the game's side
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


def dealt(shown: Dealt, result: Settled) -> StackedCards:
    """The cards the game says it dealt, as a stacked round's `cards` param."""
    return {
        "seats": {str(s.seat): list(s.hole) for s in shown.seats},
        "dealer": list(result.dealer.hole),
        "flop": list(shown.flop),
        "turn": result.board[3],
        "river": result.board[4],
    }


def judge(
    want: Settlement, stacked: StackedCards, shown: Dealt, result: Result
) -> list[Disagreement]:
    """Every disagreement of a played stacked round with the rules, by the decision table:
    a round left unsettled breaks the result's shape (row 4), cards other than the
    stacked ones (row 1) stand alone, since nothing else can then be judged; seats the
    result reports beyond those that played, or twice, break its shape (row 4)."""
    first = min((s.seat for s in want.seats), default=1)
    if not isinstance(result, Settled):
        return [
            Disagreement(
                first, "result-shape", f"a round {result.status} where one was settled",
                {"status": "settled"}, {"status": result.status},
            )
        ]  # fmt: skip
    cards = dealt(shown, result)
    if cards != stacked or list(result.board[:3]) != stacked["flop"]:
        return [Disagreement(first, "deal", "cards other than the stacked ones", stacked, cards)]
    found = disagreements(want, result)
    played = {s.seat for s in want.seats}
    extra = sorted({s.seat for s in result.seats} - played)
    if extra:
        found.append(
            Disagreement(
                min(played, default=1), "result-shape", "seats that did not play",
                {"seats": sorted(played)}, {"extra_seats": extra},
            )
        )  # fmt: skip
    numbers = [s.seat for s in result.seats]
    twice = sorted({n for n in numbers if numbers.count(n) > 1})
    if twice:  # the seat's last entry is the one judged above: the others are the shape's
        found.append(
            Disagreement(
                min(played, default=1), "result-shape", "a seat reported twice",
                {"seats": sorted(played)}, {"reported_twice": twice},
            )
        )  # fmt: skip
    return found


Pair = tuple[int, int]  # a wager's [stake, returned]
ANTE, CALL, AA = 0, 1, 2  # a seat's wagers in SeatMoney.wagers' order (WAGERS)


class SeatMoney(msgspec.Struct, frozen=True):
    """A seat's settlement as the decision table compares it: its decision, its hand
    (of a call) and each wager as (stake, returned), an AA Bonus not staked None."""

    action: str
    hand: str | None
    ante: Pair
    call: Pair
    aa_bonus: Pair | None

    @property
    def wagers(self) -> tuple[Pair | None, Pair | None, Pair | None]:
        return self.ante, self.call, self.aa_bonus

    def shown(self) -> dict[str, object]:
        """As evidence: the wire's names, a fold's hand left out (nothing is judged of it)."""
        row = msgspec.json.decode(msgspec.json.encode(self))  # pairs as JSON's lists
        assert isinstance(row, dict)
        if self.action == Action.FOLD.value:
            del row["hand"]
        return row


def _outcome(pair: Pair | None) -> str:
    """won, pushed or lost, from (stake, returned)."""
    if pair is None:
        return "unreported"
    stake, returned = pair
    return "won" if returned > stake else "pushed" if returned == stake else "lost"


def _owed(wager: Wager | None) -> Pair | None:
    return None if wager is None else (wager.stake, wager.returned)


def expected_seat(seat: SeatSettlement) -> SeatMoney:
    """A seat's settlement by the rules."""
    return SeatMoney(
        seat.action.value,
        seat.hand.wire if seat.action is Action.CALL else None,
        (seat.ante.stake, seat.ante.returned),
        (seat.call.stake, seat.call.returned),
        _owed(seat.aa_bonus),
    )


def actual_seat(reported: SettledSeat) -> SeatMoney:
    """A seat's settlement as the game reported it (a fold's hand read as none)."""
    wagers = reported.wagers
    hand = reported.hand if reported.action == Action.CALL.value else None
    return SeatMoney(
        reported.action, hand, wagers.ante.pair, wagers.call.pair, wagers.aa_bonus_staked
    )


class Expected(msgspec.Struct, frozen=True):
    """A round as the rules settle it, as `judge` compares it: the dealer's hand and
    whether he qualifies, and each seat's SeatMoney by seat number."""

    dealer_hand: str
    dealer_qualifies: bool
    seats: dict[int, SeatMoney]


def expected_rounds(
    profile: Profile,
    rounds: list[PlannedRound],
    batch: tuple[Seats, list[bool]],
    table: Table | None,
) -> list[Expected | None]:
    """Each round's Expected, its seats settled as a batch (`batch`: rounds.seats_of,
    for harness/rules/batch.py); None for a round the oracle would refuse (cards not
    distinct, a seat numbered twice or outside 1..7, wagers it does not take), which
    only the oracle judges."""
    seats, distinct = batch
    got = settle_seats(profile, seats, table)
    hand = got.hand.tolist()
    ante_returned = got.ante_returned.tolist()
    call_stake = got.call_stake.tolist()
    call_returned = got.call_returned.tolist()
    aa_returned = got.aa_returned.tolist()
    legal = got.legal.tolist()
    dealer_hand = got.dealer_hand.tolist()
    qualifies = got.dealer_qualifies.tolist()
    found: list[Expected | None] = []
    row = 0
    for r, rnd in enumerate(rounds):
        first, row = row, row + len(rnd.seats)
        numbers = [s.seat for s in rnd.seats]
        seated = len(set(numbers)) == len(numbers) and all(1 <= n <= MAX_SEATS for n in numbers)
        if not (distinct[r] and seated and all(legal[first:row])):
            found.append(None)
            continue
        money = {}
        for i, s in enumerate(rnd.seats, first):
            called = s.action is Action.CALL
            money[s.seat] = SeatMoney(
                s.action.value,
                WIRE[hand[i]] if called else None,
                (s.ante, ante_returned[i]),
                (call_stake[i], call_returned[i]),
                (s.aa_bonus, aa_returned[i]) if s.aa_bonus else None,
            )
        found.append(Expected(WIRE[dealer_hand[r]], qualifies[r], money))
    return found


WIRE = [c.wire for c in Category]  # a category's protocol string, by its number


def agrees(expected: Expected, stacked: StackedCards, shown: Dealt, result: Result) -> bool:
    """Whether `judge` finds no disagreement in the round, for a round the rules settle
    as `expected`: a settled result, on the stacked cards, with each seat that played
    once and no other, the dealer and every seat's money as the rules have them. A
    round it does not take is judged (`judge`): this only spares the oracle's records
    when there is nothing to attribute."""
    if not isinstance(result, Settled):
        return False
    if dealt(shown, result) != stacked or list(result.board[:3]) != stacked["flop"]:
        return False
    dealer = result.dealer
    if dealer.hand != expected.dealer_hand or dealer.qualifies != expected.dealer_qualifies:
        return False
    reported = {s.seat: s for s in result.seats}
    if reported.keys() != expected.seats.keys() or len(reported) != len(result.seats):
        return False
    return all(actual_seat(reported[n]) == money for n, money in expected.seats.items())


def disagreements(want: Settlement, result: Settled) -> list[Disagreement]:
    """Every seat whose settlement differs from the oracle's, attributed by the table."""
    dealer = result.dealer
    reported = {s.seat: s for s in result.seats}
    dealer_differs = (
        dealer.hand != want.dealer_hand.wire or dealer.qualifies != want.dealer_qualifies
    )
    compared = [
        (seat, expected_seat(seat), actual_seat(got) if got is not None else None)
        for seat in want.seats
        for got in [reported.get(seat.seat)]
    ]
    if not dealer_differs and all(actual == expected for _, expected, actual in compared):
        return []  # every seat as the rules settle it: no row of the table to find
    copied, maybe = settled_as_another(want, reported)
    found = []
    for seat, expected, actual in compared:
        if actual == expected and not dealer_differs:
            continue
        kind, detail = attribute(want, seat, expected, actual, dealer, seat.seat in copied)
        alternative = COPY_CAUSE if seat.seat in maybe else None
        shown = {} if actual is None else actual.shown()
        found.append(
            Disagreement(seat.seat, kind, detail, expected.shown(), shown, True, alternative)
        )
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


COPIED = "a seat settled as another seat of the round"  # row 6's detail: one cause
COPY_CAUSE = ("comparison", COPIED)

Money = tuple[Pair | None, Pair | None, Pair | None]  # SeatMoney.wagers


def _stake(pair: Pair | None) -> int:
    return pair[0] if pair is not None else 0


def _as_source(got: Pair | None, source: Pair | None, own: Pair | None, mode: str) -> bool:
    """Whether a wager the game reported is the source seat's by the rules, in one way of
    copying it: `literal` (its stake and return), `returned` (the seat's own stake, the
    source's return) or `scaled` (the source's outcome at the seat's own stake)."""
    if mode == "literal" or source is None or _stake(source) == 0:
        return got == source
    if got is None or _stake(got) != _stake(own) or _stake(own) == 0:
        return False
    if mode == "returned":
        return got[1] == source[1]
    return got[1] * source[0] == source[1] * got[0]


def _evident(
    mode: str, source: Money, others: dict[int, tuple[Money, Money]], wrong: list[int]
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
    owed = {tuple(_rate(pair) for pair in others[n][1]) for n in wrong}
    if mode == "literal":  # beyond doubt when a seat shows stakes not its own, or two
        # seats owed different rates both show the source's (no one row explains both)
        return len(owed) >= 2 or any(
            _stake(got) != _stake(own) for n in wrong for got, own in zip(*others[n], strict=True)
        )
    if mode == "returned":  # a seat settled wrongly shows a return that is not nothing at
        # a stake not the source's, and two seats owed different rates show it: one seat
        # paid even money beside a push at twice its stake is a one-row fault as well
        return len(owed) >= 2 and any(
            from_source is not None and from_source[1] > 0 and _stake(own) != _stake(from_source)
            for n in wrong
            for own, from_source in zip(others[n][1], source, strict=True)
        )
    rate = any(
        got[w] != own[w] and (w == AA or _outcome(got[w]) == _outcome(own[w]))
        for got, own in others.values()
        for w in (ANTE, CALL, AA)
    )
    return len(others) >= 2 and len(wrong) >= 2 and rate and len(owed) >= 2


def _rate(pair: Pair | None) -> Fraction | None:
    """What a wager returns per unit staked; None when nothing was staked."""
    return Fraction(pair[1], pair[0]) if pair is not None and _stake(pair) else None


def settled_as_another(
    want: Settlement, reported: dict[int, SettledSeat]
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
    expected = {s.seat: expected_seat(s).wagers for s in want.seats}
    actual = {n: actual_seat(reported[n]).wagers for n in expected if n in reported}
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
                for w in (ANTE, CALL, AA)
            ):
                continue
            if _evident(mode, expected[source], others, wrong):
                return {n: source for n in wrong}, {}
            maybe = maybe or {n: source for n in wrong}
    return {}, maybe


def attribute(
    want: Settlement,
    seat: SeatSettlement,
    expected: SeatMoney,
    actual: SeatMoney | None,
    dealer: Dealer,
    copied: bool = False,
) -> tuple[str, str]:
    """(kind, detail) of a seat's disagreement, by the first matching row of the table;
    `copied`: the seat is one the game settled as another seat (row 6,
    settled_as_another)."""
    if dealer.hand != want.dealer_hand.wire:
        return "hand-evaluation", f"dealer {want.dealer_hand.wire}->{dealer.hand}"
    if dealer.qualifies != want.dealer_qualifies:
        return (
            "dealer-qualification",
            f"dealer {want.dealer_hand.wire} qualifies {want.dealer_qualifies}",
        )
    if actual is None:
        return "result-shape", "seat or wager missing"
    called = seat.action is Action.CALL
    if called and actual.hand != expected.hand:
        return "hand-evaluation", f"player {expected.hand}->{actual.hand}"
    if copied:
        return "comparison", COPIED
    if not called:
        if (actual.ante, actual.call) != (expected.ante, expected.call):
            return "fold", "ante or call of a fold"
        return "fold-aa-bonus", "AA Bonus of a fold"
    if actual.aa_bonus != expected.aa_bonus:
        return aa_bonus_fault(seat, actual.aa_bonus)
    if actual.call[0] != expected.call[0]:
        return "call-stake", "call stake"
    ante_out, call_out = _outcome(expected.ante), _outcome(expected.call)
    same_outcomes = _outcome(actual.ante) == ante_out and _outcome(actual.call) == call_out
    if not want.dealer_qualifies and not same_outcomes:
        if _outcome(actual.ante) != ante_out:
            return "nonqualifying-ante", f"ante {ante_out} as {_outcome(actual.ante)}"
        return "nonqualifying-call", f"call {call_out} as {_outcome(actual.call)}"
    if not same_outcomes:
        hands = f"{seat.hand.wire} vs {want.dealer_hand.wire}"
        if call_out == "pushed":
            return "tie", hands
        if _outcome(actual.ante) == _outcome(actual.call):
            # The game settled the seat as one outcome, the wrong one: it compared the hands
            # otherwise than the rules (a kicker, a best five it chose wrongly).
            return "comparison", f"{hands}: {call_out} as {_outcome(actual.call)}"
        return ("player-wins" if call_out == "won" else "dealer-wins"), hands
    if actual.ante != expected.ante:
        return "ante-odds", f"ante {seat.hand.wire}"
    return "call-odds", f"call {seat.hand.wire}"


SEVEN_CARDS = "AA Bonus judged on the seven cards, not hole + flop"  # row 9's detail: one cause


def aa_bonus_fault(seat: SeatSettlement, paid: Pair | None) -> tuple[str, str]:
    """Rows 9 to 11 of the table, by the cards judged as well as the amount. The rules
    judge the AA Bonus on hole + flop (000 "Side bets"). A payment that is the pay
    table's own for the best five of the seven cards, where hole + flop pays otherwise,
    is those cards judged (`aa-bonus-hand`: five-card trips that became quads on the
    river, paid 40); any other amount where both sides pay is the hole + flop hand's row
    paid at other odds (`aa-bonus-odds`); a bet one side pays and the other does not is
    the hand judged to win or lose otherwise (`aa-bonus-hand`)."""
    row = seat.aa_hand.wire if seat.aa_hand is not None else "none"
    seven = seat.aa_bonus_on_seven
    if seven is not None and seven != seat.aa_bonus and paid == _owed(seven):
        return "aa-bonus-hand", SEVEN_CARDS
    if _outcome(_owed(seat.aa_bonus)) == "won" and _outcome(paid) == "won":
        return "aa-bonus-odds", f"AA Bonus {row}"
    return "aa-bonus-hand", f"AA Bonus {row}"
