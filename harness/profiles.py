"""Profiles: one rules configuration of the game, loaded from specs/profiles/*.yaml.

A profile is validated against specs/schemas/profile.schema.json and turned into
frozen dataclasses; everything downstream (oracle, reference game, math, report)
reads the rules from here, never from constants in code.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum, unique
from pathlib import Path
from typing import Any

from harness._schema import load_yaml, validate
from harness.cards import Rank
from harness.defaults import DEFAULT_PROFILE, PROFILE_DIR, available_profiles
from harness.errors import SpecError
from harness.evaluator import Category, category_of, minimum_strength, top_rank_of

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
    """Table limits in minor units, inclusive."""

    ante: tuple[int, int]
    aa_bonus: tuple[int, int]


@dataclass(frozen=True)
class Claim:
    figure: str
    value: float
    source_file: str
    source_ref: str


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
    limits: Limits
    claims: tuple[Claim, ...]
    required_capabilities: tuple[str, ...]
    raw: dict[str, Any]

    @property
    def qualifying_strength(self) -> int:
        """The weakest dealer strength that qualifies (a pair of fours, worst kickers)."""
        rank = _PAIR_NAMES[self.dealer_qualifier.removeprefix("pair_of_")]
        return minimum_strength(Category.PAIR, rank)

    def declared_config(self) -> dict[str, Any]:
        """The `config` a game following this profile declares in `hello` (protocol v1)."""
        return {
            "ante_pay_table": self.ante_table.to_json(),
            "aa_bonus_pay_table": self.aa_table.to_json() if self.aa_table else None,
            "dealer_qualifier": self.dealer_qualifier,
            "call_multiple": self.call_multiple,
            "limits": {"ante": list(self.limits.ante), "aa_bonus": list(self.limits.aa_bonus)},
        }


def resolve_profile_path(name_or_path: str) -> Path:
    """A bundled profile name (`standard`) or a path to a profile YAML file: a path has a
    folder (`./standard`) or a profile suffix. A bare name is always chcert's bundled
    profile, never a file of that name in the current folder, which may be the vendor's
    tree (and would then decide the pay tables under the bundled profile's name)."""
    candidate = Path(name_or_path)
    if candidate.suffix in {".yaml", ".yml", ".json"} or len(candidate.parts) > 1:
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
    """Load and validate a profile; errors name the file, line and field."""
    doc = load_yaml(resolve_profile_path(name_or_path))
    validate(doc, "profile.schema.json")
    data = doc.data
    lo, hi = data["limits"]["ante"]
    if lo < 1 or lo > hi:
        raise SpecError(
            doc.path, doc.line_of(("limits", "ante")), "ante limits need 1 <= min <= max"
        )
    aa_lo, aa_hi = data["limits"]["aa_bonus"]
    if aa_lo < 1 or aa_lo > aa_hi:
        raise SpecError(
            doc.path, doc.line_of(("limits", "aa_bonus")), "aa_bonus limits need 1 <= min <= max"
        )
    aa = data["aa_bonus_pay_table"]
    return Profile(
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
        limits=Limits((lo, hi), (aa_lo, aa_hi)),
        claims=tuple(
            Claim(c["figure"], c["value"], c["source"]["file"], c["source"]["ref"])
            for c in data["claims"]
        ),
        required_capabilities=tuple(data.get("required_capabilities", [])),
        raw=data,
    )
