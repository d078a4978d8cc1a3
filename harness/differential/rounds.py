"""The rounds of a differential run, drawn from `--seed` (docs/differential.md).

A run's budget of seat-hands is split into shards (items that pytest-xdist can
spread over workers and hosts); each shard draws its rounds from its own stream
of the seed, so the same seed deals the same rounds on any machine, and a shard
replays alone. Each shard has two parts:

* stratified: one target seat-hand per round, chosen from biased pools so that
  every feasible stratum (harness/differential/strata.py) gets its share of the
  run's quota; the target seat calls; the other seats get random cards;
* uniform: rounds of random cards, which alone bound the fault rate a run finds
  (a fault in one hand in N_uniform is found with probability 0.99 at the rate
  `detectable_rate`).

Every seat decides by the exact optimal strategy except the target seat and a
share of random folds; stakes are drawn as players bet (STAKE_MIX: mostly the
minimum or near it, some at the maximum), inside the limits the game's table
declares, under its house rules, and below the most any round can pay inside
2^53 - 1 (`payable` in harness/rules/table.py): every amount a round produces is exact
for a game whose money is double precision.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from harness.differential.pools import select_stratified
from harness.differential.strata import aa_strata, card_strata, evaluate, strata_matrix
from harness.protocol.messages import SeatStakes, StackedCards, seat_stakes
from harness.rules.cards import FULL_DECK, Card
from harness.rules.evaluator import CATEGORY_SHIFT, Category
from harness.rules.game import Action, Deal
from harness.rules.oracle import SeatPlay
from harness.rules.profiles import Profile

QUOTA = 20  # seat-hands per stratum per run
SHARDS = 4  # items a run's budget is split into
RANDOM_FOLDS = 0.08  # share of non-target seats that fold whatever the strategy says
CONFIDENCE = 0.99

CallsWith = Callable[[tuple[Card, Card], tuple[Card, Card, Card]], bool]


@dataclass(frozen=True)
class Stakes:
    """The range of each wager the game's table takes and pays: the declared limits
    brought inside 2^53 - 1 (harness/checks/replies.py `playable_table`)."""

    ante: tuple[int, int]
    aa_bonus: tuple[int, int] | None  # None: no AA Bonus is offered
    aa_cap: int | None = None  # house rule: an AA Bonus at most this multiple of the ante


@dataclass(frozen=True)
class PlannedSeat:
    seat: int
    hole: tuple[Card, Card]
    ante: int
    aa_bonus: int
    action: Action


@dataclass(frozen=True)
class PlannedRound:
    """One stacked round: the cards, each seat's wagers and decision."""

    name: str  # e.g. "shard2-round17", stable for a seed
    stratified: bool
    seats: tuple[PlannedSeat, ...]
    dealer: tuple[Card, Card]
    flop: tuple[Card, Card, Card]
    turn: Card
    river: Card

    def deal(self) -> Deal:
        return Deal(
            {s.seat: s.hole for s in self.seats}, self.dealer, self.flop, self.turn, self.river
        )

    def plays(self) -> dict[int, SeatPlay]:
        return {s.seat: SeatPlay(s.seat, s.ante, s.aa_bonus, s.action) for s in self.seats}

    def wagers(self) -> list[SeatStakes]:
        return [seat_stakes(s.seat, s.ante, s.aa_bonus) for s in self.seats]

    def cards(self) -> StackedCards:
        """The `cards` of a `round` request that stacks this round."""
        return {
            "seats": {str(s.seat): [str(c) for c in s.hole] for s in self.seats},
            "dealer": [str(c) for c in self.dealer],
            "flop": [str(c) for c in self.flop],
            "turn": str(self.turn),
            "river": str(self.river),
        }


@dataclass
class ShardPlan:
    rounds: list[PlannedRound]
    uniform_seat_hands: int
    stratified_seat_hands: int
    strata: dict[str, int]  # seat-hands per wanted stratum in this shard


def feasible_strata(profile: Profile) -> list[str]:
    """The strata a run must fill: every cell that the qualifier allows, every structure,
    every kicker depth, every AA Bonus row of the profile, folds and stakes."""
    wanted = [k for k in card_strata() if not k.startswith("cell:") or cell_can_occur(profile, k)]
    wanted += [*aa_strata(profile), *plan_strata(profile)]
    return wanted


def cell_can_occur(profile: Profile, key: str) -> bool:
    """Whether a cell `cell:PLAYER/DEALER/q|nq` can be dealt.

    The dealer qualifies exactly when his hand reaches the qualifier. And a full house
    or four of a kind from two hole cards and five board cards needs a pair on the
    board, which both hands share: beside one, neither hand is a high card.
    """
    player, dealer, qualifies = (
        Category.from_wire(w) if w not in ("q", "nq") else w for w in key[5:].split("/")
    )
    assert isinstance(player, Category) and isinstance(dealer, Category)
    qualifier = profile.qualifying_strength >> CATEGORY_SHIFT
    if (qualifies == "q" and dealer < qualifier) or (qualifies == "nq" and dealer > qualifier):
        return False
    paired_board = {Category.FULL_HOUSE, Category.FOUR_OF_A_KIND}
    return not (
        (player in paired_board and dealer == Category.HIGH_CARD)
        or (dealer in paired_board and player == Category.HIGH_CARD)
    )


def plan_strata(profile: Profile) -> list[str]:
    keys = ["fold", "stake:ante-min", "stake:ante-max", "stake:ante-odd"]
    if profile.aa_table is not None:
        keys += ["fold+aa_bonus", "stake:aa_bonus-min", "stake:aa_bonus-max", "stake:aa_bonus-odd"]
    return keys


def detectable_rate(uniform_seat_hands: int) -> float:
    """The smallest per-hand fault rate found with probability 0.99 by N uniform hands."""
    if uniform_seat_hands <= 0:
        return 1.0
    return float(1 - (1 - CONFIDENCE) ** (1 / uniform_seat_hands))


def shard_budget(budget: int, shard: int, shards: int) -> int:
    return budget // shards + (1 if shard < budget % shards else 0)


def plan_shard(
    profile: Profile,
    *,
    seed: int,
    shard: int,
    shards: int,
    budget: int,
    seats: int,
    stakes: Stakes,
    calls_with: CallsWith,
    stratified_share: float = 0.5,
) -> ShardPlan:
    """The rounds of shard `shard` (0-based) of `shards`, for a run's `budget` of seat-hands."""
    rounds = list(
        draw_rounds(
            profile,
            seed=seed,
            shard=shard,
            shards=shards,
            budget=budget,
            seats=seats,
            stakes=stakes,
            calls_with=calls_with,
            stratified_share=stratified_share,
        )
    )
    return summarized(profile, rounds, stakes)


def summarized(profile: Profile, rounds: list[PlannedRound], stakes: Stakes) -> ShardPlan:
    """A shard's rounds with their seat-hands counted, by part and by stratum."""
    stratified = sum(len(r.seats) for r in rounds if r.stratified)
    uniform = sum(len(r.seats) for r in rounds) - stratified
    counts = count_strata(profile, rounds, feasible_strata(profile), stakes)
    return ShardPlan(rounds, uniform, stratified, counts)


def draw_rounds(
    profile: Profile,
    *,
    seed: int,
    shard: int,
    shards: int,
    budget: int,
    seats: int,
    stakes: Stakes,
    calls_with: CallsWith,
    stratified_share: float = 0.5,
) -> Iterator[PlannedRound]:
    """plan_shard's rounds one at a time, as they are drawn: the stratified part (its
    seat-hands selected from the pools first), then the uniform part. A caller plays
    the first while the later ones are drawn (harness/checks/differential.py)."""
    rng = np.random.default_rng([seed, zlib.crc32(b"differential"), shard, shards])
    own = shard_budget(budget, shard, shards)
    wanted = feasible_strata(profile)
    card_wanted = [k for k in wanted if k not in plan_strata(profile)]
    # The stratified part takes at most its share of the budget (half, by default): the
    # uniform part alone bounds the fault rate a run finds.
    room = max(1, int(own * stratified_share))
    targets, _ = select_stratified(rng, profile, math.ceil(QUOTA / shards), card_wanted, room)
    per_round = max(1, min(seats, room // max(1, len(targets.player))))
    number = 0
    used = 0
    for row in targets.cards:
        if used + per_round > room:
            break
        number += 1
        name = f"shard{shard + 1}-round{number}"
        yield _round(rng, profile, name, row, per_round, stakes, calls_with)
        used += per_round
    while used < own:
        n = min(seats, own - used)
        deck = rng.permutation(52).astype(np.uint8)
        number += 1
        name = f"shard{shard + 1}-round{number}"
        yield _round(rng, profile, name, None, n, stakes, calls_with, deck)
        used += n


def _round(
    rng: np.random.Generator,
    profile: Profile,
    name: str,
    target: npt.NDArray[np.uint8] | None,
    n: int,
    stakes: Stakes,
    calls_with: CallsWith,
    deck: npt.NDArray[np.uint8] | None = None,
) -> PlannedRound:
    """A round of `n` seats; with a `target` seat-hand, one random seat gets it and calls."""
    if target is not None:
        rest = np.setdiff1d(np.arange(52, dtype=np.uint8), target)
        others = rng.permutation(rest)
        hand_of = int(rng.integers(0, n))
        holes = [others[2 * k : 2 * k + 2] for k in range(n - 1)]
        holes.insert(hand_of, target[0:2])
        dealer, board = target[2:4], target[4:9]
    else:
        assert deck is not None
        hand_of = -1
        holes = [deck[2 * k : 2 * k + 2] for k in range(n)]
        dealer, board = deck[2 * n : 2 * n + 2], deck[2 * n + 2 : 2 * n + 7]
    b = _cards(board)
    flop = (b[0], b[1], b[2])
    seats = []
    for k, hole_ in enumerate(holes):
        hole = _cards(hole_)
        if k == hand_of:
            action = Action.CALL
        elif rng.random() < RANDOM_FOLDS:
            action = Action.FOLD
        else:
            action = Action.CALL if calls_with((hole[0], hole[1]), flop) else Action.FOLD
        aa = 0
        # The target seat always stakes an AA Bonus where one is offered: its row is a stratum.
        if stakes.aa_bonus is not None and (k == hand_of or rng.random() < 0.4):
            aa = _stake(rng, stakes.aa_bonus)
        ante = _stake(rng, stakes.ante)
        if stakes.aa_cap is not None and aa > stakes.aa_cap * ante:
            capped = stakes.aa_cap * ante
            aa = capped if stakes.aa_bonus and capped >= stakes.aa_bonus[0] else 0
        seats.append(PlannedSeat(k + 1, (hole[0], hole[1]), ante, aa, action))
    d = _cards(dealer)
    return PlannedRound(
        name, target is not None, tuple(seats), (d[0], d[1]), (b[0], b[1], b[2]), b[3], b[4]
    )


def _cards(indices: npt.NDArray[np.uint8]) -> tuple[Card, ...]:
    return tuple(FULL_DECK[i] for i in indices.tolist())


# How a wager's stake is drawn (docs/differential.md, "Stakes"): as players bet, most at
# the low end of the table, some at the most it pays. Each share is of the draws; "low" is
# up to LOW_END times the minimum, "wide" is spread evenly over the orders of magnitude of
# the whole range; "low" and "wide" amounts are made odd where that stays inside.
STAKE_MIX = (("min", 0.40), ("max", 0.15), ("low", 0.35), ("wide", 0.10))
LOW_END = 10


def _stake(rng: np.random.Generator, bounds: tuple[int, int]) -> int:
    """One stake inside `bounds` (the payable range of a wager: harness/rules/table.py,
    `payable`), drawn by STAKE_MIX with one draw of the stream for the kind and, for a low
    or wide one, one for the amount: the minimum, the maximum, a low amount or one
    anywhere on a log scale."""
    lo, hi = bounds
    pick = rng.random()
    if pick < STAKE_MIX[0][1] or lo == hi:
        return lo
    pick -= STAKE_MIX[0][1]
    if pick < STAKE_MIX[1][1]:
        return hi
    pick -= STAKE_MIX[1][1]
    if pick < STAKE_MIX[2][1]:
        amount = int(rng.integers(lo, min(hi, LOW_END * lo) + 1))
    else:  # log-uniform over lo..hi: every order of magnitude the range spans alike
        amount = min(hi, max(lo, round(lo * (hi / lo) ** float(rng.random()))))
    return amount if amount % 2 or amount == hi else amount + 1


def stake_kind(amount: int, bounds: tuple[int, int]) -> str | None:
    lo, hi = bounds
    if amount == lo:
        return "min"
    if amount == hi:
        return "max"
    return "odd" if amount % 2 else None


def count_strata(
    profile: Profile, rounds: list[PlannedRound], wanted: list[str], stakes: Stakes
) -> dict[str, int]:
    """Seat-hands per wanted stratum: cards for the seats that called, AA Bonus rows for
    the seats that staked one, and folds and stakes from the plan."""
    counts = dict.fromkeys(wanted, 0)
    rows = [
        [
            s.hole[0].index,
            s.hole[1].index,
            r.dealer[0].index,
            r.dealer[1].index,
            *(c.index for c in r.flop),
            r.turn.index,
            r.river.index,
        ]
        for r in rounds
        for s in r.seats
    ]
    if not rows:
        return counts
    seats = [s for r in rounds for s in r.seats]
    called = np.array([s.action is Action.CALL for s in seats])
    with_aa = np.array([s.aa_bonus > 0 for s in seats])
    keys, member = strata_matrix(evaluate(np.array(rows, np.uint8)), profile, called)
    for k, column in zip(keys, member.T, strict=True):
        if k in counts:
            counts[k] += int((column & with_aa).sum() if k.startswith("aa:") else column.sum())
    counts["fold"] = int((~called).sum())
    if "fold+aa_bonus" in counts:
        counts["fold+aa_bonus"] = int((~called & with_aa).sum())
    for s in seats:
        for wager, amount, bounds in (
            ("ante", s.ante, stakes.ante),
            ("aa_bonus", s.aa_bonus, stakes.aa_bonus),
        ):
            kind = stake_kind(amount, bounds) if amount and bounds else None
            if kind and f"stake:{wager}-{kind}" in counts:
                counts[f"stake:{wager}-{kind}"] += 1
    return counts
