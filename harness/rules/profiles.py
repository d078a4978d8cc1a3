"""Profiles: one rules configuration of the game, loaded from specs/profiles/*.yaml,
or an approved variation of one (a file saying `extends:`, docs/profiles.md).

A profile is validated against specs/schemas/profile.schema.json and turned into
frozen dataclasses; everything downstream (oracle, reference game, math, report)
reads the rules from here, never from constants in code. A variation resolves to a
whole profile (its base's fields under its own) that remembers the bundled profile
whose clauses apply and what it changes; table limits and house rules are not a
profile's but the game's (harness/rules/table.py).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
from dataclasses import dataclass
from enum import StrEnum, unique
from pathlib import Path
from typing import Any

from harness._schema import LoadedYaml, load_yaml, validate
from harness.defaults import DEFAULT_PROFILE, PROFILE_DIR, available_profiles
from harness.errors import SpecError
from harness.rules.cards import Rank
from harness.rules.evaluator import Category, category_of, minimum_strength, top_rank_of
from harness.rules.table import HOUSE_RULES

_PAIR_NAMES = {
    "twos": Rank.TWO,
    "threes": Rank.THREE,
    "fours": Rank.FOUR,
    "fives": Rank.FIVE,
    "sixes": Rank.SIX,
}


@unique
class NonQualifyingAnte(StrEnum):
    """What the ante pays when the dealer does not qualify (the sources differ)."""

    PAY_TABLE = "pay_table"
    PAY_TABLE_IF_PLAYER_WINS_ELSE_EVEN = "pay_table_if_player_wins_else_even"


@dataclass(frozen=True)
class AnteTable:
    """Ante odds by final hand category; a category not listed pays 1 to 1."""

    odds: dict[Category, int]

    def pays(self, category: Category) -> int:
        return self.odds.get(category, 1)

    def to_json(self) -> dict[str, int]:
        return {c.wire: o for c, o in sorted(self.odds.items(), reverse=True)}


@dataclass(frozen=True)
class AABonusTable:
    """AA Bonus odds by the hole + flop hand (`pair_of_aces` for the pair row)."""

    odds: dict[str, int]

    @staticmethod
    def row_of(strength: int) -> str | None:
        """The pay-table row a five-card hand falls in; None below a pair of aces."""
        category = category_of(strength)
        if category == Category.PAIR:
            return "pair_of_aces" if top_rank_of(strength) == Rank.ACE else None
        if category == Category.HIGH_CARD:
            return None
        return category.wire

    def pays(self, strength: int) -> int | None:
        """Odds for a hole + flop hand, or None when the bet loses."""
        row = self.row_of(strength)
        return None if row is None else self.odds.get(row)

    def to_json(self) -> dict[str, int]:
        return dict(self.odds)


@dataclass(frozen=True)
class Limits:
    """The stakes a table must accept, in minor units, inclusive (a jurisdiction's
    demand: `required_limits`); None for the AA Bonus when not required."""

    ante: tuple[int, int]
    aa_bonus: tuple[int, int] | None


@dataclass(frozen=True)
class Claim:
    figure: str
    value: float
    source_file: str
    source_ref: str


@dataclass(frozen=True)
class Varied:
    """One field an approved variation changes from the bundled profile whose clauses
    it is certified under: `ante_pay_table.straight_flush`, `rules.fold_forfeits_aa_bonus`,
    `claims.house_edge`; None where the base has no such value (a row it does not list)."""

    field: str
    base: Any
    approved: Any

    @property
    def parameter(self) -> str:
        """The profile field a clause names in `parameters:` (specs/clauses/*.yaml)."""
        head = self.field.partition(".")[0]
        return self.field if head in ("rules", "claims") else head


# The fields a variation may change that a clause states: each must be a `parameters:`
# entry of a clause that applies, or the variation cannot be certified (harness/run/runspec.py).
STATED_RULES = (
    "ante_pay_table",
    "aa_bonus_pay_table",
    "dealer_qualifier",
    "call_multiple",
    "rules",
)
RULE_FIELDS = (*STATED_RULES, "required_limits", "house_rules_allowed")

# Bounds no real game comes near, under which the pricing is exact (docs/profiles.md,
# "Bounds"): pay odds at most MAX_ODDS to 1 (the richest bundled row pays 100), a call
# of at most MAX_CALL_MULTIPLE antes (every source's is 2). A situation's value of
# calling, summed in int64 over its 1,070,190 completions, is then at most about 2.1e10
# in absolute value, far below 2**63 (harness/gamemath/pricing.py `exact_bound` checks
# it again). specs/schemas/profile.schema.json states the same numbers.
MAX_ODDS = 10_000
MAX_CALL_MULTIPLE = 10
# The longest chain of variations (`extends`) followed: a real one is two or three deep.
MAX_EXTENDS_DEPTH = 16
PROFILE_SUFFIXES = frozenset({".yaml", ".yml", ".json"})


@dataclass(frozen=True)
class Profile:
    name: str
    title: str
    path: Path
    catalogs: tuple[str, ...]
    ante_table: AnteTable
    aa_table: AABonusTable | None
    dealer_qualifier: str
    call_multiple: int
    fold_forfeits_aa_bonus: bool
    hole_cards_face_up: bool
    interrupted_rounds: tuple[str, ...]  # "resume", "void": what the rules allow a game
    nonqualifying_ante: NonQualifyingAnte
    required_limits: Limits | None
    house_rules_allowed: tuple[str, ...]
    claims: tuple[Claim, ...]
    required_capabilities: tuple[str, ...]
    raw: dict[str, Any]
    # An approved variation: the bundled profile whose clauses apply, and what it changes.
    base: Profile | None = None
    variations: tuple[Varied, ...] = ()
    extends: str | None = None  # as the file names its base
    files: tuple[Path, ...] = ()  # the files read: this one, then its bases'

    @property
    def clauses_from(self) -> str:
        """The bundled profile whose clauses, vectors and corpus apply: its own name, or
        its base's for a variation (the clauses list the profiles they apply to by name)."""
        return self.base.name if self.base is not None else self.name

    @property
    def sha256(self) -> str:
        """The SHA-256 of the profile file; of a variation, of its file and each file it
        extends, in that order, joined (a bundled base is the spec tree's, hashed too)."""
        return hashlib.sha256(b"".join(p.read_bytes() for p in self.files)).hexdigest()

    @property
    def qualifying_strength(self) -> int:
        """The weakest dealer strength that qualifies (a pair of fours, worst kickers)."""
        rank = _PAIR_NAMES[self.dealer_qualifier.removeprefix("pair_of_")]
        return minimum_strength(Category.PAIR, rank)

    def declared_config(self) -> dict[str, Any]:
        """The pay tables and options a game following this profile declares in `hello`
        (protocol v1 `config`); its limits and house rules are the table's own
        (harness/rules/table.py)."""
        return {
            "ante_pay_table": self.ante_table.to_json(),
            "aa_bonus_pay_table": self.aa_table.to_json() if self.aa_table else None,
            "dealer_qualifier": self.dealer_qualifier,
            "call_multiple": self.call_multiple,
        }


def _has_folder(text: str) -> bool:
    """Whether a profile reference names a folder (`./house`, `a/b`): read from the text
    as written, since pathlib reads `./house` as the bare name `house`."""
    return any(sep and sep in text for sep in ("/", os.sep, os.altsep))


def resolve_profile_path(name_or_path: str) -> Path:
    """A bundled profile name (`standard`) or a path to a profile YAML file: a path has a
    folder (`./standard`, even without a suffix) or a profile suffix. A bare name is always
    chcert's bundled profile, never a file of that name in the current folder, which may
    be the vendor's tree (and would then decide the pay tables under the bundled
    profile's name)."""
    candidate = Path(name_or_path)
    if candidate.suffix in PROFILE_SUFFIXES or _has_folder(name_or_path):
        return candidate
    bundled = PROFILE_DIR / f"{name_or_path}.yaml"
    if not bundled.exists():
        raise SpecError(
            name_or_path,
            None,
            f"no such profile; bundled profiles: {', '.join(available_profiles())}",
        )
    return bundled


def load_profile(name_or_path: str = DEFAULT_PROFILE) -> Profile:
    """Load and validate a profile, or an approved variation of one (`extends`,
    docs/profiles.md); errors name the file, line and field."""
    return _load(resolve_profile_path(name_or_path), ())


def _load(path: Path, seen: tuple[Path, ...]) -> Profile:
    doc = load_yaml(path)
    if isinstance(doc.data, dict) and "extends" in doc.data and "catalogs" in doc.data:
        raise SpecError(
            path,
            doc.line_of(("catalogs",)),
            "a variation is certified under its base's clauses: catalogs cannot change",
        )
    validate(doc, "profile.schema.json")
    _verify_numbers(doc)
    data = doc.data
    if "extends" not in data:
        _verify_bundled_name(doc)
        return _profile(doc, data, None, ())
    line = doc.line_of(("extends",))
    if path.resolve() in seen:
        raise SpecError(path, line, "a profile cannot extend itself (extends loops back)")
    if len(seen) >= MAX_EXTENDS_DEPTH:  # this file would be one more variation
        raise SpecError(
            path,
            line,
            f"a chain of more than {MAX_EXTENDS_DEPTH} variations (extends): a variation "
            "varies a bundled profile, or a variation of one",
        )
    extends = data["extends"]
    base_path: Path | None = None
    if Path(extends).suffix or _has_folder(extends):  # a file, relative to this one
        base_path = path.parent / extends
        if not base_path.exists():
            raise SpecError(path, line, f"extends {extends!r}: no such file")
    try:
        base_path = base_path or resolve_profile_path(extends)  # else a bundled profile
        base = _load(base_path, (*seen, path.resolve()))
    except SpecError as exc:
        if exc.path == data["extends"]:  # no such bundled profile: say where it was named
            raise SpecError(path, line, f"extends {data['extends']!r}: {exc.message}") from None
        raise
    if data["name"] in available_profiles():
        raise SpecError(
            path,
            doc.line_of(("name",)),
            f"a variation needs a name of its own: {data['name']!r} is a bundled profile",
        )
    root = base.base or base
    if root.aa_table is None and data.get("aa_bonus_pay_table"):
        raise SpecError(
            path,
            doc.line_of(("aa_bonus_pay_table",)),
            f"{root.name} has no AA Bonus, so no clause of its catalogs states one's "
            "settlement: a variation cannot add it",
        )
    resolved = _merged(base.raw, data, root)  # judged as a whole profile
    validate(LoadedYaml(doc.path, resolved, doc.lines), "profile.schema.json")
    if resolved["aa_bonus_pay_table"] is None and "aa_bonus" in resolved.get("required_limits", {}):
        raise SpecError(
            path,
            doc.line_of(("required_limits",)),
            "required_limits.aa_bonus for a profile without an AA Bonus: no table could meet it",
        )
    profile = _profile(doc, resolved, root, _variations(root.raw, resolved))
    return dataclasses.replace(profile, extends=data["extends"], files=(path, *base.files))


def _verify_numbers(doc: LoadedYaml) -> None:
    """What the schema cannot say of numbers: JSON Schema counts 49.0 as an integer, but a
    pay table of YAML floats is not the integer odds a game declares (and every
    settlement would be a float); and NaN passes every bound. So every number in a
    profile is an integer, except a claimed figure, which is a finite fraction."""
    for key, value in _numbers(doc.data, ()):
        dotted = ".".join(str(k) for k in key)
        if len(key) == 3 and key[0] == "claims" and key[2] == "value":
            if not math.isfinite(value):
                raise SpecError(doc.path, doc.line_of(key), f"{dotted}: {value} is not a number")
        elif isinstance(value, float):
            hint = f": write {int(value)}" if value.is_integer() else ""
            raise SpecError(
                doc.path, doc.line_of(key), f"{dotted}: {value} is not an integer{hint}"
            )


def _numbers(data: Any, key: tuple[str | int, ...]) -> list[tuple[tuple[str | int, ...], Any]]:
    """Every int or float in a document (not bool), with its path."""
    if isinstance(data, dict):
        return [found for k, v in data.items() for found in _numbers(v, (*key, k))]
    if isinstance(data, list):
        return [found for i, v in enumerate(data) for found in _numbers(v, (*key, i))]
    if isinstance(data, int | float) and not isinstance(data, bool):
        return [(key, data)]
    return []


def _verify_bundled_name(doc: LoadedYaml) -> None:
    """A profile file taking a bundled profile's name states that profile's rules: the
    clauses that name it would judge other tables otherwise. A jurisdiction's copy may
    only demand more (evidence minimums, capabilities, limits, house rules allowed)."""
    name = doc.data["name"]
    bundled_path = PROFILE_DIR / f"{name}.yaml"
    if name not in available_profiles() or doc.path.resolve() == bundled_path.resolve():
        return
    bundled = _meaning(load_yaml(bundled_path).data)
    mine = _meaning(doc.data)
    differ = [k for k in (*STATED_RULES, "claims") if mine.get(k) != bundled.get(k)]
    if differ:
        raise SpecError(
            doc.path,
            doc.line_of((differ[0],)),
            f"a profile named {name} states chcert's bundled {name}'s rules, and this one "
            f"changes {', '.join(differ)}: give it a name of its own and `extends: {name}` "
            "(docs/profiles.md)",
        )


def _normalized(raw: dict[str, Any]) -> dict[str, Any]:
    """A profile's fields with every default filled in, so that two are compared by what
    they mean, not by how they are written."""
    rules = {"hole_cards_face_up": False, "interrupted_rounds": ["resume", "void"]}
    return {
        **raw,
        "rules": rules | raw.get("rules", {}),
        "house_rules_allowed": sorted(raw.get("house_rules_allowed", HOUSE_RULES)),
        "required_limits": raw.get("required_limits"),
    }


def _meaning(raw: dict[str, Any]) -> dict[str, Any]:
    """A profile's fields as compared by meaning: defaults filled in (`_normalized`), and
    its claims a set, not a list (the order they are written in states nothing)."""
    normal = _normalized(raw)
    claims = normal.get("claims", [])
    normal["claims"] = sorted(claims, key=lambda claim: json.dumps(claim, sort_keys=True))
    return normal


def _merged(base: dict[str, Any], data: dict[str, Any], root: Profile) -> dict[str, Any]:
    """The variation's resolved fields: the base's, with the variation's over them (a
    pay-table row, a rule flag, a limit at a time; a row set to null removed); its own
    name, title and claims (a base's claimed figures describe the base's tables)."""
    merged = {k: v for k, v in base.items() if k not in ("claims", "description")}
    for key, value in data.items():
        if key in ("schema", "name", "extends", "title", "description", "claims"):
            continue
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            rows = {**merged[key], **value}
            merged[key] = {k: v for k, v in rows.items() if v is not None}
        else:
            merged[key] = value
    merged["name"] = data["name"]
    merged["title"] = data.get("title", f"{data['name']}: an approved variation of {root.name}")
    merged["claims"] = data.get("claims", [])
    if "description" in data:
        merged["description"] = data["description"]
    return merged


def _variations(base: dict[str, Any], merged: dict[str, Any]) -> tuple[Varied, ...]:
    """Every rule field and claimed figure where the variation differs from its base."""
    found: list[Varied] = []
    base, merged = _normalized(base), _normalized(merged)
    for key in RULE_FIELDS:
        old, new = base.get(key), merged.get(key)
        if isinstance(old, dict) and isinstance(new, dict):
            for row in [*old, *(r for r in new if r not in old)]:
                if old.get(row) != new.get(row):
                    found.append(Varied(f"{key}.{row}", old.get(row), new.get(row)))
        elif old != new:
            found.append(Varied(key, old, new))
    claimed = {c["figure"]: c["value"] for c in base.get("claims", [])}
    for claim in merged.get("claims", []):
        if claimed.get(claim["figure"]) != claim["value"]:
            was = claimed.get(claim["figure"])
            found.append(Varied(f"claims.{claim['figure']}", was, claim["value"]))
    return tuple(found)


def _range(doc: LoadedYaml, data: dict[str, Any], wager: str) -> tuple[int, int] | None:
    bounds = data.get("required_limits", {}).get(wager)
    if bounds is None:
        return None
    lo, hi = bounds
    if lo < 1 or lo > hi:
        line = doc.line_of(("required_limits", wager))
        raise SpecError(doc.path, line, f"{wager} limits need 1 <= min <= max")
    return lo, hi


def _profile(
    doc: LoadedYaml, data: dict[str, Any], base: Profile | None, variations: tuple[Varied, ...]
) -> Profile:
    ante = _range(doc, data, "ante")
    aa = data["aa_bonus_pay_table"]
    for i, claim in enumerate(data["claims"]):
        if aa is None and claim["figure"] == "aa_bonus_edge":
            raise SpecError(
                doc.path,
                doc.line_of(("claims", i, "figure")),
                f"claims an AA Bonus edge, but {data['name']} offers no AA Bonus",
            )
    return Profile(
        files=(doc.path,),
        name=data["name"],
        title=data["title"],
        path=doc.path,
        catalogs=tuple(data.get("catalogs", [])),
        ante_table=AnteTable({Category.from_wire(k): v for k, v in data["ante_pay_table"].items()}),
        aa_table=AABonusTable(dict(aa)) if aa is not None else None,
        dealer_qualifier=data["dealer_qualifier"],
        call_multiple=data["call_multiple"],
        fold_forfeits_aa_bonus=data["rules"]["fold_forfeits_aa_bonus"],
        hole_cards_face_up=data["rules"].get("hole_cards_face_up", False),
        interrupted_rounds=tuple(data["rules"].get("interrupted_rounds", ("resume", "void"))),
        nonqualifying_ante=NonQualifyingAnte(data["rules"]["ante_when_dealer_does_not_qualify"]),
        required_limits=None if ante is None else Limits(ante, _range(doc, data, "aa_bonus")),
        house_rules_allowed=tuple(data.get("house_rules_allowed", HOUSE_RULES)),
        claims=tuple(
            Claim(c["figure"], c["value"], c["source"]["file"], c["source"]["ref"])
            for c in data["claims"]
        ),
        required_capabilities=tuple(data.get("required_capabilities", [])),
        raw=data,
        base=base,
        variations=variations,
    )
