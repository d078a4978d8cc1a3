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

import msgspec
import numpy as np
import numpy.typing as npt

from harness.differential.pools import select_stratified
from harness.differential.strata import aa_strata, card_strata, evaluate, strata_matrix
from harness.protocol.messages import SeatStakes, StackedCards, seat_stakes
from harness.rules.batch import Seats
from harness.rules.cards import FULL_DECK, Card, format_cards
from harness.rules.evaluator import CATEGORY_SHIFT, Category
from harness.rules.game import MAX_SEATS, Action, Deal
from harness.rules.oracle import SeatPlay
from harness.rules.profiles import Profile

QUOTA = 20  # seat-hands per stratum per run
SHARDS = 4  # items a run's budget is split into
RANDOM_FOLDS = 0.08  # share of non-target seats that fold whatever the strategy says
CONFIDENCE = 0.99

# The strategy's decisions for many seats: hole cards (n, 2) and flops (n, 3), as card
# indices, to True where the seat calls (harness/gamemath/strategy.py `calls_for`).
CallsWith = Callable[[npt.NDArray[np.uint8], npt.NDArray[np.uint8]], npt.NDArray[np.bool_]]


@dataclass(frozen=True)
class Stakes:
    """The range of each wager the game's table takes and pays: the declared limits
    brought inside 2^53 - 1 (harness/checks/replies.py `playable_table`)."""

    ante: tuple[int, int]
    aa_bonus: tuple[int, int] | None  # None: no AA Bonus is offered
    aa_cap: int | None = None  # house rule: an AA Bonus at most this multiple of the ante


class PlannedSeat(msgspec.Struct, frozen=True):
    seat: int
    hole: tuple[Card, Card]
    ante: int
    aa_bonus: int
    action: Action


class PlannedRound(msgspec.Struct, frozen=True):
    """One stacked round: the cards, each seat's wagers and decision (a struct: tens of
    thousands are made a shard, msgspec.structs.replace changes one)."""

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
            "seats": {str(s.seat): format_cards(s.hole) for s in self.seats},
            "dealer": format_cards(self.dealer),
            "flop": format_cards(self.flop),
            "turn": str(self.turn),
            "river": str(self.river),
        }


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
    """The rounds of shard `shard` (0-based) of `shards`, for a run's `budget` of
    seat-hands, one at a time, as they are drawn: the stratified part (its
    seat-hands selected from the pools first), then the uniform part, UNIFORM_CHUNK
    rounds at a time. A caller plays the first while the later ones are drawn
    (harness/checks/differential.py)."""
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
        yield _stratified_round(rng, name, row, per_round, stakes, calls_with)
        used += per_round
    while used < own:
        sizes: list[int] = []
        while used < own and len(sizes) < UNIFORM_CHUNK:
            sizes.append(min(seats, own - used))
            used += sizes[-1]
        names = [f"shard{shard + 1}-round{number + k}" for k in range(1, len(sizes) + 1)]
        number += len(sizes)
        yield from _uniform_rounds(rng, names, sizes, seats, stakes, calls_with)


UNIFORM_CHUNK = 64  # uniform rounds drawn together, by one call of the stream for each draw


def _stratified_round(
    rng: np.random.Generator,
    name: str,
    target: npt.NDArray[np.uint8],
    n: int,
    stakes: Stakes,
    calls_with: CallsWith,
) -> PlannedRound:
    """A round of `n` seats, one random seat given the `target` seat-hand (its hole,
    the dealer's cards and the board), calling; the others dealt from the rest."""
    rest = np.setdiff1d(np.arange(52, dtype=np.uint8), target)
    others = rng.permutation(rest)
    hand_of = int(rng.integers(0, n))
    holes = [others[2 * k : 2 * k + 2] for k in range(n - 1)]
    holes.insert(hand_of, target[0:2])
    dealer, board = target[2:4], target[4:9]
    strategy = calls_with(np.array(holes, np.uint8), np.tile(board[:3], (n, 1)))
    b = _cards(board)
    seats = []
    for k, hole_ in enumerate(holes):
        hole = _cards(hole_)
        if k == hand_of:
            action = Action.CALL
        elif rng.random() < RANDOM_FOLDS:
            action = Action.FOLD
        else:
            action = Action.CALL if strategy[k] else Action.FOLD
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
    return PlannedRound(name, True, tuple(seats), (d[0], d[1]), (b[0], b[1], b[2]), b[3], b[4])


def _uniform_rounds(
    rng: np.random.Generator,
    names: list[str],
    sizes: list[int],
    seats: int,
    stakes: Stakes,
    calls_with: CallsWith,
) -> list[PlannedRound]:
    """Rounds of random cards, one of `sizes[r]` seats for each r, every draw made for
    all of them at once: the decks, then each seat's random fold, AA Bonus and stakes as
    `_stratified_round` draws them one by one (docs/differential.md, "Rounds").
    Each round deals its seats from the top of its deck, the dealer's two cards from
    positions 15 and 16 and the board from 17 to 21, whatever its number of seats."""
    count = len(sizes)
    decks = rng.permuted(np.tile(np.arange(52, dtype=np.uint8), (count, 1)), axis=1)
    holes = decks[:, : 2 * MAX_SEATS].reshape(count, MAX_SEATS, 2)[:, :seats]
    dealers, boards = decks[:, 2 * MAX_SEATS : 2 * MAX_SEATS + 2], decks[:, 2 * MAX_SEATS + 2 :]
    folds = rng.random((count, seats)) < RANDOM_FOLDS
    strategy = calls_with(holes.reshape(-1, 2), np.repeat(boards[:, :3], seats, axis=0))
    calls = strategy.reshape(count, seats) & ~folds
    aa = np.zeros((count, seats), np.int64)
    if stakes.aa_bonus is not None:
        staked = rng.random((count, seats)) < 0.4
        aa = np.where(staked, _stakes(rng, stakes.aa_bonus, (count, seats)), 0)
    ante = _stakes(rng, stakes.ante, (count, seats))
    if stakes.aa_cap is not None and stakes.aa_bonus is not None:
        capped = stakes.aa_cap * ante
        aa = np.where(aa > capped, np.where(capped >= stakes.aa_bonus[0], capped, 0), aa)
    found = []
    for r, (name, n) in enumerate(zip(names, sizes, strict=True)):
        b = _cards(boards[r, :5])
        d = _cards(dealers[r])
        dealt = [
            PlannedSeat(k + 1, (FULL_DECK[h[0]], FULL_DECK[h[1]]), a, x, CALL if c else FOLD)
            for k, (h, a, x, c) in enumerate(
                zip(
                    holes[r, :n].tolist(),
                    ante[r, :n].tolist(),
                    aa[r, :n].tolist(),
                    calls[r, :n].tolist(),
                    strict=True,
                )
            )
        ]
        found.append(
            PlannedRound(name, False, tuple(dealt), (d[0], d[1]), (b[0], b[1], b[2]), b[3], b[4])
        )
    return found


CALL, FOLD = Action.CALL, Action.FOLD


def seats_of(rounds: list[PlannedRound]) -> tuple[Seats, list[bool]]:
    """The rounds' seats as one batch for harness/rules/batch.py, in the rounds' order
    and each round's seat order, with whether each round's cards are distinct (a round
    whose are not is the oracle's to refuse, not the batch's to settle)."""
    seats = np.array(
        [
            (s.hole[0].index, s.hole[1].index, r, s.ante, s.aa_bonus, s.action is Action.CALL)
            for r, rnd in enumerate(rounds)
            for s in rnd.seats
        ],
        np.int64,
    ).reshape(-1, 6)
    dealers = np.array(
        [[c.index for c in (*rnd.dealer, *rnd.flop, rnd.turn, rnd.river)] for rnd in rounds],
        np.uint8,
    ).reshape(-1, 7)
    holes, row = seats[:, :2].astype(np.uint8), seats[:, 2]
    boards = dealers[row, 2:]
    # Distinct: the cards of each round, as bits, number 7 and two a seat.
    bit = np.left_shift(np.uint64(1), holes.astype(np.uint64))
    held = np.zeros(len(rounds), np.uint64)
    np.bitwise_or.at(held, row, bit[:, 0] | bit[:, 1])
    held |= np.bitwise_or.reduce(np.left_shift(np.uint64(1), dealers.astype(np.uint64)), axis=1)
    sizes = np.bincount(row, minlength=len(rounds))
    batch = Seats(
        seven=np.concatenate([holes, boards], axis=1),
        five=np.concatenate([holes, boards[:, :3]], axis=1),
        dealer_row=row.astype(np.intp),
        ante=seats[:, 3],
        aa_bonus=seats[:, 4],
        called=seats[:, 5] == 1,
        dealers=dealers,
    )
    return batch, (np.bitwise_count(held) == 7 + 2 * sizes).tolist()


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


def _stakes(
    rng: np.random.Generator, bounds: tuple[int, int], shape: tuple[int, int]
) -> npt.NDArray[np.int64]:
    """`_stake` for many wagers at once: the same mix of kinds and amounts, each drawn
    by one call of the stream for all of them (the kind, a low amount, a point on the
    log scale), whichever the kind turns out."""
    lo, hi = bounds
    pick = rng.random(shape)
    low = rng.integers(lo, min(hi, LOW_END * lo) + 1, size=shape, dtype=np.int64)
    wide = np.round(lo * (hi / lo) ** rng.random(shape))
    wide = np.minimum(hi, np.maximum(lo, wide.astype(np.int64)))
    cut = np.cumsum([share for _, share in STAKE_MIX])
    amount = np.where(pick < cut[2], low, wide)
    amount = np.where((amount % 2 == 1) | (amount == hi), amount, amount + 1)
    amount = np.where(pick < cut[1], hi, amount)
    return np.where((pick < cut[0]) | (lo == hi), lo, amount)


def count_strata(
    profile: Profile, drawn: list[Seats], wanted: list[str], stakes: Stakes
) -> dict[str, int]:
    """Seat-hands per wanted stratum, over batches of seats (seats_of): cards for the
    seats that called, AA Bonus rows for the seats that staked one, and folds and stakes
    from the plan."""
    counts = dict.fromkeys(wanted, 0)
    if not drawn:
        return counts
    rows = np.concatenate(
        [
            np.concatenate([s.seven[:, :2], s.dealers[s.dealer_row, :2], s.seven[:, 2:]], axis=1)
            for s in drawn
        ]
    )
    called = np.concatenate([s.called for s in drawn])
    ante = np.concatenate([s.ante for s in drawn])
    aa = np.concatenate([s.aa_bonus for s in drawn])
    with_aa = aa > 0
    keys, member = strata_matrix(evaluate(rows), profile, called)
    every = member.sum(axis=0).tolist()
    with_aa_bonus = (member & with_aa[:, None]).sum(axis=0).tolist()
    for k, n, aa_n in zip(keys, every, with_aa_bonus, strict=True):
        if k in counts:
            counts[k] += aa_n if k.startswith("aa:") else n
    counts["fold"] = int((~called).sum())
    if "fold+aa_bonus" in counts:
        counts["fold+aa_bonus"] = int((~called & with_aa).sum())
    for wager, amount, bounds in (("ante", ante, stakes.ante), ("aa_bonus", aa, stakes.aa_bonus)):
        if bounds is None:
            continue
        lo, hi = bounds  # a staked wager at the minimum, at the maximum, or odd between
        kinds = {
            "min": amount == lo,
            "max": (amount == hi) & (amount != lo),
            "odd": (amount % 2 == 1) & (amount != lo) & (amount != hi),
        }
        for kind, hit in kinds.items():
            if f"stake:{wager}-{kind}" in counts:
                counts[f"stake:{wager}-{kind}"] += int((hit & (amount > 0)).sum())
    return counts
