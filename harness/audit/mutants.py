"""Production mutants: a correct round log changed the way a production fault would
change it, each with the one finding the audit must make of it (docs/audit.md,
Proving the audit). tests/test_audit.py runs every one against the audit: a mutant the
audit misses, or finds under another check, kind or clause, is a missing check.

A mutant works on rows as the reference game writes them (harness/reference/roundlog.py),
whole rounds in order, and changes the fewest rows that show its fault.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations, groupby

import numpy as np

from harness.rules.cards import FULL_DECK, Card, parse_card, parse_cards
from harness.rules.evaluator import evaluate_batch
from harness.rules.game import Action, Deal
from harness.rules.oracle import SeatPlay, settle
from harness.rules.profiles import Profile, load_profile

Row = dict[str, object]


@dataclass(frozen=True)
class Mutant:
    name: str
    change: Callable[[list[Row]], list[Row]]
    finds: tuple[str, str, str | None] | None  # (check, kind, clause); None: no finding
    declared: bool = False  # audited with the game's declaration (its table)
    why: str = ""
    also: tuple[tuple[str, str, str | None], ...] = ()  # the same fault, rightly seen again


def _rounds(rows: list[Row]) -> list[list[Row]]:
    return [list(g) for _, g in groupby(rows, key=lambda r: (r["table"], r["round"]))]


def _flat(rounds: list[list[Row]]) -> list[Row]:
    return [r for rnd in rounds for r in rnd]


def _int(row: Row, column: str) -> int:
    value = row[column]
    assert isinstance(value, int)
    return value


def rare_mispay(rows: list[Row]) -> list[Row]:
    """One ante the pay table pays above even money paid at even money."""
    rows = copy.deepcopy(rows)
    row = next(r for r in rows if _int(r, "ante_returned") > 2 * _int(r, "ante"))
    row["ante_returned"] = 2 * _int(row, "ante")
    return rows


def void_rounds(rows: list[Row]) -> list[Row]:
    """Every tenth round voided, every stake returned: correct, no finding."""
    rounds = copy.deepcopy(_rounds(rows))
    for rnd in rounds[::10]:
        for r in rnd:
            r["status"] = "void"
            for wager in ("ante", "call", "aa_bonus"):
                r[f"{wager}_returned"] = r[wager]
    return _flat(rounds)


def void_keeps_stake(rows: list[Row]) -> list[Row]:
    """A round voided with its first seat's ante kept."""
    rounds = copy.deepcopy(_rounds(rows))
    rnd = rounds[len(rounds) // 2]
    for r in rnd:
        r["status"] = "void"
        for wager in ("ante", "call", "aa_bonus"):
            r[f"{wager}_returned"] = r[wager]
    rnd[0]["ante_returned"] = 0
    return _flat(rounds)


def card_twice(rows: list[Row]) -> list[Row]:
    """A seat dealt the river card as one of its hole cards."""
    rounds = copy.deepcopy(_rounds(rows))
    rnd = next(r for r in rounds if len(r) >= 2)
    hole = str(rnd[1]["hole"])
    rnd[1]["hole"] = hole[:2] + str(rnd[1]["river"])
    return _flat(rounds)


def seats_disagree(rows: list[Row]) -> list[Row]:
    """One seat row of a round names another river than the round's other rows."""
    rounds = copy.deepcopy(_rounds(rows))
    rnd = next(r for r in rounds if len(r) >= 2)
    used = {str(r["hole"])[i : i + 2] for r in rnd for i in (0, 2)}
    used |= {str(rnd[0][c])[i : i + 2] for c in ("flop", "dealer") for i in (0, 2, 4)}
    used |= {str(rnd[0]["turn"]), str(rnd[0]["river"])}
    rnd[1]["river"] = next(str(c) for c in FULL_DECK if str(c) not in used)
    return _flat(rounds)


def round_repeated(rows: list[Row]) -> list[Row]:
    """The first round written again at the end, as a replayed message would be."""
    rounds = copy.deepcopy(_rounds(rows))
    again = copy.deepcopy(rounds[0])
    for r in again:
        r["time"] = rounds[-1][0]["time"]
    return _flat([*rounds, again])


def time_backwards(rows: list[Row]) -> list[Row]:
    """Two rounds of a table whose times are swapped (a clock set back)."""
    rounds = copy.deepcopy(_rounds(rows))
    a, b = rounds[3], rounds[4]
    ta, tb = a[0]["time"], b[0]["time"]
    for r in a:
        r["time"] = tb
    for r in b:
        r["time"] = ta
    return _flat(rounds)


def stake_outside_table(rows: list[Row]) -> list[Row]:
    """A round whose ante is above the declared table's maximum, settled as the rules
    settle that stake."""
    rows = copy.deepcopy(rows)
    row = next(r for r in rows if r["action"] == "fold" and not r["aa_bonus"])
    row["ante"] = 10**9  # a fold: its ante is lost, nothing else moves
    return rows


def _resettled(rnd: list[Row], profile: Profile) -> None:
    """A round's money made what the rules pay on its cards (after a mutant moved one)."""
    first = rnd[0]
    deal = Deal(
        {_int(r, "seat"): _two(str(r["hole"])) for r in rnd},
        _two(str(first["dealer"])),
        tuple(parse_cards(str(first["flop"]))),  # type: ignore[arg-type]
        parse_card(str(first["turn"])),
        parse_card(str(first["river"])),
    )
    plays = {
        _int(r, "seat"): SeatPlay(
            _int(r, "seat"), _int(r, "ante"), _int(r, "aa_bonus"), Action(str(r["action"]))
        )
        for r in rnd
    }
    want = settle(profile, deal, plays)
    for r in rnd:
        seat = want.seat(_int(r, "seat"))
        r["ante_returned"], r["call_returned"] = seat.ante.returned, seat.call.returned
        r["aa_bonus_returned"] = seat.aa_bonus.returned if seat.aa_bonus else 0


def _two(text: str) -> tuple[Card, Card]:
    first, second = parse_cards(text)
    return first, second


def biased_after_build_change(rows: list[Row]) -> list[Row]:
    """A new build, from half-way through the log, deals the ace of spades as the turn
    whenever the round's other cards leave it in the deck; every round settled as the
    rules pay its cards."""
    rounds = copy.deepcopy(_rounds(rows))
    profile = load_profile("standard")
    for rnd in rounds[len(rounds) // 2 :]:
        shown = "".join(str(rnd[0][c]) for c in ("flop", "turn", "river", "dealer"))
        shown += "".join(str(r["hole"]) for r in rnd)
        for r in rnd:
            r["build"] = "2.0"
        if "As" in [shown[i : i + 2] for i in range(0, len(shown), 2)]:
            continue
        for r in rnd:
            r["turn"] = "As"
        _resettled(rnd, profile)
    return _flat(rounds)


def leaked_dealer_cards(rows: list[Row]) -> list[Row]:
    """A client that shows the dealer's cards: every other seat that called into a dealer
    who beat it folds instead; every round settled as the rules pay it."""
    rounds = copy.deepcopy(_rounds(rows))
    profile = load_profile("standard")
    flip = False
    for rnd in rounds:
        changed = False
        for r in rnd:
            lost = r["action"] == "call" and r["ante_returned"] == 0 and r["call_returned"] == 0
            if lost:
                flip = not flip
                if flip:
                    r["action"], r["call"], changed = "fold", 0, True
        if changed:
            _resettled(rnd, profile)
    return _flat(rounds)


def adaptive_dealer(rows: list[Row]) -> list[Row]:
    """A game that, one round in four, deals the dealer a hand beating the first seat's
    call where the cards left allow one (an adaptive game); every round settled as the
    rules pay its cards."""
    rounds = copy.deepcopy(_rounds(rows))
    _adapt(rounds[::4])
    return _flat(rounds)


def adaptive_after_build_change(rows: list[Row]) -> list[Row]:
    """A new build, from half-way through the log, that one round in three deals the
    dealer a hand beating the first seat's call: the return falls from that day on."""
    rounds = copy.deepcopy(_rounds(rows))
    later = rounds[len(rounds) // 2 :]
    for rnd in later:
        for r in rnd:
            r["build"] = "2.0"
    _adapt(later[::3])
    return _flat(rounds)


def _adapt(rounds: list[list[Row]]) -> None:
    """Each round's dealer dealt a hand beating its first seat's call, where the cards
    left allow one, and the round settled as the rules pay it."""
    profile = load_profile("standard")
    for k, rnd in enumerate(rounds):
        first = min(rnd, key=lambda r: _int(r, "seat"))
        if first["action"] != "call":
            continue
        board = [c.index for n in ("flop", "turn", "river") for c in parse_cards(str(first[n]))]
        hole = [c.index for c in parse_cards(str(first["hole"]))]
        seen = {c.index for r in rnd for c in parse_cards(str(r["hole"]))} | set(board)
        pairs = [p for p in combinations(range(52), 2) if not seen & set(p)]
        random.Random(k).shuffle(pairs)  # which of the beating hands: none favoured
        hands = np.array([[*p, *board] for p in pairs], np.uint8)
        dealer = evaluate_batch(hands)
        player = int(evaluate_batch(np.array([[*hole, *board]], np.uint8))[0])
        beats = np.flatnonzero((dealer >= profile.qualifying_strength) & (dealer > player))
        if len(beats):
            chosen = pairs[int(beats[0])]
            for r in rnd:
                r["dealer"] = "".join(str(Card(c)) for c in chosen)
            _resettled(rnd, profile)


def malformed_amount(rows: list[Row]) -> list[Row]:
    """An amount with a fraction."""
    rows = copy.deepcopy(rows)
    rows[5]["ante_returned"] = 100.5
    return rows


MUTANTS = {
    m.name: m
    for m in (
        Mutant("rare-mispay", rare_mispay, ("settlement", "ante-odds", "s000-antewin"),
               why="one ante of a hand the pay table pays above 1 to 1 paid at 1 to 1"),
        Mutant("void-rounds", void_rounds, None, why="rounds voided correctly"),
        Mutant("void-keeps-stake", void_keeps_stake, ("integrity", "void-keeps-stake", None)),
        Mutant("card-twice", card_twice, ("integrity", "card-twice", "s000-r1")),
        Mutant("seats-disagree", seats_disagree, ("integrity", "seats-disagree", None)),
        Mutant("round-repeated", round_repeated, ("integrity", "round-repeated", None)),
        Mutant("time-backwards", time_backwards, ("integrity", "time-backwards", None)),
        Mutant("stake-outside-table", stake_outside_table,
               ("integrity", "stake-outside-table", "s000-r2"), declared=True),
        Mutant("malformed-amount", malformed_amount, ("integrity", "malformed-row", None)),
        Mutant("biased-after-build-change", biased_after_build_change,
               ("cards", "card-by-position", "s000-r1")),
        Mutant("adaptive-dealer", adaptive_dealer,
               ("return", "dealt-against-the-player", "s000-r1")),
        Mutant("adaptive-after-build-change", adaptive_after_build_change,
               ("drift", "return-drifts", "s000-r1"),
               also=(("return", "dealt-against-the-player", "s000-r1"),),
               why="the return falls from a day on (drift), and over the period (return)"),
        Mutant("leaked-dealer-cards", leaked_dealer_cards,
               ("leak", "decisions-follow-hidden-cards", "s000-r3")),
    )
}  # fmt: skip
