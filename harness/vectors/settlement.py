"""Settlement vectors: stacked rounds with hand-worked expected settlements.

Files vectors/*.yaml follow specs/schemas/settlement-vectors.schema.json
(wycheproof-style: a header, notes explaining each flag, groups that share the
profiles under which their expected values hold, tests with id, clauses,
comment, flags and result). A vector cites the clause stating its rule in each
source that states it; under each profile of its group exactly one of those
clauses applies, and that is the clause a failure names. Loading also lints
what a schema cannot say: unique ids, clauses that exist and apply, flags that
are explained, cards legal for one deck.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Protocol

from harness._schema import (
    MAX_SPEC_BYTES,
    LoadedYaml,
    PathKey,
    compiled_def,
    load_yaml,
    validate,
)
from harness.errors import InvalidCards, SpecError
from harness.paths import VECTORS_DIR, read_input
from harness.protocol.messages import StackedCards
from harness.rules.cards import Card, format_cards, parse_cards
from harness.rules.catalogs import Clause
from harness.rules.game import Action, Deal, Wager
from harness.rules.oracle import SeatPlay, SeatSettlement, Settlement

VECTOR_DIR = VECTORS_DIR


@dataclass(frozen=True)
class SeatInput:
    seat: int
    ante: int
    aa_bonus: int
    action: Action


@dataclass(frozen=True)
class SeatExpectation:
    seat: int
    hand: str | None
    ante: Wager
    call: Wager
    aa_bonus: Wager | None


@dataclass(frozen=True)
class Vector:
    id: str
    clauses: tuple[str, ...]
    clause_for: dict[str, str]  # profile -> the cited clause that applies under it
    comment: str
    flags: tuple[str, ...]
    result: str
    profiles: tuple[str, ...]
    seats: tuple[SeatInput, ...]
    deal: Deal
    expected_error: str | None
    expected_dealer: dict[str, Any] | None
    expected_seats: tuple[SeatExpectation, ...]
    path: Path
    line: int | None

    @property
    def valid(self) -> bool:
        return self.result == "valid"

    def stacked_cards(self) -> StackedCards:
        """The `cards` param of a `round` request that stacks this vector's deck."""
        d = self.deal
        return {
            "seats": {str(n): [str(c) for c in d.seats[n]] for n in sorted(d.seats)},
            "dealer": [str(c) for c in d.dealer],
            "flop": [str(c) for c in d.flop],
            "turn": str(d.turn),
            "river": str(d.river),
        }


@cache
def _load_corpus(path: Path, stamp: int) -> LoadedYaml:
    """A generated corpus file (harness/vectors/corpus.py), JSON with one vector per line.

    Thousands of vectors: each is checked by the compiled schema of one vector, and
    its line is the line it starts on, so a problem still names file and line.
    """
    try:
        size = path.stat().st_size
        if size > MAX_SPEC_BYTES:
            raise SpecError(path, None, f"file is {size:,} bytes; at most {MAX_SPEC_BYTES:,}")
        text = read_input(path).decode("utf-8")
        data = json.loads(text)
    except OSError as exc:
        raise SpecError(path, None, f"cannot read file: {exc.strerror}") from exc
    except UnicodeDecodeError as exc:
        raise SpecError(path, None, f"not UTF-8 text: {exc.reason}") from exc
    except json.JSONDecodeError as exc:
        raise SpecError(path, exc.lineno, f"not JSON: {exc.msg}") from exc
    except RecursionError:
        raise SpecError(path, None, "JSON nested too deeply") from None
    starts = [n for n, line in enumerate(text.split("\n"), 1) if line.startswith('{"id":')]
    lines: dict[PathKey, int] = {(): 1}
    groups = data.get("groups") if isinstance(data, dict) else None
    envelope = data
    if isinstance(groups, list) and all(isinstance(g, dict) for g in groups):
        envelope = {**data, "groups": [{**g, "tests": []} for g in groups]}
    problem = compiled_def("settlement-vectors.schema.json", "envelope")(envelope)
    if problem is not None:
        raise SpecError(path, 1, problem)
    tests = [(g, t) for g, group in enumerate(data["groups"]) for t in range(len(group["tests"]))]
    if len(starts) != len(tests):
        raise SpecError(path, None, "a generated corpus has one vector per line; regenerate it")
    check = compiled_def("settlement-vectors.schema.json", "vector")
    for (g, t), line in zip(tests, starts, strict=True):
        lines[("groups", g, "tests", t)] = line
        problem = check(data["groups"][g]["tests"][t])
        if problem is not None:
            raise SpecError(path, line, problem)
    return LoadedYaml(path, data, lines)


def _wager(pair: list[int] | None) -> Wager | None:
    return None if pair is None else Wager(pair[0], pair[1])


def load_vector_file(path: str | Path, clauses: dict[str, Clause]) -> list[Vector]:
    """Load, validate and lint one vector file against the clause catalogs."""
    if Path(path).suffix == ".json":
        try:
            stamp = Path(path).stat().st_mtime_ns
        except OSError as exc:
            raise SpecError(path, None, f"cannot read file: {exc.strerror}") from exc
        doc = _load_corpus(Path(path), stamp)
    else:
        doc = load_yaml(path)
        validate(doc, "settlement-vectors.schema.json")
    notes = doc.data["notes"]
    vectors: list[Vector] = []
    for g, group in enumerate(doc.data["groups"]):
        for t, test in enumerate(group["tests"]):
            key = ("groups", g, "tests", t)
            line = doc.line_of(key)
            applying = clause_for(path, doc.line_of((*key, "clauses")), test, group, clauses)
            for flag in test.get("flags", []):
                if flag not in notes:
                    raise SpecError(path, line, f"flag {flag!r} is not explained in notes")
            try:
                deal = Deal(
                    seats={s["seat"]: _two(parse_cards(s["hole"])) for s in test["seats"]},
                    dealer=_two(parse_cards(test["dealer"])),
                    flop=_three(parse_cards(test["flop"])),
                    turn=parse_cards([test["turn"]])[0],
                    river=parse_cards([test["river"]])[0],
                )
                if len(deal.seats) != len(test["seats"]):
                    raise InvalidCards("a seat number appears twice")
                deal.verify()
            except InvalidCards as exc:
                raise SpecError(path, line, f"vector {test['id']}: {exc}") from exc
            expected = test["expected"]
            vectors.append(
                Vector(
                    id=test["id"],
                    clauses=tuple(test["clauses"]),
                    clause_for=applying,
                    comment=test["comment"].strip(),
                    flags=tuple(test.get("flags", [])),
                    result=test["result"],
                    profiles=tuple(group["profiles"]),
                    seats=tuple(
                        SeatInput(s["seat"], s["ante"], s.get("aa_bonus", 0), Action(s["action"]))
                        for s in test["seats"]
                    ),
                    deal=deal,
                    expected_error=expected.get("error"),
                    expected_dealer=expected.get("dealer"),
                    expected_seats=tuple(
                        SeatExpectation(
                            seat=s["seat"],
                            hand=s.get("hand"),
                            ante=Wager(*s["ante"]),
                            call=Wager(*s["call"]),
                            aa_bonus=_wager(s.get("aa_bonus")),
                        )
                        for s in expected.get("seats", [])
                    ),
                    path=Path(path),
                    line=line,
                )
            )
            if (test["result"] == "invalid") != ("error" in expected):
                raise SpecError(
                    path, line, "an invalid vector expects an error, a valid one a settlement"
                )
    return vectors


def clause_for(
    path: str | Path,
    line: int | None,
    test: dict[str, Any],
    group: dict[str, Any],
    clauses: dict[str, Clause],
) -> dict[str, str]:
    """For each profile of the group, the one cited clause that applies under it."""
    for cited in test["clauses"]:
        if cited not in clauses:
            raise SpecError(path, line, f"vector {test['id']}: unknown clause {cited!r}")
    result: dict[str, str] = {}
    for profile in group["profiles"]:
        applying = [c for c in test["clauses"] if profile in clauses[c].profiles]
        if len(applying) != 1:
            found = ", ".join(applying) or "none"
            raise SpecError(
                path,
                line,
                f"vector {test['id']}: under profile {profile} exactly one cited clause must "
                f"apply, found {found}",
            )
        result[profile] = applying[0]
    return result


def _two(cards: tuple[Card, ...]) -> tuple[Card, Card]:
    return cards[0], cards[1]


def _three(cards: tuple[Card, ...]) -> tuple[Card, Card, Card]:
    return cards[0], cards[1], cards[2]


def vector_files(root: Path = VECTOR_DIR) -> list[Path]:
    """Every settlement vector file, in a fixed order (xdist workers must collect
    identically); refusals/ holds another kind (harness/vectors/refusals.py)."""
    return sorted(p for p in root.rglob("*.yaml") if root / "refusals" not in p.parents)


def load_all_vectors(
    clauses: dict[str, Clause], root: Path = VECTOR_DIR, extra: Iterable[Path] = ()
) -> list[Vector]:
    """All vectors under `root`, then those of the `extra` files (a reproduction, say);
    ids must be unique across every file."""
    vectors = [v for path in [*vector_files(root), *extra] for v in load_vector_file(path, clauses)]
    verify_unique_ids(vectors)
    return vectors


class Cited(Protocol):
    """A vector of any kind, as an id check sees it: its id and where it stands."""

    @property
    def id(self) -> str: ...
    @property
    def path(self) -> Path: ...
    @property
    def line(self) -> int | None: ...


def verify_unique_ids(found: Iterable[Cited]) -> None:
    """A SpecError at the second use of an id: items are named `clause/id`, whatever the
    kind of vector (settlement or refusal), so an id may stand once only."""
    seen: dict[str, Cited] = {}
    for vector in found:
        first = seen.setdefault(vector.id, vector)
        if first is not vector:
            raise SpecError(
                vector.path,
                vector.line,
                f"vector id {vector.id!r} already used at {first.path}:{first.line}",
            )


def round_vector(
    vector_id: str,
    found: str,
    profile: str,
    deal: Deal,
    plays: Mapping[int, SeatPlay],
    want: Settlement,
) -> dict[str, object]:
    """A round as a vector file (specs/schemas/settlement-vectors.schema.json) whose
    expected values are the oracle's: what replays a failure a randomized check or the
    production audit found (`found` says how) through `chcert certify --vectors`."""

    def expected(seat: SeatSettlement) -> dict[str, object]:
        row: dict[str, object] = {
            "seat": seat.seat,
            "ante": [seat.ante.stake, seat.ante.returned],
            "call": [seat.call.stake, seat.call.returned],
        }
        if seat.action is Action.CALL:
            row["hand"] = seat.hand.wire
        if seat.aa_bonus is not None and seat.aa_bonus.stake:
            row["aa_bonus"] = [seat.aa_bonus.stake, seat.aa_bonus.returned]
        return row

    test = {
        "id": vector_id,
        "clauses": [],
        "comment": f"{found}; the expected values are the rules oracle's "
        "(harness/rules/oracle.py), not worked by hand.",
        "flags": ["Repro"],
        "result": "valid",
        "seats": [
            {
                "seat": s,
                "ante": plays[s].ante,
                **({"aa_bonus": plays[s].aa_bonus} if plays[s].aa_bonus else {}),
                "action": plays[s].action.value,
                "hole": format_cards(deal.seats[s]),
            }
            for s in sorted(plays)
        ],
        "dealer": format_cards(deal.dealer),
        "flop": format_cards(deal.flop),
        "turn": str(deal.turn),
        "river": str(deal.river),
        "expected": {
            "dealer": {"hand": want.dealer_hand.wire, "qualifies": want.dealer_qualifies},
            "seats": [expected(seat) for seat in want.seats],
        },
    }
    return {
        "schema": "settlement-vectors.schema.json",
        "header": "A round in which the game's settlement differed from the rules, written "
        "by chcert to replay the failure (docs/verdict.md, reproductions).",
        "notes": {"Repro": "Found by a randomized check or the production audit."},
        "groups": [{"profiles": [profile], "tests": [test]}],
    }
