"""The model's codes in words, the same in every rendering: the PDF, JUnit, the Markdown
summary and the command line's (harness/results/model.py holds codes, never sentences)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from harness.results.model import ProfileInfo, Reason, ReasonCode, TableSection, VariedField


def reason_text(reason: Reason) -> str:
    """One reason as a sentence without its leading capital (it follows a label)."""
    s, d = reason.subject, reason.detail
    match reason.code:
        case ReasonCode.UNREACHABLE:
            return f"implementation unreachable ({s}): {d}"
        case ReasonCode.INTERRUPTED:
            return f"run interrupted ({s}) before every item had run"
        case ReasonCode.RUNNER_ERROR:
            return "internal error in the test runner"
        case ReasonCode.RUNNER_STOPPED:
            said = f"; {d}" if d else ""
            return f"the test runner stopped before writing results (exit {s}){said}"
        case ReasonCode.HARNESS_ERROR:
            return f"harness error in {s}: {d}"
        case ReasonCode.SELECTION:
            return f"selection {s}: {d} items selected; a selection is never a certificate"
        case ReasonCode.CLAUSES_NOT_TESTED:
            return f"{len(s.split(', '))} clauses not tested: {s}"
        case ReasonCode.SHORT_SAMPLE:
            return d
        case ReasonCode.MATH_FAILED:
            return f"game mathematics failed: {d}"
        case ReasonCode.FIGURES_NOT_CHECKED:
            return f"figures not checked: {s}"
        case ReasonCode.NO_HELLO:
            return "the figures the game publishes are unknown: no conforming hello"
        case ReasonCode.NOT_TESTED:
            return f"not tested: {d}"
        case ReasonCode.NOTHING_APPLIES:
            return "no vector or check applies under this profile"
        case ReasonCode.ATTESTED:
            return f"{d}, attested by {s}"
        case ReasonCode.ALSO_ATTESTED:
            return f"also attested by {s}"
        case ReasonCode.ATTESTATION_REJECTED:
            return f"attestation by {s} rejected: the clause failed here"
        case ReasonCode.NOT_BORNE_OUT:
            return f"the run's own records bar a PASS: {d}"
        case _:
            return d


def why_text(reason: Reason) -> str:
    """A clause's reason as a gap lists it: an item's reason without "not tested: "."""
    return reason.detail if reason.code is ReasonCode.NOT_TESTED else reason_text(reason)


def ways_to_close(needs: Iterable[str]) -> list[str]:
    """What would close a gap, each once: the needs, then a laboratory's attestation,
    which always would, named once and last (the most specific where needs name more
    than one, as "an attestation (not_applicable)").

    The capabilities its items lack are one way, named once ("capabilities inject and
    seats:2"), where the first of them stood: each item names only its own, and listed
    apart they read "capability inject capability seats:2"."""
    ways: list[str] = []
    capabilities: list[str] = []
    for need in needs:
        if need.startswith(_CAPABILITY):
            if _CAPABILITY not in ways:
                ways.append(_CAPABILITY)  # where the capabilities go, named below
            for name in need.removeprefix(_CAPABILITY).split(","):
                if name.strip() and name.strip() not in capabilities:
                    capabilities.append(name.strip())
        elif need not in ways:
            ways.append(need)
    ways = [_capabilities(capabilities) if w == _CAPABILITY else w for w in ways]
    attestations = [w for w in ways if "attestation" in w]
    ways = [w for w in ways if "attestation" not in w]
    attestation = max(attestations, key=len) if attestations else "an attestation"
    return [*ways, f"or {attestation}"] if ways else [attestation]


_CAPABILITY = "capability "


def _capabilities(names: list[str]) -> str:
    if len(names) == 1:
        return f"{_CAPABILITY}{names[0]}"
    return f"capabilities {', '.join(names[:-1])} and {names[-1]}"


def close_text(needs: Iterable[str]) -> str:
    """A gap's ways to close, as one phrase every rendering prints alike: "--rng-decks
    20000, capability inject, or an attestation"."""
    return ", ".join(ways_to_close(needs))


# ---------------------------------------------------------------------------- profiles

# A claimed figure by its wire name, as a rules source prints it.
_FIGURES = {
    "house_edge": "house edge",
    "aa_bonus_edge": "AA Bonus house edge",
    "raise_frequency": "raise frequency",
    "rtp": "return to player",
}
# A rule of the profile (`rules.*`) by its wire name: a flag is answered yes or no.
_RULES = {
    "fold_forfeits_aa_bonus": "fold forfeits the AA Bonus",
    "hole_cards_face_up": "hole cards dealt face up",
    "ante_when_dealer_does_not_qualify": "ante when the dealer does not qualify",
    "interrupted_rounds": "interrupted rounds",
}
_RULE_VALUES = {
    "pay_table": "paid by the pay table",
    "pay_table_if_player_wins_else_even": (
        "paid by the pay table if the player wins, else at even money"
    ),
    "resume": "resumed",
    "void": "voided",
}
_LIMITS = {"ante": "ante", "aa_bonus": "AA Bonus"}


def wire_words(name: object) -> str:
    """A wire name in words: `four_of_a_kind` reads "four of a kind"."""
    return str(name).replace("_", " ")


def count(value: object) -> str:
    """An integer with thousands separators (money in minor units, counts); anything
    else as it is."""
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value)


def limits_text(bounds: object) -> str:
    """A wager's limits: "100 to 50,000"; "none" for none, a malformed pair as it is."""
    if bounds is None:
        return "none"
    if isinstance(bounds, list | tuple) and len(bounds) == 2:
        return f"{count(bounds[0])} to {count(bounds[1])}"
    return str(bounds)


def house_rule_text(name: str, value: object) -> str:
    """A house rule the game declares, in words: "an AA Bonus at most 1 x the ante"."""
    if name == "aa_bonus_max_ante_multiple":
        return f"an AA Bonus at most {count(value)} x the ante"
    return f"{wire_words(name)} {count(value)}"


def _house_rule_name(name: object) -> str:
    """A house rule by name alone (a profile allows it, whatever its value)."""
    if name == "aa_bonus_max_ante_multiple":
        return "an AA Bonus capped at a multiple of the ante"
    return wire_words(name)


def _plain(value: object) -> str:
    """A profile's value in words: yes or no, a count, a list joined, a name unwired."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float):
        return count(value)
    if isinstance(value, list | tuple):
        return " or ".join(_plain(v) for v in value) or "none"
    if isinstance(value, dict):
        return ", ".join(f"{wire_words(k)} {_plain(v)}" for k, v in value.items()) or "none"
    return wire_words(value)


def _odds(value: object, absent: str) -> str:
    return absent if value is None else f"{count(value)} to 1"


def _bare(value: object, absent: str) -> str:
    """A base's odds in the brackets: the number alone, "(standard: 20)"."""
    return absent if value is None else count(value)


def _rule(value: object) -> str:
    if isinstance(value, list | tuple):
        return " or ".join(_rule(v) for v in value) or "none"
    return _RULE_VALUES.get(str(value), _plain(value)) if isinstance(value, str) else _plain(value)


def _claimed(value: object) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "not claimed" if value is None else str(value)
    return f"{100 * value:.6g}%"


def varied_text(varied: VariedField, base: str | None) -> str:
    """What an approved variation changes of one field, then its base's value:
    "straight flush 49 to 1 (standard: 20)", "AA Bonus flush not paid (standard: 20)",
    "fold forfeits the AA Bonus: no (standard: yes)", "claimed house edge 0.35%
    (standard: 2.16%)". `base` names the bundled profile whose clauses apply."""
    field, base_value, approved = varied.field, varied.base, varied.approved
    head, _, row = field.partition(".")
    name = base or "base"
    if head == "ante_pay_table" and row:
        # A row the ante pay table does not list pays 1 to 1.
        said, was = f"{wire_words(row)} {_odds(approved, '1 to 1')}", _bare(base_value, "1")
    elif head == "aa_bonus_pay_table" and row:
        said = f"AA Bonus {wire_words(row)} {_odds(approved, 'not paid')}"
        was = _bare(base_value, "not paid")
    elif head == "aa_bonus_pay_table":
        said = "no AA Bonus" if approved is None else f"AA Bonus pays {pay_table_text(approved)}"
        was = "no AA Bonus" if base_value is None else "AA Bonus offered"
    elif head == "claims" and row:
        figure = _FIGURES.get(row, wire_words(row))
        said, was = f"claimed {figure} {_claimed(approved)}", _claimed(base_value)
    elif head == "rules" and row:
        said = f"{_RULES.get(row, wire_words(row))}: {_rule(approved)}"
        was = _rule(base_value)
    elif head == "dealer_qualifier":
        said = f"dealer qualifies with {_plain(approved)} or better"
        was = _plain(base_value)
    elif head == "call_multiple":
        said, was = f"call {_plain(approved)} x the ante", _plain(base_value)
    elif head == "required_limits" and row:
        wager = _LIMITS.get(row, wire_words(row))
        said = f"required {wager} limits {limits_text(approved)}"
        was = limits_text(base_value)
    elif head == "required_limits":
        said, was = f"required limits {_limits(approved)}", _limits(base_value)
    elif head == "house_rules_allowed":
        said = f"house rules allowed: {_allowed(approved)}"
        was = _allowed(base_value)
    else:
        said, was = f"{wire_words(field)} {_plain(approved)}", _plain(base_value)
    return f"{said} ({name}: {was})"


def pay_table_text(table: object) -> str:
    """A pay table in words: "royal flush 100 to 1, straight flush 20 to 1"."""
    if not isinstance(table, dict) or not table:
        return "none"
    return ", ".join(f"{wire_words(k)} {_odds(v, 'not paid')}" for k, v in table.items())


def _limits(limits: object) -> str:
    if not isinstance(limits, dict) or not limits:
        return "none"
    return ", ".join(f"{_LIMITS.get(k, wire_words(k))} {limits_text(v)}" for k, v in limits.items())


def _allowed(names: object) -> str:
    if not isinstance(names, list | tuple) or not names:
        return "none"
    return ", ".join(_house_rule_name(n) for n in names)


def base_of(profile: ProfileInfo) -> str | None:
    """The profile a variation varies, whose clauses apply: None for a bundled profile."""
    return profile.clauses_from or profile.extends


def is_variation(profile: ProfileInfo) -> bool:
    """An approved variation of a bundled profile (a results file before schema 6 says
    nothing of one)."""
    return bool(profile.extends or profile.variations)


def variation_line(profile: ProfileInfo) -> str:
    """What a profile that extends another is: "approved variation of standard"."""
    return f"approved variation of {base_of(profile) or 'a bundled profile'}"


def variation_summary(profile: ProfileInfo) -> str:
    """A variation on one line (the Markdown and command-line summaries): its base, what
    it changes, the base's clauses that do not apply; "" for a bundled profile."""
    if not is_variation(profile):
        return ""
    base = base_of(profile)
    said = "; ".join(varied_text(v, base) for v in profile.variations) or "nothing changed"
    line = f"{variation_line(profile)}: {said}"
    if profile.not_applicable:
        line += f". {not_applicable_text(profile.not_applicable, base)}"
    if profile.not_offered:
        line += f". {not_offered_text(profile.not_offered)}"
    return line


def not_offered_text(clauses: Iterable[str]) -> str:
    """The clauses about the AA Bonus, which a variation removing it does not offer."""
    return f"Not applicable under the variation: {', '.join(clauses)} (it offers no AA Bonus)"


def not_applicable_text(clauses: Iterable[str], base: str | None) -> str:
    """The base's claimed-figure clauses a variation does not restate, so do not apply."""
    ids = list(clauses)
    of = f" of {base}" if base else ""
    why = "claimed figure" if len(ids) == 1 else "claimed figures"
    return f"Not applicable under the variation: {', '.join(ids)} ({why}{of} not restated)"


# ---------------------------------------------------------------------------- the table

# How a vector's stakes were fitted to the table (harness/rules/table.py), in the order shown.
_STAKES = {
    "as written": "as written",
    "scaled": "scaled to the table",
    "restaked": "restaked inside its limits",
}


def stakes_text(stakes: dict[str, int]) -> str:
    """How the vectors' stakes were fitted to the table: "95 vectors as written, 2,500
    scaled to the table, 3 restaked inside its limits"; "" when none was played."""
    kinds = [k for k in _STAKES if stakes.get(k)] + [k for k in stakes if k not in _STAKES]
    parts = [f"{count(stakes[k])} {_STAKES.get(k, wire_words(k))}" for k in kinds if stakes[k]]
    if not parts:
        return ""
    first, _, rest = parts[0].partition(" ")
    noun = "vector" if first == "1" else "vectors"
    return ", ".join([f"{first} {noun} {rest}", *parts[1:]])


def table_lines(table: TableSection) -> list[str]:
    """The table the game declared, a line each: its limits and house rules, what the
    profile requires of a table, the stakes the vectors were played at."""
    ante = (
        f"ante {limits_text(table.ante)}"
        if table.ante is not None
        else "no valid ante limits declared"
    )
    aa = f"AA Bonus {limits_text(table.aa_bonus)}" if table.aa_bonus is not None else "no AA Bonus"
    units = " (minor units)" if table.ante is not None or table.aa_bonus is not None else ""
    rules = [
        f"house rule: {house_rule_text(name, value)}"
        + ("" if name in table.house_rules_allowed else " (the profile does not allow it)")
        for name, value in table.house_rules.items()
    ]
    if table.unknown_house_rules:
        rules.append(f"house rules not in protocol v1: {', '.join(table.unknown_house_rules)}")
    lines = ["; ".join([f"Limits: {ante}; {aa}{units}", *(rules or ["no house rules"])])]
    if table.required_limits:
        lines.append(f"The profile requires a table to accept {_limits(table.required_limits)}")
    said = stakes_text(table.stakes)
    if said:
        lines.append(f"Stakes played: {said}")
    return lines


def table_summary(table: TableSection | None) -> str:
    """The table on one line (the Markdown and command-line summaries); "" for a results
    file that records none (a stub, or one before schema 6)."""
    return "" if table is None else ". ".join(table_lines(table))


def plan_line(record: Mapping[str, Any]) -> str:
    """One line on the plan a run used (a manifest's `plan` record), for the summary and
    the certificate page: where it came from, and what of it was not applied."""
    where = str(record.get("path", "?"))
    if record.get("table"):
        where += f" [{record['table']}]"
    if record.get("found") != "implicit":
        return f"run plan {where}"
    line = f"run plan {where}, found in the folder chcert ran from (not named with --plan)"
    ignored = [str(k) for k in record.get("ignored") or []]
    if ignored:
        listed = ", ".join(ignored[:-1]) + " and " + ignored[-1] if len(ignored) > 1 else ignored[0]
        line += f": its {listed} ignored (only a plan named with --plan supplies them)"
    return line
