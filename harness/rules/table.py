"""The table a game declares: its limits and house rules, and the stakes a round is
played at there (docs/profiles.md, "Table limits" and "House rules").

No rules source gives table limits, and house rules are the operator's: both are the
game's configuration, declared in `hello` (docs/adapter-protocol.md). The harness
stakes every round it asks inside them, and below the stakes whose every amount fits
in 2^53 - 1 (`payable`: docs/differential.md, "Stakes"). Settlement is linear in the
stake, so a round written at other stakes (a hand-worked vector, a corpus vector) is
played at the written stakes times or divided by a common factor when one fits, else
restaked seat by seat; its expected settlement is the rules oracle's at the stakes
played.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum, unique
from math import gcd
from typing import Any


@unique
class HouseRule(StrEnum):
    """The house rules protocol v1 documents (hello `config.house_rules`)."""

    # The AA Bonus stake is at most this multiple of the same seat's ante.
    AA_BONUS_MAX_ANTE_MULTIPLE = "aa_bonus_max_ante_multiple"


HOUSE_RULES = tuple(rule.value for rule in HouseRule)


@dataclass(frozen=True)
class Table:
    """What a table accepts: each wager's limits in minor units, inclusive (None: no AA
    Bonus offered or no limits declared for it), and the house rules it declares."""

    ante: tuple[int, int]
    aa_bonus: tuple[int, int] | None
    aa_bonus_max_ante_multiple: int | None = None
    unknown_house_rules: tuple[str, ...] = ()  # declared, but not in protocol v1

    @property
    def house_rules(self) -> dict[str, int]:
        """The known house rules declared, as hello spells them."""
        rules = {}
        if self.aa_bonus_max_ante_multiple is not None:
            rules[HouseRule.AA_BONUS_MAX_ANTE_MULTIPLE.value] = self.aa_bonus_max_ante_multiple
        return rules

    def aa_range(self, ante: int) -> tuple[int, int] | None:
        """The AA Bonus stakes a seat with this ante may make; None when there are none."""
        if self.aa_bonus is None:
            return None
        lo, hi = self.aa_bonus
        if self.aa_bonus_max_ante_multiple is not None:
            hi = min(hi, self.aa_bonus_max_ante_multiple * ante)
        return (lo, hi) if lo <= hi else None

    @property
    def smallest_aa_ante(self) -> int | None:
        """The smallest ante beside which the table takes an AA Bonus (above its minimum
        where the house cap would push the AA Bonus under its own minimum); None when it
        takes none beside any ante."""
        if self.aa_bonus is None:
            return None
        ante = self.ante[0]
        cap = self.aa_bonus_max_ante_multiple
        if cap is not None:
            ante = max(ante, _ceil_div(self.aa_bonus[0], cap))
        return ante if ante <= self.ante[1] else None

    def refuses(self, ante: int, aa_bonus: int) -> str | None:
        """Why this table refuses a seat's wagers (limits, house rules), None if it takes
        them. Amounts are integers; an ante is required (the rules' refusal, not the
        table's, is the oracle's to say)."""
        lo, hi = self.ante
        if not lo <= ante <= hi:
            return f"ante {ante} outside the table limits {lo}..{hi}"
        if aa_bonus == 0:
            return None
        if self.aa_bonus is None:
            return "the table takes no AA Bonus"
        aa_lo, aa_hi = self.aa_bonus
        if not aa_lo <= aa_bonus <= aa_hi:
            return f"AA Bonus {aa_bonus} outside the table limits {aa_lo}..{aa_hi}"
        cap = self.aa_bonus_max_ante_multiple
        if cap is not None and aa_bonus > cap * ante:
            return f"AA Bonus {aa_bonus} above {cap} x the ante {ante} (house rule {_CAP})"
        return None

    def to_config(self) -> dict[str, Any]:
        """The `limits` and `house_rules` of a hello config declaring this table."""
        limits: dict[str, Any] = {"ante": list(self.ante)}
        if self.aa_bonus is not None:
            limits["aa_bonus"] = list(self.aa_bonus)
        config: dict[str, Any] = {"limits": limits}
        if self.house_rules:
            config["house_rules"] = self.house_rules
        return config


_CAP = HouseRule.AA_BONUS_MAX_ANTE_MULTIPLE.value

# The largest amount a round may hold: 2^53 - 1, the largest integer every JSON reader
# keeps exact (protocol v1's `limit`, specs/schemas/protocol-v1.schema.json). A game whose
# money is double precision, as a web game's is, is exact up to here and no further.
MAX_AMOUNT = 2**53 - 1


@dataclass(frozen=True)
class Returns:
    """The most one minor unit staked can bring into a seat's settlement, by the rules'
    largest odds: an ante unit counts itself and what it returns at the ante's largest
    odds, and the call it brings (call_multiple units) with its return at the call's; an
    AA Bonus unit itself and its return at the AA Bonus's largest odds."""

    ante: int
    aa_bonus: int

    @classmethod
    def of(
        cls, *, ante_odds: int, call_multiple: int, call_odds: int, aa_odds: int | None
    ) -> Returns:
        return cls(
            ante=(1 + ante_odds) + call_multiple * (1 + call_odds) + 1 + call_multiple,
            aa_bonus=(1 + aa_odds) + 1 if aa_odds is not None else 0,
        )


def payable(table: Table, returns: Returns) -> Table | None:
    """The stakes of `table` whose every amount in a round fits in MAX_AMOUNT: each
    wager's maximum lowered until a seat staking both maxima, settled at the largest odds,
    sums (stakes and returns) to no more than MAX_AMOUNT. Half the room is each wager's
    where both need it; a wager whose declared maximum needs less leaves the rest to the
    other. The extremes the table declares beyond this are the declared-limits check's
    to test (harness/checks/declarations.py); no check settles a round there. None when
    not even the table's minimum ante is payable."""
    ante_lo, ante_hi = table.ante
    if ante_lo * returns.ante > MAX_AMOUNT:
        return None
    aa = table.aa_bonus
    if aa is None or returns.aa_bonus == 0:
        ante_hi = min(ante_hi, MAX_AMOUNT // returns.ante)
        return replace(table, ante=(ante_lo, ante_hi))
    ante_hi = min(ante_hi, max(ante_lo, MAX_AMOUNT // 2 // returns.ante))
    aa_hi = min(aa[1], (MAX_AMOUNT - ante_hi * returns.ante) // returns.aa_bonus)
    if aa_hi < aa[0]:  # the AA Bonus's minimum fits only beside a smaller ante
        aa_hi = aa[0]
        ante_hi = (MAX_AMOUNT - aa_hi * returns.aa_bonus) // returns.ante
        if ante_hi < ante_lo:  # no ante leaves room for one: no AA Bonus is payable
            return replace(table, ante=(ante_lo, min(table.ante[1], MAX_AMOUNT // returns.ante)),
                           aa_bonus=None)  # fmt: skip
    ante_hi = min(table.ante[1], (MAX_AMOUNT - aa_hi * returns.aa_bonus) // returns.ante)
    return replace(table, ante=(ante_lo, ante_hi), aa_bonus=(aa[0], aa_hi))


# The table chcert's reference game declares by default: its configuration, not any
# rules source's (none gives limits).
REFERENCE_TABLE = Table(ante=(100, 50_000), aa_bonus=(100, 25_000))


def _range(value: Any) -> tuple[int, int] | None:
    if (
        isinstance(value, list)
        and len(value) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
        and 1 <= value[0] <= value[1]
    ):
        return value[0], value[1]
    return None


def table_of(config: Any) -> Table | None:
    """The table a hello `config` declares; None when its ante limits are not a range
    1 <= min <= max (the declared-limits check's finding). A game is the authority on
    its own table: an AA Bonus range is read only where an AA Bonus table is declared."""
    config = config if isinstance(config, dict) else {}
    limits = config.get("limits") if isinstance(config.get("limits"), dict) else {}
    ante = _range(limits.get("ante"))
    if ante is None:
        return None
    aa = _range(limits.get("aa_bonus")) if config.get("aa_bonus_pay_table") else None
    rules = config.get("house_rules") if isinstance(config.get("house_rules"), dict) else {}
    cap = rules.get(_CAP)
    return Table(
        ante=ante,
        aa_bonus=aa,
        aa_bonus_max_ante_multiple=cap
        if isinstance(cap, int) and not isinstance(cap, bool) and cap >= 1
        else None,
        unknown_house_rules=tuple(sorted(str(k) for k in rules if k not in HOUSE_RULES)),
    )


@unique
class StakesKind(StrEnum):
    """How a round's stakes were had from the written ones (results.json `table.stakes`)."""

    AS_WRITTEN = "as written"
    SCALED = "scaled"  # all multiplied, or all divided exactly, by one factor
    RESTAKED = "restaked"  # each seat's moved inside the table's limits


@dataclass(frozen=True)
class Fitted:
    """A round's stakes as played at a table: each seat's (ante, AA Bonus), and how they
    were had from the written ones."""

    stakes: tuple[tuple[int, int], ...]
    how: str  # "as written", "x5", "/2", "restaked"


def stakes_kind(how: str) -> StakesKind:
    """How, in the word a run counts: "x5" and "/2" are scaled, the others themselves."""
    return StakesKind.SCALED if how[:1] in ("x", "/") else StakesKind(how)


def fit(table: Table, written: list[tuple[int, int]]) -> Fitted | None:
    """The stakes to play a round written at `written` (each seat's ante and AA Bonus, 0
    for none) at this table: as written if the table takes them; else all multiplied, or
    all divided exactly, by the smallest common factor that fits (settlement is linear in
    the stake: a hand-worked round stays the same round; the divisor is searched between
    the bounds the limits give, never by trial division up to a square root, so a round
    written at 10^30 is fitted at once); else each seat restaked at the nearest stakes
    the table takes. None when a seat's AA Bonus cannot be staked at all
    (the table takes none beside any ante it allows)."""
    if _takes(table, written):
        return Fitted(tuple(written), StakesKind.AS_WRITTEN.value)
    amounts = [a for pair in written for a in pair if a]
    k = max(_ceil_div(lo, a) for a, lo in _lower_limits(table, written))
    scaled = [(ante * k, aa * k) for ante, aa in written]
    if k > 1 and _takes(table, scaled):
        return Fitted(tuple(scaled), f"x{k}")
    common = 0
    for a in amounts:
        common = gcd(common, a)
    # Divided exactly, every stake keeps its ratio to the others (the house cap holds as
    # written or not at all): the divisors that fit are those between the bounds below.
    d = _smallest_divisor_between(
        common,
        max(_ceil_div(a, hi) for a, hi in _upper_limits(table, written)),
        min(a // lo for a, lo in _lower_limits(table, written)),
    )
    if d is not None:
        divided = [(ante // d, aa // d) for ante, aa in written]
        if _takes(table, divided):
            return Fitted(tuple(divided), f"/{d}")
    restaked = []
    for ante, aa in written:
        ante = min(max(ante, table.ante[0]), table.ante[1])
        if aa:
            least = table.smallest_aa_ante
            if least is None:
                return None
            ante = max(ante, least)
            allowed = table.aa_range(ante)
            assert allowed is not None  # an ante at least the smallest that takes one
            aa = min(max(aa, allowed[0]), allowed[1])
        restaked.append((ante, aa))
    return Fitted(tuple(restaked), StakesKind.RESTAKED.value)


def _takes(table: Table, stakes: list[tuple[int, int]]) -> bool:
    return all(table.refuses(ante, aa) is None for ante, aa in stakes)


def _lower_limits(table: Table, stakes: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Each stake with its wager's lower limit."""
    found = [(ante, table.ante[0]) for ante, _ in stakes]
    if table.aa_bonus is not None:
        found += [(aa, table.aa_bonus[0]) for _, aa in stakes if aa]
    return found


def _upper_limits(table: Table, stakes: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Each stake with its wager's upper limit."""
    found = [(ante, table.ante[1]) for ante, _ in stakes]
    if table.aa_bonus is not None:
        found += [(aa, table.aa_bonus[1]) for _, aa in stakes if aa]
    return found


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


TRIAL_PRIMES_UP_TO = 1 << 16  # trial division stops here: a vector's stakes may be huge
MAX_DIVISORS = 1 << 14  # divisors of the stakes' common factor tried, at most


def _smallest_divisor_between(n: int, low: int, high: int) -> int | None:
    """The smallest divisor d of n with low <= d <= high, found among the divisors built
    from n's prime factors up to TRIAL_PRIMES_UP_TO and its one cofactor beyond them
    (itself a divisor, prime or not); None when none of those lies in the range. Never
    trial division up to the square root of n: a vector staking 10^30 is answered at once,
    and a divisor missed in an unfactored cofactor only means the round is restaked."""
    if n < 1 or high < max(low, 2) or low > n:
        return None
    factors: list[tuple[int, int]] = []
    rest = n
    p = 2
    while p <= TRIAL_PRIMES_UP_TO and p * p <= rest:
        if rest % p == 0:
            power = 0
            while rest % p == 0:
                rest //= p
                power += 1
            factors.append((p, power))
        p += 1 if p == 2 else 2
    if rest > 1:
        factors.append((rest, 1))
    divisors = [1]
    for prime, power in factors:
        powers = [prime**k for k in range(power + 1)]
        divisors = [d * q for d in divisors for q in powers if d * q <= high]
        if len(divisors) > MAX_DIVISORS:  # keep the smallest: the search wants the least
            divisors = sorted(divisors)[:MAX_DIVISORS]
    found = [d for d in divisors if max(low, 2) <= d <= high]
    return min(found) if found else None
