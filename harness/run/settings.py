"""Every setting of `chcert certify`, declared once (docs/command-line.md, docs/run-plan.md).

A setting's declaration says all that chcert needs to know of it: its flags, default
and help text; its key in a run plan and whether only the laboratory's plan may supply
it; its range; whether the test workers receive it, whether the manifest records it and
whether a reproduce command carries it. The command line's parser (harness/cli), the
pytest plugin's options (harness/run/plugin.py), the run plan's keys, their schema and their
precedence (harness/run/plan.py), the manifest's `run_plan` and every reproduce command
(harness/run/runspec.py) are derived from `SETTINGS`: adding a setting is one entry here plus
the code that uses it, and `python -m harness.run.settings` writes its plan schema.

Light on purpose: `chcert --help` and the plugin import it before anything heavy.
"""

from __future__ import annotations

import argparse
import json
import math
import shlex
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

import msgspec

from harness.defaults import (
    DEFAULT_DECKS,
    DEFAULT_DIFFERENTIAL,
    DEFAULT_PROFILE,
    DEFAULT_RTP_ROUNDS,
    DEFAULT_TIMEOUT,
    MAX_DECKS,
    MAX_DIFFERENTIAL,
    MAX_REPEAT,
    MAX_RTP_ROUNDS,
    MAX_SEED,
    MAX_TIMEOUT,
    MAX_WORKERS,
    MIN_DECKS,
)
from harness.paths import SPECS_DIR

# How pytest-xdist may share the items out among workers (docs/command-line.md).
DIST_MODES = ("load", "loadscope", "loadfile", "loadgroup", "worksteal")
PLUGIN_PREFIX = "--chcert-"


class Reproduce(StrEnum):
    """Whether the command that runs one item again carries a setting."""

    ALWAYS = "always"  # the game, the profile, the seed: the item is nothing without them
    CHANGED = "changed"  # when it differs from its default
    NEVER = "never"  # an output, a selection or an invocation detail


@dataclass(frozen=True)
class Setting:
    """One setting of a certification run."""

    dest: str  # its name in the parsed options, the plugin, the manifest
    flags: tuple[str, ...]  # on the command line
    help: str
    default: Any = None
    type: type | None = str  # None: a switch (store_true)
    many: bool = False  # repeatable; a list
    metavar: str | None = None
    choices: tuple[str, ...] = ()
    least: float | None = None  # the range, both ends included unless `above`
    most: float | None = None
    above: bool = False  # `least` excluded (a timeout above 0)
    why_least: str = ""  # why the range starts where it does, said when it is broken
    pattern: str = ""  # a plan's value must match it (plan schema)
    plan_key: str | None = None  # its key in a run plan: "adapter", "signing.key"
    path: bool = False  # a file or folder: resolved against a plan's folder, and absolute
    laboratory: bool = False  # only a plan named with --plan supplies it
    linked: str = ""  # typing one of a group replaces a plan's whole group
    plugin: bool = False  # the pytest plugin's option --chcert-DEST, on every worker
    manifest: bool = False  # recorded in results.json manifest.run_plan
    reproduce: Reproduce = Reproduce.NEVER
    reproduce_for: str = ""  # only for items whose name holds it (rng, differential)

    @property
    def flag(self) -> str:
        """The flag messages, plans and reproduce commands name it by (-n, --seed)."""
        return self.flags[0]

    @property
    def plugin_flag(self) -> str:
        return PLUGIN_PREFIX + self.dest.replace("_", "-")

    def argparse_kwargs(self) -> dict[str, Any]:
        if self.type is None:
            return {"dest": self.dest, "action": "store_true", "help": self.help}
        kwargs: dict[str, Any] = {"dest": self.dest, "help": self.help, "metavar": self.metavar}
        if self.many:
            kwargs.update(action="append", default=[])
        else:
            kwargs["default"] = self.default
        if self.type is not str:
            kwargs["type"] = self.type
        return kwargs

    def out_of_range(self, value: Any) -> str | None:
        """What is wrong with a value outside the range, or None."""
        if value is None or (self.least is None and self.most is None):
            return None
        low_ok = self.least is None or (value > self.least if self.above else value >= self.least)
        if isinstance(value, float) and not math.isfinite(value):
            low_ok = False
        if low_ok and (self.most is None or value <= self.most):
            return None
        what = "a number" if self.type is float else "a whole number"
        lower = f"above {self.least:g}" if self.above else f"from {self.least:,}"
        upper = f"at most {self.most:,.0f}" if self.above else f"to {self.most:,}"
        return f"{self.flag} {value}: {what} {lower} {'and ' if self.above else ''}{upper}" + (
            f" ({self.why_least})" if self.why_least and low_ok is False else ""
        )

    def plan_schema(self) -> dict[str, Any]:
        """The JSON Schema of this setting's value in a run plan (plan.schema.json)."""
        described = {"description": f"{self.flag}: {self.help}"}
        if self.many:
            return {**described, "type": "array", "items": {"type": "string", "minLength": 1}}
        if self.choices:
            return {**described, "enum": list(self.choices)}
        if self.type is str:
            return {
                **described,
                "type": "string",
                **({"pattern": self.pattern} if self.pattern else {"minLength": 1}),
            }
        kind = "integer" if self.type is int else "number"
        bounds: dict[str, Any] = {}
        if self.least is not None:
            bounds["exclusiveMinimum" if self.above else "minimum"] = self.least
        if self.most is not None:
            bounds["maximum"] = self.most
        return {**described, "type": kind, **bounds}


_RNG_WHY = (
    f"the RNG battery judges samples of at least {MIN_DECKS:,} decks: each cell of its "
    "chi-square tests expects 5 or more; harness/gamemath/rng.py"
)

SETTINGS: tuple[Setting, ...] = (
    Setting(
        "adapter",
        ("--adapter",),
        "reference | python:MODULE:CLASS | subprocess:COMMAND | http://HOST:PORT/PATH",
        default="reference",
        plan_key="adapter",
        plugin=True,
        manifest=True,
        reproduce=Reproduce.ALWAYS,
    ),
    Setting(
        "profile",
        ("--profile",),
        "a bundled profile's name (specs/profiles/) or a profile file (in a run plan, a "
        "value with a / or ending .yaml, .yml or .json)",
        default=DEFAULT_PROFILE,
        plan_key="profile",
        plugin=True,
        manifest=True,
        reproduce=Reproduce.ALWAYS,
    ),
    Setting(
        "out",
        ("--out",),
        "folder for the outputs (a run replaces the earlier ones once it has written its own)",
        default="reports",
        plan_key="out",
        path=True,
        plugin=True,
    ),
    Setting(
        "workers",
        ("-n", "--workers"),
        "parallel workers, each with its own connection (default 0: in-process)",
        default=0,
        type=int,
        least=0,
        most=MAX_WORKERS,
        plan_key="workers",
        linked="workers",
    ),
    Setting(
        "tx",
        ("--tx",),
        "a pytest-xdist worker on an execnet gateway, e.g. ssh=HOST//python=python3 or "
        "socket=HOST:PORT (repeatable; N*SPEC starts N); every host needs chcert installed "
        "at the same path; excludes -n",
        many=True,
        metavar="SPEC",
        plan_key="tx",
        linked="workers",
    ),
    Setting(
        "dist",
        ("--dist",),
        f"how pytest-xdist shares the items out among -n or --tx workers: "
        f"{', '.join(DIST_MODES)} (default load)",
        metavar="MODE",
        choices=DIST_MODES,
        plan_key="dist",
        linked="workers",
    ),
    Setting(
        "seed",
        ("--seed",),
        "seed of every randomized check (default: drawn at random)",
        type=int,
        least=0,
        most=MAX_SEED,
        plan_key="seed",
        laboratory=True,  # a vendor choosing it could search for rounds its faults never meet
        plugin=True,
        manifest=True,
        reproduce=Reproduce.ALWAYS,
    ),
    Setting(
        "rng_decks",
        ("--rng-decks",),
        f"decks sampled for the RNG battery (default {DEFAULT_DECKS:,})",
        default=DEFAULT_DECKS,
        type=int,
        least=MIN_DECKS,
        most=MAX_DECKS,
        why_least=_RNG_WHY,
        plan_key="rng_decks",
        plugin=True,
        manifest=True,
        reproduce=Reproduce.CHANGED,
        reproduce_for="rng",
    ),
    Setting(
        "rtp_rounds",
        ("--rtp-rounds",),
        f"rounds played optimally for the RTP simulation (default {DEFAULT_RTP_ROUNDS:,}; "
        "0: not tested)",
        default=DEFAULT_RTP_ROUNDS,
        type=int,
        least=0,
        most=MAX_RTP_ROUNDS,
        plan_key="rtp_rounds",
        plugin=True,
        manifest=True,
        reproduce=Reproduce.CHANGED,
    ),
    Setting(
        "differential",
        ("--differential",),
        "seat-hands dealt as stacked rounds and compared with the rules oracle by the "
        f"differential check (default {DEFAULT_DIFFERENTIAL:,}; 0: not tested)",
        default=DEFAULT_DIFFERENTIAL,
        type=int,
        metavar="N",
        least=0,
        most=MAX_DIFFERENTIAL,
        plan_key="differential",
        plugin=True,
        manifest=True,
        reproduce=Reproduce.CHANGED,
        reproduce_for="differential",
    ),
    Setting(
        "select",
        ("-k",),
        "only items matching this pytest -k expression (never a certificate: at best INCOMPLETE)",
        plan_key="select",
        linked="select",
    ),
    Setting(
        "item",
        ("--item",),
        "run exactly this item (repeatable): how reproduce commands select, where -k "
        "matches every name containing its words; a selection too",
        many=True,
        metavar="CLAUSE/TARGET",
        linked="select",
        plugin=True,
    ),
    Setting(
        "attest",
        ("--attest",),
        "a laboratory's attestations file (YAML, docs/verdict.md)",
        plan_key="attest",
        path=True,
        laboratory=True,
        plugin=True,
        manifest=True,
    ),
    Setting(
        "vectors",
        ("--vectors",),
        "a further vector file to replay, e.g. OUT/repro/*.yaml (repeatable)",
        many=True,
        plan_key="vectors",
        path=True,
        plugin=True,
        manifest=True,
    ),
    Setting(
        "junitxml",
        ("--junitxml",),
        "where to write JUnit XML (default OUT/junit.xml)",
        plan_key="junitxml",
        path=True,
    ),
    Setting(
        "summary_md",
        ("--summary-md",),
        "append a Markdown summary to FILE, e.g. $GITHUB_STEP_SUMMARY (docs/ci.md)",
        metavar="FILE",
    ),
    Setting(
        "replace_signed",
        ("--replace-signed",),
        "let this run replace a signed report.pdf in OUT (else a usage error)",
        type=None,
        default=False,
    ),
    Setting(
        "timeout",
        ("--timeout",),
        f"seconds to wait for each reply (default {DEFAULT_TIMEOUT:g})",
        default=DEFAULT_TIMEOUT,
        type=float,
        least=0,
        most=MAX_TIMEOUT,
        above=True,
        plan_key="timeout",
        plugin=True,
        manifest=True,
        reproduce=Reproduce.CHANGED,
    ),
    Setting(
        "repeat",
        ("--repeat",),
        "replay every vector N times (soak)",
        default=1,
        type=int,
        least=1,
        most=MAX_REPEAT,
        plan_key="repeat",
        plugin=True,
        manifest=True,
        reproduce=Reproduce.CHANGED,
    ),
    Setting(
        "artifact",
        ("--artifact",),
        "a file of the build submitted, hashed (SHA-256) onto the certificate page (repeatable)",
        many=True,
        metavar="FILE",
        plan_key="artifacts",
        path=True,
    ),
    Setting(
        "register",
        ("--register",),
        "the laboratory's register of certificates (a path: SQLite; a postgresql:// URL): "
        "numbers the report and records it (docs/register.md)",
        metavar="PATH|URL",
        plan_key="register",
        laboratory=True,
    ),
    Setting(
        "sign_key",
        ("--sign-key",),
        "private key (PEM, DER, or a PKCS#12 bundle) that signs report.pdf (docs/signing.md)",
        metavar="KEY",
        plan_key="signing.key",
        path=True,
        laboratory=True,
        linked="signing",
    ),
    Setting(
        "sign_cert",
        ("--sign-cert",),
        "the signer's certificate",
        metavar="CERT",
        plan_key="signing.cert",
        path=True,
        laboratory=True,
        linked="signing",
    ),
    Setting(
        "sign_passphrase_env",
        ("--sign-passphrase-env",),
        "environment variable holding the key's passphrase (never the passphrase itself)",
        metavar="VAR",
        pattern="^[A-Za-z_][A-Za-z0-9_]*$",
        plan_key="signing.passphrase_env",
        laboratory=True,
        linked="signing",
    ),
    Setting(
        "timestamp_url",
        ("--timestamp-url",),
        "RFC 3161 timestamp authority that stamps the signature (http:// or https://)",
        metavar="URL",
        pattern="^https?://[^\\s/]+",
        plan_key="signing.timestamp_url",
        laboratory=True,
        linked="signing",
    ),
)
BY_DEST: Mapping[str, Setting] = {s.dest: s for s in SETTINGS}
SIGNING = tuple(s for s in SETTINGS if s.linked == "signing")


def add_arguments(parser: argparse.ArgumentParser, settings: Iterable[Setting]) -> None:
    """The command-line options of `settings`, as declared."""
    for setting in settings:
        parser.add_argument(*setting.flags, **setting.argparse_kwargs())


def range_problems(values: Mapping[str, Any]) -> list[str]:
    """What is out of range among the declared settings of `values` (usage errors)."""
    found = (s.out_of_range(values.get(s.dest)) for s in SETTINGS)
    return [problem for problem in found if problem]


def plugin_args(values: Mapping[str, Any]) -> list[str]:
    """The plugin's options for a run, each one `--chcert-DEST=VALUE` token and every path
    absolute: pytest-xdist forwards them to each worker, which may run on another host, in
    another folder (--tx)."""
    args = []
    for setting in (s for s in SETTINGS if s.plugin):
        value = values.get(setting.dest)
        for one in (value or []) if setting.many else [value]:
            if one is None:
                continue
            shown = str(Path(one).resolve()) if setting.path else one
            args.append(f"{setting.plugin_flag}={shown}")
    return args


class RunSettings(msgspec.Struct, frozen=True, kw_only=True):
    """The settings the test run works with: those declared `plugin` above, typed (a
    test holds the fields to the declarations). Built once, from the command line or
    the plugin's options; a pytest-xdist worker receives it from the controller
    (its workerinput), never parsing the options again."""

    adapter: str
    profile: str
    out: str
    seed: int | None
    rng_decks: int
    rtp_rounds: int
    differential: int
    item: tuple[str, ...] = ()
    attest: str | None = None
    vectors: tuple[str, ...] = ()
    timeout: float
    repeat: int

    @classmethod
    def of(cls, values: Mapping[str, Any]) -> RunSettings:
        """The settings from parsed options by their dests; a value of the wrong type is
        msgspec.ValidationError (the parsers' types make none)."""
        given = {s.dest: values.get(s.dest) for s in SETTINGS if s.plugin}
        given |= {s.dest: tuple(given[s.dest] or ()) for s in SETTINGS if s.plugin and s.many}
        return msgspec.convert(given, cls, str_keys=True)

    def value(self, dest: str) -> Any:
        """A setting by its dest (the declarations' name for it)."""
        return getattr(self, dest)

    def problems(self) -> list[str]:
        """What is out of range among them (usage errors, as `chcert certify` says)."""
        return range_problems({s.dest: self.value(s.dest) for s in SETTINGS if s.plugin})

    def manifest(self, profile: str, selection: Mapping[str, str]) -> dict[str, Any]:
        """manifest.run_plan: the settings the manifest records, the profile as a command
        names it, and the selection (docs/results.md)."""
        recorded = {s.dest: _recorded(self.value(s.dest)) for s in SETTINGS if s.manifest}
        return {**recorded, "profile": profile, "selection": dict(selection) or None}

    def reproduce(
        self, profile: str, out: Path, item: str | None, extra: Sequence[str] = ()
    ) -> str:
        """The `chcert certify` command that runs `item` (None: every item) again, exactly
        as this run did. It writes to OUT/reproduce, never over the report it came from."""
        argv = ["chcert", "certify"]
        for setting in SETTINGS:
            value = profile if setting.dest == "profile" else getattr(self, setting.dest, None)
            if not _carried(setting, value, item, extra):
                continue
            shown = f"{value:g}" if isinstance(value, float) else str(value)
            argv += [setting.flag, shown]
        argv += ["--out", str((out / "reproduce").resolve()), *extra]
        return shlex.join([*argv, *(["--item", item] if item else [])])


def _recorded(value: Any) -> Any:
    """A setting as the manifest records it: a repeated one as a list."""
    return list(value) if isinstance(value, tuple) else value


def _carried(setting: Setting, value: Any, item: str | None, extra: Sequence[str]) -> bool:
    if setting.reproduce is Reproduce.ALWAYS:
        return True
    return (
        setting.reproduce is Reproduce.CHANGED
        and value != setting.default
        and setting.flag not in extra
        and setting.reproduce_for in (item or setting.reproduce_for)
    )


def from_plugin(option: Any) -> RunSettings:
    """The settings the plugin received (pytest's `config.option`)."""
    return RunSettings.of(
        {s.dest: getattr(option, "chcert_" + s.dest) for s in SETTINGS if s.plugin}
    )


# ------------------------------------------------------------- the run plan's schema

PLAN_SCHEMA = SPECS_DIR / "schemas" / "plan.schema.json"


def plan_schema(current: Mapping[str, Any]) -> dict[str, Any]:
    """plan.schema.json with its settings as declared here: the top-level keys, the
    [signing] table and the manifest record's `settings`, the rest as `current` has it."""
    schema: dict[str, Any] = json.loads(json.dumps(current))
    top = {k: v for k, v in schema["properties"].items() if k in _TABLES}
    signing = schema["$defs"]["signing"]
    signing["properties"] = {}
    recorded = {}
    for setting in SETTINGS:
        if setting.plan_key is None:
            continue
        table, _, key = setting.plan_key.rpartition(".")
        if table:
            signing["properties"][key] = setting.plan_schema()
            recorded[setting.dest] = {"$ref": f"#/$defs/{table}/properties/{key}"}
        else:
            top[key] = setting.plan_schema()
            recorded[setting.dest] = {"$ref": f"#/properties/{key}"}
    schema["properties"] = {
        **{k: v for k, v in top.items() if k not in _TABLES},
        **{k: top[k] for k in _TABLES},
    }
    schema["$defs"]["record"]["properties"]["settings"]["properties"] = recorded
    return schema


# The plan's tables that are not settings of their own (docs/run-plan.md).
_TABLES = ("laboratory", "signing", "minimums")


def schema_text(schema: Mapping[str, Any]) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write plan.schema.json from the declarations (`--check`: exit 1 if it differs)."""
    from harness._schema import write_generated

    wanted = schema_text(plan_schema(json.loads(PLAN_SCHEMA.read_text(encoding="utf-8"))))
    return write_generated(PLAN_SCHEMA, wanted, "python -m harness.run.settings", argv)


if __name__ == "__main__":
    raise SystemExit(main())
