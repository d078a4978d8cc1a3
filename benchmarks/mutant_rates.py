"""How often each mutant's settlement differs from the rules oracle on uniform random deals.

Run on demand (not a test):

    python3 benchmarks/mutant_rates.py [-n N] [--seed S] [--stakes fixed|random] [-j JOBS] [NAME...]

Every deal is one seat against the dealer: hole cards, dealer's cards and board drawn
uniformly from one deck; ante 100 and AA Bonus 100 (`--stakes random`: each uniform
within the standard profile's limits); the seat always calls. The game object (the
mutant class built with the `standard` profile) is played in-process through its
protocol methods `round`, `act` and `result`, and its settlement is compared with
`harness.rules.oracle.settle` on the same cards. A seat-hand differs in money when any
wager's stake or return differs, and differs at all when, besides, the seat's hand
name, the dealer's hand name or the dealer's qualification differs.

Printed per mutant: the seat-hands differing at all and in money, as a fraction and
as "1 in X". The reference game must differ in none. Mutants whose fault is outside
settlement (information, wager checks, dealing, events, history) are not played.
Every mutant plays the same deals, so the figures compare with one another.
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
from reference_workload import bracketed

from harness.reference.engine import ReferenceGame
from harness.reference.mutants import MUTANTS
from harness.reference.mutants.hands import _evaluate
from harness.rules.cards import Card, format_cards
from harness.rules.evaluator import evaluate_batch
from harness.rules.game import Action, Deal
from harness.rules.oracle import SeatPlay, Settlement, settle
from harness.rules.profiles import load_profile

PROFILE = "standard"

# Faults outside settlement: the rounds below settle exactly as the reference's.
NOT_PLAYED = {
    "leaks-dealer-cards": "information",
    "accepts-aa-bonus-without-ante": "wager checks",
    "ignores-ante-maximum": "wager checks",
    "swaps-turn-and-river": "dealing (the same seven cards)",
    "duplicate-card-in-shuffle": "shuffle op",
    "deals-a-card-twice": "game's own shuffle",
    "aa-settled-after-river": "event order",
    "history-forgets": "history op",
}
# Played, but these deals cannot show the fault.
BLIND_SPOT = {
    "fold-keeps-aa-bonus": "fold only; the seat always calls",
    "fold-forfeits-aa-bonus": "source-004's rule; standard forfeits anyway",
    "first-seat-hand-for-all": "needs two or more seats",
    "ante-win-in-floating-point": "odd stakes only; try --stakes random",
}

# One seat-hand's outcome: wagers as (stake, returned), then the names.
Outcome = tuple[tuple[int, int], tuple[int, int], tuple[int, int], str, str, bool]


@dataclass(frozen=True)
class Deals:
    cards: list[dict[str, Any]]
    stakes: list[tuple[int, int]]
    expected: list[Outcome]


def draw(n: int, seed: int, random_stakes: bool) -> Deals:
    """`n` single-seat deals and what the oracle settles for each, from one seed."""
    rng = np.random.default_rng(seed)
    profile = load_profile(PROFILE)
    rows = rng.permuted(np.tile(np.arange(52, dtype=np.uint8), (n, 1)), axis=1)[:, :9]
    if random_stakes:
        antes = rng.integers(profile.limits.ante[0], profile.limits.ante[1] + 1, n)
        bonuses = rng.integers(profile.limits.aa_bonus[0], profile.limits.aa_bonus[1] + 1, n)
    else:
        antes = np.full(n, 100)
        bonuses = np.full(n, 100)
    cards, stakes, expected = [], [], []
    for row, ante, bonus in zip(rows, antes, bonuses, strict=True):
        hole, dealer, flop, turn, river = (
            (Card(int(row[0])), Card(int(row[1]))),
            (Card(int(row[2])), Card(int(row[3]))),
            (Card(int(row[4])), Card(int(row[5])), Card(int(row[6]))),
            Card(int(row[7])),
            Card(int(row[8])),
        )
        cards.append(
            {
                "seats": {"1": format_cards(hole)},
                "dealer": format_cards(dealer),
                "flop": format_cards(flop),
                "turn": str(turn),
                "river": str(river),
            }
        )
        stakes.append((int(ante), int(bonus)))
        want = settle(
            profile,
            Deal({1: hole}, dealer, flop, turn, river),
            {1: SeatPlay(1, int(ante), int(bonus), Action.CALL)},
        )
        expected.append(_oracle_outcome(want))
    return Deals(cards, stakes, expected)


def _oracle_outcome(want: Settlement) -> Outcome:
    seat = want.seat(1)
    assert seat.aa_bonus is not None
    return (
        (seat.ante.stake, seat.ante.returned),
        (seat.call.stake, seat.call.returned),
        (seat.aa_bonus.stake, seat.aa_bonus.returned),
        seat.hand.wire,
        want.dealer_hand.wire,
        want.dealer_qualifies,
    )


def _game_outcome(result: dict[str, Any]) -> Outcome:
    (seat,) = result["seats"]
    wagers = seat["wagers"]
    pairs = [(wagers[w]["stake"], wagers[w]["returned"]) for w in ("ante", "call", "aa_bonus")]
    dealer = result["dealer"]
    return (pairs[0], pairs[1], pairs[2], seat["hand"], dealer["hand"], dealer["qualifies"])


_DEALS: Deals | None = None


def _load(deals: Deals) -> None:
    global _DEALS
    _DEALS = deals


def play(name: str) -> tuple[str, int, int, int, float]:
    """(name, seat-hands differing at all, in money, raising, seconds) over the loaded deals."""
    assert _DEALS is not None
    factory = ReferenceGame if name == "reference" else MUTANTS[name]
    game = factory(PROFILE)
    started = time.perf_counter()
    differ = money = errors = 0
    for cards, (ante, bonus), want in zip(
        _DEALS.cards, _DEALS.stakes, _DEALS.expected, strict=True
    ):
        try:
            reply = game.round(seats=[{"seat": 1, "ante": ante, "aa_bonus": bonus}], cards=cards)
            game.act(round=reply["round"], seat=1, action="call")
            got = _game_outcome(game.result(round=reply["round"]))
        except Exception:  # a mutant that breaks on a deal counts apart, on a fresh table
            errors += 1
            game = factory(PROFILE)
            continue
        if got != want:
            differ += 1
            money += got[:3] != want[:3]
    return name, differ, money, errors, time.perf_counter() - started


def check_python_evaluator(deals: Deals) -> int:
    """Seven-card hands on which the mutants' plain-Python evaluator differs from the
    proved one (it must be none: the mutants change only its faulty piece)."""
    hands = []
    for cards in deals.cards:
        board = [*cards["flop"], cards["turn"], cards["river"]]
        hands += [[*cards["seats"]["1"], *board], [*cards["dealer"], *board]]
    parsed = [[_card(t) for t in hand] for hand in hands]
    proved = evaluate_batch(np.array([[c.index for c in h] for h in parsed], np.uint8))
    return sum(_evaluate(h) != int(s) for h, s in zip(parsed, proved, strict=True))


def _card(text: str) -> Card:
    return Card(4 * "23456789TJQKA".index(text[0]) + "cdhs".index(text[1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=100_000, help="deals (default 100,000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--stakes", choices=["fixed", "random"], default="fixed")
    parser.add_argument("-j", "--jobs", type=int, default=2, help="worker processes")
    parser.add_argument("mutants", nargs="*", help="only these (default: every one played)")
    args = parser.parse_args()
    names = [m for m in args.mutants or MUTANTS if m not in NOT_PLAYED and m != "reference"]

    started = time.perf_counter()
    deals = draw(args.n, args.seed, args.stakes == "random")
    stakes = "ante 100, AA Bonus 100" if args.stakes == "fixed" else "stakes uniform in limits"
    print(f"{args.n:,} uniform single-seat deals, seed {args.seed}, {stakes}, always call")
    print(f"dealt and settled by the oracle in {time.perf_counter() - started:.1f} s")
    wrong = check_python_evaluator(deals)
    print(f"mutants' plain-Python evaluator differs from strength_of on {wrong} hands")
    print()
    print(f"{'game':<40} {'differ':>8} {'fraction':>9} {'1 in':>8} {'money':>8} {'1 in':>8}")
    with ProcessPoolExecutor(args.jobs, initializer=_load, initargs=(deals,)) as pool:
        for name, differ, money, errors, seconds in pool.map(play, ["reference", *names]):
            row = f"{name:<40} {differ:>8,} {differ / args.n:>9.5f} {_one_in(differ, args.n):>8}"
            row += f" {money:>8,} {_one_in(money, args.n):>8}"
            notes = [f"{errors:,} deals raised"] if errors else []
            if name in BLIND_SPOT and not differ:
                notes.append(BLIND_SPOT[name])
            print(row + (f"  ({'; '.join(notes)})" if notes else "") + f"  [{seconds:.0f} s]")
    for name in args.mutants or NOT_PLAYED:
        if name in NOT_PLAYED:
            print(f"{name:<40} not played: {NOT_PLAYED[name]}")


def _one_in(count: int, n: int) -> str:
    return f"{n / count:,.0f}" if count else "-"


if __name__ == "__main__":
    with bracketed():  # the reference workload, which travels between machines
        main()
