"""Run plans: a certification as one reviewed file plus `chcert certify` (docs/run-plan.md).

A laboratory reviews the settings of a certification before it runs: the game's
adapter, the profile, the seed, the sample sizes, the vendor's build files, who signs.
Typed on a command line they leave no trace worth reviewing; written in a plan they
can be read, diffed, committed, and hashed into the report. So:

- where the plan comes from (`find_plan`): `--plan FILE`, else `./chcert.toml`, else
  `[tool.chcert]` of `./pyproject.toml`, else none (`--no-plan`: none). A plan found
  in the current folder may be the vendor's, in the tree under test: it sets the run's
  options, but never the laboratory, the attestations, the signing, the minimum
  sample sizes or the seed, which only a plan named with `--plan` supplies
  (`IMPLICIT_IGNORED`);
- what it may hold (`load_plan`): specs/schemas/plan.schema.json, every table closed,
  so a misspelt key is an error naming the file, the key and its line, never a setting
  silently ignored; and never a passphrase, only the name of a variable holding it;
- how it applies (`explicit_options`, `apply_plan`): whatever the command line gives
  wins, option by option; relative paths are the plan's, resolved against its folder;
- what is recorded (`Plan.to_json`): the file, its SHA-256, what it set and what the
  command line overrode, for results.json's manifest.
"""

from __future__ import annotations

import argparse
import copy
import difflib
import hashlib
import json
import math
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NamedTuple

import jsonschema

from harness._schema import MAX_SPEC_BYTES, validator
from harness.errors import SpecError
from harness.run.settings import BY_DEST, SETTINGS, SIGNING

SCHEMA = "plan.schema.json"
PLAN_FILE = "chcert.toml"
PYPROJECT = "pyproject.toml"
PYPROJECT_TABLE = ("tool", "chcert")

# Plan key -> the `chcert certify` option's dest, as harness/run/settings.py declares them
# (the table of docs/run-plan.md); the keys of [signing] apart, under SIGNING_DESTS.
DESTS: dict[str, str] = {
    s.plan_key: s.dest for s in SETTINGS if s.plan_key and "." not in s.plan_key
}
SIGNING_DESTS: dict[str, str] = {
    s.plan_key.partition(".")[2]: s.dest for s in SIGNING if s.plan_key
}
PROFILE_SUFFIXES = frozenset({".yaml", ".yml", ".json"})  # as harness/rules/profiles.py reads them

# Options that make one decision between them: typing any of a group replaces the
# plan's whole group, so that a plan's `workers` never meets a typed `--tx` (which
# exclude each other), a plan's `-k` never narrows a typed `--item`, and a typed key
# is never paired with the plan's certificate.
LINKED: tuple[frozenset[str], ...] = tuple(
    frozenset(s.dest for s in SETTINGS if s.linked == group)
    for group in sorted({s.linked for s in SETTINGS if s.linked})
)


# What only the laboratory decides, and so only a plan it names with --plan supplies: a
# plan found in the folder chcert runs from may be the vendor's own (docs/run-plan.md).
# Each plan key, with the option dests it sets: the laboratory's settings (the seed, the
# attestations, the signing), and the tables [laboratory] and [minimums].
def _laboratory_keys() -> dict[str, frozenset[str]]:
    keys: dict[str, frozenset[str]] = {"laboratory": frozenset(), "minimums": frozenset()}
    for setting in SETTINGS:
        if setting.laboratory and setting.plan_key:
            key = setting.plan_key.partition(".")[0]
            keys[key] = keys.get(key, frozenset()) | {setting.dest}
    return keys


IMPLICIT_IGNORED = _laboratory_keys()

# Keys that would hold a secret; a key naming a variable (`..._env`) holds none.
_SECRET = re.compile(r"^(?!.*_env$).*(passphrase|password|secret)|^(pass|pin)$", re.IGNORECASE)


class PlanError(SpecError):
    """A run plan that cannot be used: unreadable, not TOML, or against the schema.

    A SpecError, so the command line ends with exit 4 before anything runs, and the
    message starts with the file and line (harness/errors.py).
    """


@dataclass(frozen=True)
class Plan:
    """A validated run plan; values keyed by option dest, paths already resolved.

    Lists are tuples, so that a plan stays what was reviewed: `apply_plan` hands the
    namespace fresh lists. `overridden` is filled by `apply_plan`.
    """

    path: Path
    sha256: str
    table: str | None
    settings: Mapping[str, Any]
    laboratory: Mapping[str, str]
    minimums: Mapping[str, int] = field(default_factory=dict)
    overridden: frozenset[str] = field(default_factory=frozenset)
    implicit: bool = False  # found in the current folder, not named with --plan
    ignored: tuple[str, ...] = ()  # the keys an implicit plan held and did not supply

    def overridden_by(self, explicit: Iterable[str]) -> frozenset[str]:
        """The dests this plan sets that the command line decides instead (LINKED too)."""
        typed = set(explicit)
        for group in LINKED:
            if group & typed:
                typed |= group
        return frozenset(dest for dest in self.settings if dest in typed)

    def to_json(self) -> dict[str, Any]:
        """What the manifest records (plan.schema.json#/$defs/record).

        Only the name of the passphrase's variable is ever here: the plan cannot hold
        the passphrase itself (load_plan refuses it).
        """
        return {
            "path": str(self.path),
            "table": self.table,
            "sha256": self.sha256,
            "settings": {
                dest: list(value) if isinstance(value, tuple) else value
                for dest, value in self.settings.items()
                if dest not in self.overridden
            },
            "overridden": sorted(self.overridden),
            "laboratory": dict(self.laboratory),
            "found": "implicit" if self.implicit else "named",
            "ignored": list(self.ignored),
            "minimums": dict(self.minimums),
        }

    def as_found(self) -> Plan:
        """This plan as one found implicitly: what only the laboratory decides
        (IMPLICIT_IGNORED) is dropped, and the keys it held are kept in `ignored`, to be
        said."""
        tables = {"laboratory": self.laboratory, "minimums": self.minimums}
        held = tuple(
            key
            for key, dests in IMPLICIT_IGNORED.items()
            if tables.get(key) or any(d in self.settings for d in dests)
        )
        dropped = frozenset().union(*IMPLICIT_IGNORED.values())
        return replace(
            self,
            settings={d: v for d, v in self.settings.items() if d not in dropped},
            laboratory={},
            minimums={},
            implicit=True,
            ignored=held,
        )


# ---------------------------------------------------------------- where it comes from


def find_plan(
    option: str | Path | None, cwd: Path | None = None, search: bool = True
) -> Plan | None:
    """The plan of this run: `--plan FILE` (which must exist), else (unless `search` is
    off: `--no-plan`) `chcert.toml` in `cwd`, else `[tool.chcert]` of `cwd`'s
    pyproject.toml, else None. A plan found so is `implicit` (Plan.as_found).

    A pyproject.toml without the table is no plan; one that is not TOML is an error,
    since it might have held the plan the author meant.
    """
    where = Path.cwd() if cwd is None else cwd
    if option is not None:
        given = Path(option)
        return load_plan(given if given.is_absolute() else where / given)
    if not search:
        return None
    own = where / PLAN_FILE
    if own.is_file():
        return load_plan(own).as_found()
    pyproject = where / PYPROJECT
    found = _load(pyproject, required=False) if pyproject.is_file() else None
    return found.as_found() if found is not None else None


def load_plan(path: str | Path) -> Plan:
    """Read and validate one plan; a file named pyproject.toml must hold [tool.chcert]."""
    plan = _load(Path(path), required=True)
    assert plan is not None  # required: a missing table raised
    return plan


def _load(path: Path, required: bool) -> Plan | None:
    path = path.absolute()
    raw = _read(path)
    text = _decode(path, raw)
    data = _parse(path, text)
    base: tuple[str, ...] = ()
    if path.name == PYPROJECT:
        base = PYPROJECT_TABLE
        table = data.get("tool", {}).get("chcert") if isinstance(data.get("tool"), dict) else None
        if table is None:
            if required:
                raise PlanError(path, None, "no [tool.chcert] table: nothing to plan")
            return None
        if not isinstance(table, dict):
            line = _key_lines(text).get(base)
            raise PlanError(path, line, "tool.chcert: a table is expected")
        data = table
    _validate(path, text, data, base)
    settings = _settings(data, path.parent)
    return Plan(
        path=path,
        sha256=hashlib.sha256(raw).hexdigest(),
        table=".".join(base) or None,
        settings=settings,
        laboratory=dict(data.get("laboratory", {})),
        minimums=dict(data.get("minimums", {})),
    )


def _read(path: Path) -> bytes:
    """The file's bytes, hashed as they are: what was reviewed is what is recorded."""
    try:
        if not path.is_file():
            what = "is not a file" if path.exists() else "does not exist"
            raise PlanError(path, None, f"run plan {what}")
        size = path.stat().st_size
        if size > MAX_SPEC_BYTES:
            raise PlanError(path, None, f"file is {size:,} bytes; at most {MAX_SPEC_BYTES:,}")
        return path.read_bytes()
    except OSError as exc:
        raise PlanError(path, None, f"cannot read file: {exc.strerror}") from exc


def _decode(path: Path, raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:  # TOML is UTF-8 (toml.io, "Spec")
        line = raw[: exc.start].count(b"\n") + 1
        raise PlanError(path, line, f"not UTF-8 text: {exc.reason}") from None


_TOML_WHERE = re.compile(r"at line (\d+), column \d+")


def _parse(path: Path, text: str) -> dict[str, Any]:
    """TOML, with tomllib's message kept whole (it has the line and column)."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        found = _TOML_WHERE.search(message)
        line = int(found.group(1)) if found else text.count("\n") + 1
        raise PlanError(path, line, f"TOML syntax: {message}") from None


# ---------------------------------------------------------------- what it may hold


class _Problem(NamedTuple):
    """One thing wrong, ranked: a passphrase first (0), then what is written wrong (1),
    then what is missing (2), which has no line of its own and is often the shadow of
    a misspelt key."""

    key: tuple[str | int, ...]
    message: str
    rank: int = 1


def _validate(path: Path, text: str, data: dict[str, Any], base: tuple[str, ...]) -> None:
    """The schema, then what it cannot say (a float that is not finite); the first
    problem by rank, then in the file's order, with its line."""
    lines = _key_lines(text)
    problems = [p for err in validator(SCHEMA).iter_errors(data) for p in _problems(err)]
    problems += [
        _Problem((key,), "a finite number is expected")
        for key, value in data.items()
        if isinstance(value, float) and not math.isfinite(value)
    ]
    if not problems:
        return
    first = min(problems, key=lambda p: (p.rank, _line_of(lines, (*base, *p.key)) or 0, str(p.key)))
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    raise PlanError(
        path,
        _line_of(lines, (*base, *first.key)),
        f"{_dotted((*base, *first.key))}: {first.message} [schema {SCHEMA}]{more}",
    )


_NO_PASSPHRASE = "never write the passphrase in the plan"
_TOML_TYPES = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "array": "an array",
    "object": "a table",
    "boolean": "a boolean",
}


def _problems(err: jsonschema.ValidationError) -> list[_Problem]:
    """One jsonschema error as problems with their key paths, said in TOML's words."""
    at = tuple(err.absolute_path)
    schema = err.schema if isinstance(err.schema, dict) else {}
    listed = list(err.validator_value) if isinstance(err.validator_value, list) else []
    if err.validator == "additionalProperties" and isinstance(err.instance, dict):
        allowed = sorted(schema.get("properties", {}))
        return [_unknown((*at, key), allowed) for key in sorted(set(err.instance) - set(allowed))]
    if err.validator == "required" and isinstance(err.instance, dict):
        table = f"[{_dotted(at)}]" if at else "the plan"
        return [
            _Problem((*at, key), f"is missing: {table} needs it", rank=2)
            for key in listed
            if key not in err.instance
        ]
    if err.validator == "type":
        expected = _TOML_TYPES.get(str(err.validator_value), str(err.validator_value))
        return [_Problem(at, f"{expected} is expected, found {_toml_value(err.instance)}")]
    if err.validator == "enum":
        choices = ", ".join(map(repr, listed))
        return [_Problem(at, f"value {err.instance!r} is not allowed; allowed: {choices}")]
    if err.validator == "pattern" and at and at[-1] == "passphrase_env":
        # The value is not echoed: a passphrase written here by mistake stays off screen.
        message = "the name of an environment variable is expected (letters, digits, _)"
        return [_Problem(at, message)]
    if err.validator == "minLength":
        return [_Problem(at, "must not be empty")]
    if err.validator == "anyOf" and all("required" in alt for alt in listed):
        keys = " or ".join(str(alt["required"][0]) for alt in listed)  # each names one key
        return [_Problem(at, f"needs {keys} (or both)", rank=2)]
    return [_Problem(at, err.message)]


def _unknown(key: tuple[str | int, ...], allowed: list[str]) -> _Problem:
    name = str(key[-1])
    if _SECRET.search(name):
        return _Problem(
            key,
            f"{_NO_PASSPHRASE} (it would be committed and hashed into the report): put it "
            "in an environment variable and name that variable with [signing] passphrase_env",
            rank=0,
        )
    close = difflib.get_close_matches(name, allowed, n=1)
    hint = f" (did you mean {close[0]}?)" if close else ""
    table = f"[{_dotted(key[:-1])}]" if key[:-1] else "the plan"
    return _Problem(key, f"unknown key{hint}; {table} allows: {', '.join(allowed)}")


def _toml_value(value: Any) -> str:
    kinds = {bool: "a boolean", int: "an integer", float: "a float", str: "a string"}
    kind = kinds.get(type(value))
    if kind is not None:
        shown = json.dumps(value) if isinstance(value, str) else repr(value)
        return f"{kind} ({shown})"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "a table"
    return f"a {type(value).__name__}"  # TOML's dates and times


def _dotted(key: Iterable[str | int]) -> str:
    """A key path as TOML writes it: laboratory.signatory; vectors[1]."""
    out = ""
    for part in key:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            bare = re.fullmatch(r"[A-Za-z0-9_-]+", part)
            out += ("." if out else "") + (part if bare else json.dumps(part))
    return out


# ------------------------------------------------------------- lines of keys


_BARE = r"[A-Za-z0-9_-]+"
_BASIC = r'"(?:[^"\\\n]|\\.)*"'
_LITERAL = r"'[^'\n]*'"
_KEY = rf"(?:{_BARE}|{_BASIC}|{_LITERAL})"
_DOTTED = rf"{_KEY}(?:[ \t]*\.[ \t]*{_KEY})*"
_HEADER = re.compile(rf"^[ \t]*\[\[?[ \t]*({_DOTTED})[ \t]*\]\]?")
_ASSIGN = re.compile(rf"^[ \t]*{_DOTTED}[ \t]*=")
_TOKEN = re.compile(
    rf"(?P<key>{_DOTTED})[ \t]*=|(?P<string>{_BASIC}|{_LITERAL})|(?P<open>\{{)"
    r"|(?P<close>\})|(?P<comment>#.*)"
)


def _key_lines(text: str) -> dict[tuple[str, ...], int]:
    """The line where each key is first written: `[table]` headers then `key =`,
    dotted keys, and (best effort) the keys of inline tables on their line.

    tomllib gives plain data without positions, so the text is scanned; it is already
    known to be valid TOML, which keeps the scan simple. Lines inside multi-line
    strings are skipped.
    """
    lines: dict[tuple[str, ...], int] = {}
    table: tuple[str, ...] = ()
    open_string: str | None = None
    in_array = 0  # brackets still open: the lines of a multi-line array hold no keys
    for number, line in enumerate(text.splitlines(), 1):
        if open_string is not None:
            if open_string in line:
                open_string = None
            continue
        header = None if in_array else _HEADER.match(line)
        if header:
            table = _split(header.group(1))
            for depth in range(1, len(table) + 1):
                lines.setdefault(table[:depth], number)
        elif not in_array and _ASSIGN.match(line):
            _inline_keys(line, table, number, lines)
            in_array = _brackets(line)
        elif in_array:
            in_array = max(0, in_array + _brackets(line))
        for quote in ('"""', "'''"):
            if line.count(quote) % 2:
                open_string = quote
    return lines


def _brackets(line: str) -> int:
    """Square brackets opened minus closed on a line, strings and comment left out."""
    code = re.sub(rf"{_BASIC}|{_LITERAL}", "", line).partition("#")[0]
    return code.count("[") - code.count("]")


def _inline_keys(
    line: str, table: tuple[str, ...], number: int, lines: dict[tuple[str, ...], int]
) -> None:
    """Every key of one `key = value` line, nested in its inline tables."""
    stack = [table]
    last: tuple[str, ...] = table
    for token in _TOKEN.finditer(line):
        kind = token.lastgroup
        if kind == "key":
            last = (*stack[-1], *_split(token.group("key")))
            for depth in range(len(stack[-1]) + 1, len(last) + 1):
                lines.setdefault(last[:depth], number)
        elif kind == "open":
            stack.append(last)
        elif kind == "close" and len(stack) > 1:
            stack.pop()
        elif kind == "comment":
            break


def _split(dotted: str) -> tuple[str, ...]:
    """`a."b.c".d` -> ('a', 'b.c', 'd')."""
    parts = re.findall(_KEY, dotted)
    return tuple(_unquote(p) for p in parts)


def _unquote(key: str) -> str:
    if key.startswith('"'):
        try:
            return str(json.loads(key))  # TOML's basic-string escapes are JSON's, mostly
        except json.JSONDecodeError:
            return key[1:-1]
    if key.startswith("'"):
        return key[1:-1]
    return key


def _line_of(lines: Mapping[tuple[str, ...], int], key: tuple[str | int, ...]) -> int | None:
    """The line of `key`, or of the nearest enclosing key written in the file."""
    names = tuple(p for p in key if isinstance(p, str))
    while names and names not in lines:
        names = names[:-1]
    return lines.get(names)


# ------------------------------------------------------------- values


def _settings(data: Mapping[str, Any], folder: Path) -> dict[str, Any]:
    """Option dest -> value, with the plan's relative paths made absolute from `folder`."""
    settings: dict[str, Any] = {}
    for key, dest in DESTS.items():
        if key in data:
            settings[dest] = _resolved(dest, data[key], folder)
    for key, dest in SIGNING_DESTS.items():
        if key in data.get("signing", {}):
            settings[dest] = _resolved(dest, data["signing"][key], folder)
    return settings


def _resolved(dest: str, value: Any, folder: Path) -> Any:
    setting = BY_DEST[dest]
    if setting.path and setting.many:
        return tuple(str(folder / v) for v in value)
    if (
        setting.path
        or (dest == "profile" and _is_profile_path(value))
        or (dest == "register" and "://" not in value)  # a file; a URL stays as written
    ):
        return str(folder / value)
    if isinstance(value, list):
        return tuple(value)
    if setting.type is float:
        return float(value)
    return value


def _is_profile_path(value: str) -> bool:
    """A profile file rather than a bundled name: it has a folder or a profile suffix.

    harness/rules/profiles.py also takes an existing file of any name; that test is
    relative to the current folder, which is not the plan's, so the plan asks for
    the file to be written recognisably (`./my-profile` will do).
    """
    return "/" in value or "\\" in value or Path(value).suffix in PROFILE_SUFFIXES


# ------------------------------------------------------------- applying it


def explicit_options(parser: argparse.ArgumentParser, argv: list[str]) -> set[str]:
    """The dests of the options the user typed in `argv`, whatever their values.

    Comparing parsed values with defaults cannot tell `--out reports` from no --out;
    so `argv` is parsed again by a copy of the parser whose every default, in every
    subparser, is argparse.SUPPRESS: a dest then exists only when its option was
    given (short, long, abbreviated, `--opt=value` or repeated alike). `argv` must
    be one the parser accepts.
    """
    probe = copy.deepcopy(parser)
    _suppress_defaults(probe)
    return set(vars(probe.parse_args(argv)))


def _suppress_defaults(parser: argparse.ArgumentParser) -> None:
    parser._defaults.clear()  # set_defaults(): not typed
    for action in parser._actions:
        action.default = argparse.SUPPRESS
        if isinstance(action, argparse._SubParsersAction):
            for sub in {id(p): p for p in action.choices.values()}.values():
                _suppress_defaults(sub)


def apply_plan(
    args: argparse.Namespace, plan: Plan | None, explicit: set[str]
) -> argparse.Namespace:
    """A copy of `args` with every plan setting the command line did not decide.

    A list the command line gives replaces the plan's (`--vectors b.yaml` drops the
    plan's vectors): what is run is then what one of the two says, not a merge to work
    out. The copy's `applied_plan` is the plan with `overridden` filled in (None
    without a plan), for the manifest.
    """
    applied = argparse.Namespace(**vars(args))
    if plan is None:
        applied.applied_plan = None
        return applied
    used = replace(plan, overridden=plan.overridden_by(explicit))
    for dest, value in plan.settings.items():
        if dest not in used.overridden:
            setattr(applied, dest, list(value) if isinstance(value, tuple) else value)
    applied.applied_plan = used
    return applied
