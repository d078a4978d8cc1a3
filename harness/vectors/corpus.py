"""The generated corpus: `chcert vectors generate` writes vectors/generated/ (docs/corpus.md).

Hand-worked vectors are the evidence each clause cites; the corpus adds thousands
of rounds that cover the strata of the differential (harness/differential/strata.py)
for every profile, so that every certification replays them. Generation is
deterministic (a versioned generator, a fixed seed): CI regenerates the files and
compares them byte for byte. Expected values come from the rules oracle, and
every hand's category and every comparison is cross-checked against eval7, an
independent, maintained evaluator; a disagreement stops generation.

Each vector is one seat against the dealer and is attributed, by the decision
table of docs/differential.md, to the clause whose rule settles it: a fold, a
non-qualifying dealer, or the player winning, tying or losing against a
qualifying one. Its flags say which strata it covers; their meaning is in the
file's `notes`, and the flag list is in docs/corpus.md.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from harness.defaults import available_profiles
from harness.differential.rounds import PlannedRound, Stakes, draw_rounds
from harness.differential.strata import SEAT_HAND, evaluate, strata_matrix
from harness.errors import HarnessFault, UserError
from harness.paths import VECTORS_DIR
from harness.rules.cards import Card
from harness.rules.catalogs import fault_owners, load_catalogs
from harness.rules.evaluator import Category, strength_of
from harness.rules.game import Action
from harness.rules.oracle import Settlement, settle
from harness.rules.profiles import Profile, load_profile

CORPUS_DIR = VECTORS_DIR / "generated"
GENERATOR = "chcert-corpus-3"  # bump when the same seed would give other vectors
SEED = 20261130
PER_PROFILE = 2_500
# The stakes the corpus is written at: no rules source gives table limits, so these are
# the generator's, and a run plays each vector at the game's own table (harness/rules/table.py).
STAKES = Stakes(ante=(100, 50_000), aa_bonus=(100, 25_000))

_WORDS = {5: "Five", 6: "Six", 7: "Seven"}


class CorpusError(HarnessFault):
    """Generation stopped: the oracle's evaluator and eval7 disagree on a hand."""


class CorpusMismatch(UserError):
    """`--check`: the stored corpus is not what the generator writes."""


def flag_of(stratum: str) -> tuple[str, str] | None:
    """The flag a stratum gives a vector, and what the flag means (None: no flag; cells
    show in the expected hand names and qualification already)."""
    kind, _, value = stratum.partition(":")
    if kind == "ranks":
        p, t, q = value[1], value[3], value[5]
        return (
            f"Pairs{p}Trips{t}Quads{q}",
            f"Among the player's seven cards: {p} pair(s), {t} three(s) of a kind, "
            f"{q} four of a kind.",
        )
    if kind == "suited":
        return (
            f"{_WORDS[int(value)]}Suited",
            f"{value} of the player's seven cards are of one suit.",
        )
    if kind == "straight":
        height, _, paired = value.partition("+")
        name = "Wheel" if height == "5" else f"StraightTo{height}"
        inside = "with" if paired else "without"
        return (
            f"{name}{'Paired' if paired else ''}",
            f"The player's seven cards hold a straight to {height} (5: the wheel, A-2-3-4-5), "
            f"{inside} a pair among its five ranks.",
        )
    if stratum == "board-plays":
        return "BoardPlays", "The player's best five cards are the board's five."
    if stratum == "counterfeit":
        return (
            "Counterfeited",
            "A hole card that paired the other or the flop does not play in the final hand.",
        )
    if kind == "kicker":
        if value == "tie":
            return "ExactTie", "Same category and same five ranks against a qualifying dealer."
        return (
            f"DecidedAtRank{value}",
            f"Same category against a qualifying dealer; rank {value} of the five ranks of "
            "significance decides.",
        )
    if kind == "aa":
        words = "".join(w.capitalize() for w in value.split("_"))
        return f"AaBonus{words}", f"The AA Bonus hand (hole cards and flop) is in row {value}."
    return None


def generate_corpus(
    directory: Path = CORPUS_DIR,
    *,
    check: bool = False,
    profiles: list[str] | None = None,
    progress: Callable[[str], None] = lambda _: None,
) -> dict[str, Any]:
    """Write (or, with `check`, compare) one file per profile (every bundled one unless
    `profiles` names some); a summary of the counts.

    Raises CorpusError when eval7 disagrees, CorpusMismatch when `check` finds the
    stored files differ from what this generator writes.
    """
    catalogs = load_catalogs()
    summary: dict[str, Any] = {"generator": GENERATOR, "seed": SEED, "profiles": {}}
    differ = []
    for name in profiles or available_profiles():
        profile = load_profile(name)
        clauses = [
            c for cat in catalogs if cat.name in profile.catalogs for c in cat.for_profile(name)
        ]
        progress(f"generating {PER_PROFILE:,} vectors for {name}")
        text, counts = _profile_file(profile, fault_owners(clauses))
        path = directory / f"{name}.json"
        summary["profiles"][name] = counts
        if check:
            stored = path.read_text(encoding="utf-8") if path.exists() else None
            if stored != text:
                differ.append(path.name)
        else:
            directory.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    if check:
        expected = {f"{n}.json" for n in available_profiles()}
        extra = sorted(p.name for p in directory.glob("*.json") if p.name not in expected)
        extra = extra if profiles is None else []
        if differ or extra:
            raise CorpusMismatch(
                f"{directory}: regenerating does not reproduce the stored corpus "
                f"(differs: {', '.join(differ) or 'none'}; "
                f"not generated: {', '.join(extra) or 'none'}); "
                "run `chcert vectors generate` and commit the result"
            )
    summary["vectors"] = sum(c["vectors"] for c in summary["profiles"].values())
    return summary


def _profile_file(profile: Profile, owners: dict[str, str]) -> tuple[str, dict[str, Any]]:
    aa = STAKES.aa_bonus if profile.aa_table is not None else None
    drawn = draw_rounds(
        profile,
        seed=SEED,
        shard=0,
        shards=1,
        budget=PER_PROFILE,
        seats=1,
        stakes=Stakes(STAKES.ante, aa),
        calls_with=lambda holes, flops: np.ones(len(holes), np.bool_),  # calls, bar random folds
        stratified_share=1.0,  # the corpus is for breadth; the differential bounds rates
    )
    rounds = list(drawn)
    flags_of = _flags(profile, rounds)
    notes: dict[str, str] = {}
    tests = []
    by_clause: Counter[str] = Counter()
    by_flag: Counter[str] = Counter()
    for number, rnd in enumerate(rounds):
        want = settle(profile, rnd.deal(), rnd.plays())
        _cross_check(profile, rnd, want)
        clause = owners[_deciding_kind(want)]
        flags = []
        for flag, meaning in flags_of[number]:
            notes[flag] = meaning
            flags.append(flag)
        test = _test(f"gen-{profile.name}-{number + 1:05d}", clause, rnd, want, flags)
        tests.append(test)
        by_clause[clause] += 1
        by_flag.update(flags)
    notes = dict(sorted(notes.items()))
    lines = [
        "{",
        '"schema": "settlement-vectors.schema.json",',
        f'"header": {json.dumps(_header(profile))},',
        f'"notes": {json.dumps(notes, sort_keys=True)},',
        f'"groups": [{{"profiles": [{json.dumps(profile.name)}], "tests": [',
        ",\n".join(json.dumps(t, separators=(",", ":")) for t in tests),
        "]}]",
        "}",
    ]
    counts = {
        "vectors": len(tests),
        "clauses": dict(sorted(by_clause.items())),
        "flags": dict(sorted(by_flag.items())),
    }
    return "\n".join(lines) + "\n", counts


def _header(profile: Profile) -> str:
    return (
        f"Generated by `chcert vectors generate` ({GENERATOR}, seed {SEED}) for profile "
        f"{profile.name}: one seat against the dealer per vector, stratified over the cells "
        "and structures of docs/differential.md, then uniform deals. Expected values are the "
        "rules oracle's (harness/rules/oracle.py), every hand cross-checked with eval7. Do not "
        "edit: regenerate."
    )


def _flags(profile: Profile, rounds: list[PlannedRound]) -> list[list[tuple[str, str]]]:
    """Each round's flags: the strata of its seat-hand, its part, its decision and stakes."""
    cards = np.array(
        [
            [
                *(c.index for c in r.seats[0].hole),
                *(c.index for c in r.dealer),
                *(c.index for c in r.flop),
                r.turn.index,
                r.river.index,
            ]
            for r in rounds
        ],
        np.uint8,
    ).reshape(-1, len(SEAT_HAND))
    called = np.array([r.seats[0].action is Action.CALL for r in rounds], np.bool_)
    keys, member = strata_matrix(evaluate(cards), profile, called)
    found = []
    for i, rnd in enumerate(rounds):
        seat = rnd.seats[0]
        strata = [k for k, on in zip(keys, member[i], strict=True) if on]
        flags = [
            flag
            for flag in map(flag_of, strata)
            if flag is not None and (not flag[0].startswith("AaBonus") or seat.aa_bonus)
        ]
        flags.append(
            ("Stratified", "Chosen to fill a stratum (docs/differential.md).")
            if rnd.stratified
            else ("Uniform", "Dealt from the whole deck.")
        )
        if seat.action is Action.FOLD:
            flags.append(("Fold", "The seat folds."))
        lo, hi = STAKES.ante
        if seat.ante in (lo, hi) or seat.ante % 2:
            which = "Minimum" if seat.ante == lo else "Maximum" if seat.ante == hi else "Odd"
            flags.append(
                (f"Ante{which}", f"The ante is the table's {which.lower()} (odd: an odd amount).")
            )
        found.append(flags)
    return found


def _deciding_kind(want: Settlement) -> str:
    """The fault kind whose clause settles this one-seat round (docs/differential.md)."""
    seat = want.seats[0]
    if seat.action is Action.FOLD:
        return "fold"
    if not want.dealer_qualifies:
        return "nonqualifying-ante"
    call = seat.call
    return (
        "player-wins"
        if call.returned > call.stake
        else "tie"
        if call.returned == call.stake
        else "dealer-wins"
    )


def _test(
    ident: str, clause: str, rnd: PlannedRound, want: Settlement, flags: list[str]
) -> dict[str, Any]:
    seat, settled = rnd.seats[0], want.seats[0]
    expected: dict[str, Any] = {
        "seat": 1,
        "ante": [settled.ante.stake, settled.ante.returned],
        "call": [settled.call.stake, settled.call.returned],
    }
    if settled.action is Action.CALL:
        expected["hand"] = settled.hand.wire
    if settled.aa_bonus is not None:
        expected["aa_bonus"] = [settled.aa_bonus.stake, settled.aa_bonus.returned]
    return {
        "id": ident,
        "clauses": [clause],
        "comment": "Generated (see the header).",
        "flags": flags,
        "result": "valid",
        "seats": [
            {
                "seat": 1,
                "ante": seat.ante,
                **({"aa_bonus": seat.aa_bonus} if seat.aa_bonus else {}),
                "action": seat.action.value,
                "hole": [str(c) for c in seat.hole],
            }
        ],
        "dealer": [str(c) for c in rnd.dealer],
        "flop": [str(c) for c in rnd.flop],
        "turn": str(rnd.turn),
        "river": str(rnd.river),
        "expected": {
            "dealer": {"hand": want.dealer_hand.wire, "qualifies": want.dealer_qualifies},
            "seats": [expected],
        },
    }


# eval7's hand types, and the categories each may be
EVAL7_TYPES = {
    "High Card": {Category.HIGH_CARD},
    "Pair": {Category.PAIR},
    "Two Pair": {Category.TWO_PAIR},
    "Trips": {Category.THREE_OF_A_KIND},
    "Straight": {Category.STRAIGHT},
    "Flush": {Category.FLUSH},
    "Full House": {Category.FULL_HOUSE},
    "Quads": {Category.FOUR_OF_A_KIND},
    "Straight Flush": {Category.STRAIGHT_FLUSH, Category.ROYAL_FLUSH},
}


@cache
def _eval7() -> Any:
    """The independent evaluator (a test dependency of the package), imported once."""
    try:
        import eval7
    except ImportError as exc:
        raise CorpusError(
            "generating the corpus needs eval7, the independent evaluator it is cross-checked "
            "with: pip install -e '.[test]'"
        ) from exc
    return eval7


def _cross_check(profile: Profile, rnd: PlannedRound, want: Settlement) -> None:
    """eval7 must name the same categories and order the two hands the same way."""
    eval7 = _eval7()

    def score(cards: list[Card]) -> int:
        return int(eval7.evaluate([eval7.Card(str(c)) for c in cards]))

    seat = rnd.seats[0]
    board = [*rnd.flop, rnd.turn, rnd.river]
    player, dealer = score([*seat.hole, *board]), score([*rnd.dealer, *board])
    aa = score([*seat.hole, *rnd.flop])
    settled = want.seats[0]
    problems = []
    if want.dealer_hand not in EVAL7_TYPES[eval7.handtype(dealer)]:
        problems.append(f"dealer {want.dealer_hand.wire}, eval7 {eval7.handtype(dealer)}")
    if settled.hand not in EVAL7_TYPES[eval7.handtype(player)]:
        problems.append(f"player {settled.hand.wire}, eval7 {eval7.handtype(player)}")
    if settled.aa_hand is not None and settled.aa_hand not in EVAL7_TYPES[eval7.handtype(aa)]:
        problems.append(f"AA Bonus hand {settled.aa_hand.wire}, eval7 {eval7.handtype(aa)}")
    ours = strength_of([*seat.hole, *board]) - strength_of([*rnd.dealer, *board])
    if np.sign(ours) != np.sign(player - dealer):
        problems.append(f"comparison: ours {np.sign(ours)}, eval7 {np.sign(player - dealer)}")
    if problems:
        raise CorpusError(
            f"profile {profile.name}, {rnd.name}: the oracle's evaluator and eval7 disagree "
            f"({'; '.join(problems)}); generation stopped"
        )
