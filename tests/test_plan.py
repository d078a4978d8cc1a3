"""Run plans (docs/run-plan.md): found, validated with file and line, applied under the
command line, recorded with their hash."""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path
from typing import Any

import jsonschema
import msgspec
import pytest

from harness._schema import SCHEMA_DIR, _registry
from harness.errors import SpecError
from harness.run.plan import (
    DESTS,
    SIGNING_DESTS,
    Plan,
    PlanError,
    apply_plan,
    explicit_options,
    find_plan,
    load_plan,
)

ROOT = Path(__file__).resolve().parent.parent

LAB = """
[laboratory]
name = "Example Gaming Labs"
report_number = "EGL-1"
jurisdiction = "Nowhere"
standard = "GLI-11"
signatory = "A. Tester"
"""

SETTINGS = """
adapter = "subprocess:python game.py"
profile = "profiles/house.yaml"
out = "reports"
workers = 2
dist = "loadscope"
seed = 42
rng_decks = 3000
rtp_rounds = 5000
differential = 1000
select = "settlement"
timeout = 5
repeat = 3
junitxml = "junit/run.xml"
vectors = ["extra/a.yaml", "/abs/b.yaml"]
attest = "attest.yaml"
artifacts = ["build/game.whl", "build/game.js"]

[signing]
key = "keys/lab.key"
cert = "keys/lab.pem"
passphrase_env = "CHCERT_KEY_PASSPHRASE"
"""
FULL = SETTINGS + LAB


def _write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def _certify_parser(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    found: argparse.ArgumentParser = sub.choices["certify"]
    return found


@pytest.fixture()
def parser() -> argparse.ArgumentParser:
    """chcert's real parser, plus the options the plan feeds that it may not have yet
    (added to this instance only; their spelling is the one docs/run-plan.md names)."""
    from harness.cli import build_parser

    real = build_parser()
    cert = _certify_parser(real)
    known = {s for a in cert._actions for s in a.option_strings}
    missing: dict[str, dict[str, Any]] = {
        "--plan": {"default": None},
        "--artifact": {"action": "append", "default": []},
        "--sign-key": {"default": None},
        "--sign-cert": {"default": None},
        "--sign-passphrase-env": {"default": None},
    }
    for option, kwargs in missing.items():
        if option not in known:
            cert.add_argument(option, **kwargs)
    return real


def _run(parser: argparse.ArgumentParser, plan: Plan | None, *argv: str) -> argparse.Namespace:
    args = parser.parse_args(["certify", *argv])
    return apply_plan(args, plan, explicit_options(parser, ["certify", *argv]))


def _error(path: Path) -> PlanError:
    with pytest.raises(PlanError) as caught:
        load_plan(path)
    return caught.value


# ------------------------------------------------------------------ discovery


def test_no_plan_anywhere(tmp_path: Path) -> None:
    assert find_plan(None, tmp_path) is None


def test_chcert_toml_beats_pyproject(tmp_path: Path) -> None:
    _write(tmp_path, "pyproject.toml", "[tool.chcert]\nrtp_rounds = 1000\n")
    own = _write(tmp_path, "chcert.toml", "rtp_rounds = 2000\n")
    plan = find_plan(None, tmp_path)
    assert plan is not None and plan.path == own and plan.settings["rtp_rounds"] == 2000
    assert plan.table is None and plan.implicit


def test_pyproject_table_is_a_plan(tmp_path: Path) -> None:
    text = "[project]\nname = 'x'\n\n[tool.chcert]\nrtp_rounds = 1000\n"
    path = _write(tmp_path, "pyproject.toml", text)
    plan = find_plan(None, tmp_path)
    assert plan is not None and plan.path == path and plan.settings == {"rtp_rounds": 1000}
    assert plan.table == "tool.chcert"


def test_a_plan_found_in_the_folder_supplies_nothing_only_the_laboratory_decides(
    tmp_path: Path,
) -> None:
    """The folder chcert runs from may be the vendor's tree (docs/run-plan.md)."""
    text = SETTINGS + LAB + "\n[minimums]\nrtp_rounds = 2\n"
    path = _write(tmp_path, "chcert.toml", text)
    found = find_plan(None, tmp_path)
    assert found is not None and found.implicit
    assert found.ignored == ("laboratory", "minimums", "seed", "attest", "signing")
    assert not {"seed", "attest", *SIGNING_DESTS.values()} & set(found.settings)
    assert found.laboratory == {} and found.minimums == {}
    assert found.settings["rtp_rounds"] == 5000  # the run's other options still apply
    named = find_plan(str(path), tmp_path)
    assert named is not None and not named.implicit and named.ignored == ()
    assert named.settings["seed"] == 42 and named.minimums == {"rtp_rounds": 2}
    assert named.laboratory["signatory"] == "A. Tester"
    assert find_plan(None, tmp_path, search=False) is None  # --no-plan


def test_pyproject_without_the_table_is_no_plan(tmp_path: Path) -> None:
    _write(tmp_path, "pyproject.toml", "[project]\nname = 'x'\n\n[tool.ruff]\nline-length = 1\n")
    assert find_plan(None, tmp_path) is None
    with pytest.raises(PlanError, match=r"no \[tool\.chcert\] table"):
        find_plan("pyproject.toml", tmp_path)  # named on purpose: it must hold one


def test_plan_option_beats_both(tmp_path: Path) -> None:
    _write(tmp_path, "pyproject.toml", "[tool.chcert]\nseed = 1\n")
    _write(tmp_path, "chcert.toml", "seed = 2\n")
    given = _write(tmp_path / "plans", "lab.toml", "seed = 3\n")
    for option in ("plans/lab.toml", str(given)):  # relative to the current folder, or not
        plan = find_plan(option, tmp_path)
        assert plan is not None and plan.path == given and plan.settings["seed"] == 3


def test_missing_plan_option_is_an_error(tmp_path: Path) -> None:
    _write(tmp_path, "chcert.toml", "seed = 2\n")
    with pytest.raises(PlanError, match="does not exist") as caught:
        find_plan("nope.toml", tmp_path)
    assert caught.value.path.endswith("nope.toml")
    assert isinstance(caught.value, SpecError)  # the command line's exit 4


def test_empty_plan_sets_nothing(tmp_path: Path) -> None:
    plan = load_plan(_write(tmp_path, "chcert.toml", "# nothing yet\n"))
    assert plan.settings == {} and plan.laboratory == {}


# ------------------------------------------------------------------ applying


def test_every_value_is_applied_with_paths_from_the_plans_folder(
    tmp_path: Path, parser: argparse.ArgumentParser, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "cert"
    plan = load_plan(_write(folder, "chcert.toml", FULL))
    monkeypatch.chdir(tmp_path)  # elsewhere: the plan's paths are still the plan's
    args = _run(parser, plan)
    expected = {
        "adapter": "subprocess:python game.py",  # taken as written
        "profile": str(folder / "profiles/house.yaml"),
        "out": str(folder / "reports"),
        "workers": 2,
        "tx": [],
        "dist": "loadscope",
        "seed": 42,
        "rng_decks": 3000,
        "rtp_rounds": 5000,
        "differential": 1000,
        "select": "settlement",
        "timeout": 5.0,
        "repeat": 3,
        "junitxml": str(folder / "junit/run.xml"),
        "vectors": [str(folder / "extra/a.yaml"), "/abs/b.yaml"],
        "attest": str(folder / "attest.yaml"),
        "artifact": [str(folder / "build/game.whl"), str(folder / "build/game.js")],
        "sign_key": str(folder / "keys/lab.key"),
        "sign_cert": str(folder / "keys/lab.pem"),
        "sign_passphrase_env": "CHCERT_KEY_PASSPHRASE",
    }
    assert {dest: getattr(args, dest) for dest in expected} == expected
    assert isinstance(args.timeout, float)
    assert set(plan.settings) | {"tx"} == set(expected)
    assert args.applied_plan.overridden == frozenset()


def test_a_bundled_profile_name_is_not_a_path(tmp_path: Path) -> None:
    plan = load_plan(_write(tmp_path, "chcert.toml", 'profile = "short-aa"\n'))
    assert plan.settings["profile"] == "short-aa"
    plan = load_plan(_write(tmp_path, "chcert.toml", 'profile = "./house"\n'))
    assert plan.settings["profile"] == str(tmp_path / "house")


def test_the_command_line_overrides_the_plan(
    tmp_path: Path, parser: argparse.ArgumentParser
) -> None:
    plan = load_plan(_write(tmp_path, "chcert.toml", FULL))
    args = _run(parser, plan, "--seed=7", "--vectors", "x.yaml", "--out", "reports", "-kfoo")
    assert args.seed == 7
    assert args.vectors == ["x.yaml"]  # replaced, not extended; relative to the cwd
    assert args.out == "reports"  # typed, though it is the default
    assert args.select == "foo"
    assert args.rtp_rounds == 5000  # not typed: the plan's
    record = args.applied_plan.to_json()
    assert record["overridden"] == ["out", "seed", "select", "vectors"]
    assert "seed" not in record["settings"] and record["settings"]["rtp_rounds"] == 5000


def test_linked_options_are_decided_together(
    tmp_path: Path, parser: argparse.ArgumentParser
) -> None:
    plan = load_plan(_write(tmp_path, "chcert.toml", FULL))
    args = _run(parser, plan, "--tx", "popen", "--item", "c/t", "--sign-key", "other.key")
    assert args.tx == ["popen"] and args.workers == 0 and args.dist is None
    assert args.item == ["c/t"] and args.select is None
    assert args.sign_key == "other.key" and args.sign_cert is None
    assert args.sign_passphrase_env is None
    assert args.applied_plan.overridden == {
        "workers", "dist", "select", "sign_key", "sign_cert", "sign_passphrase_env"
    }  # fmt: skip


def test_without_a_plan_nothing_changes(parser: argparse.ArgumentParser) -> None:
    args = _run(parser, None, "--seed", "3")
    assert args.seed == 3 and args.applied_plan is None
    assert vars(args) == {
        **vars(parser.parse_args(["certify", "--seed", "3"])),
        "applied_plan": None,
    }


def test_applying_leaves_the_namespace_and_the_plan_alone(
    tmp_path: Path, parser: argparse.ArgumentParser
) -> None:
    plan = load_plan(_write(tmp_path, "chcert.toml", FULL))
    args = parser.parse_args(["certify"])
    applied = apply_plan(args, plan, set())
    applied.vectors.append("more.yaml")
    assert args.seed is None and plan.settings["vectors"] == (
        str(tmp_path / "extra/a.yaml"),
        "/abs/b.yaml",
    )


# ------------------------------------------------------------------ which options were typed


def test_explicit_options_of_the_real_parser(parser: argparse.ArgumentParser) -> None:
    argv = [
        "certify", "-n", "2", "--tx=popen", "--tx", "2*popen", "--vectors", "a.yaml",
        "--vectors=b.yaml", "-kfoo and bar", "--adap", "reference", "--out", "reports",
        "--rng-decks=20000", "--timeout", "10",
    ]  # fmt: skip
    assert explicit_options(parser, argv) == {
        "command", "workers", "tx", "vectors", "select", "adapter", "out", "rng_decks",
        "timeout",
    }  # fmt: skip
    assert explicit_options(parser, ["certify", "--workers", "0", "-k", "x"]) == {
        "command", "workers", "select",
    }  # fmt: skip
    assert explicit_options(parser, ["certify"]) == {"command"}


def test_explicit_options_leave_the_parser_as_it_was(parser: argparse.ArgumentParser) -> None:
    before = vars(parser.parse_args(["certify"]))
    explicit_options(parser, ["certify", "--seed", "1"])
    assert vars(parser.parse_args(["certify"])) == before
    assert before["vectors"] == [] and before["rng_decks"] == 20_000


def test_explicit_options_of_other_commands(parser: argparse.ArgumentParser) -> None:
    assert explicit_options(parser, ["math", "--json"]) == {"command", "json"}
    assert explicit_options(parser, ["vectors", "generate"]) == {"command", "vectors_command"}


# ------------------------------------------------------------------ errors with file and line


def test_a_misspelt_key_names_file_key_and_line(tmp_path: Path) -> None:
    path = _write(tmp_path, "chcert.toml", LAB.replace("signatory", "signatury"))
    err = _error(path)
    assert err.path == str(path) and err.line == 7
    assert "laboratory.signatury: unknown key (did you mean signatory?)" in err.message
    assert "laboratory.signatory: is missing" not in err.message  # the first problem only
    assert str(err).startswith(f"{path}:7: ")


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("seed = -1\n", "seed"),
        ("seed = 9223372036854775808\n", "seed"),
        ("rtp_rounds = 5\ntimeout = 1e12\n", "timeout"),
        ("workers = 1000\n", "workers"),
        ("differential = 100_000_000\n", "differential"),
        ("rng_decks = 3_000_000\n", "rng_decks"),
        ("repeat = 0\n", "repeat"),
    ],
)
def test_a_number_out_of_range_names_file_key_and_line(tmp_path: Path, text: str, key: str) -> None:
    path = _write(tmp_path, "chcert.toml", text)
    err = _error(path)
    assert err.line == text.count("\n") and err.message.startswith(f"{key}: ")


def test_a_misspelt_top_level_key_in_pyproject(tmp_path: Path) -> None:
    text = '[project]\nname = "x"\n\n[tool.chcert]\nseed = 1\nrtp_round = 5\n'
    path = _write(tmp_path, "pyproject.toml", text)
    with pytest.raises(PlanError) as caught:
        find_plan(None, tmp_path)
    assert caught.value.line == 6
    assert "tool.chcert.rtp_round: unknown key (did you mean rtp_rounds?)" in str(caught.value)
    assert caught.value.path == str(path)


def test_lines_of_dotted_keys_inline_tables_and_after_long_strings(tmp_path: Path) -> None:
    inline = 'seed = 1\nlaboratory = {name = "L", signatury = "S"}\n'
    assert _error(_write(tmp_path, "a.toml", inline)).line == 2
    dotted = 'seed = 1\n\nlaboratory.signatury = "S"\n'
    err = _error(_write(tmp_path, "b.toml", dotted))
    assert err.line == 3 and "laboratory.signatury" in err.message
    long = 'note = """\n[laboratory]\nx = 1\n"""\nvectors = [\n  "a",\n]\nsead = 1\n'
    err = _error(_write(tmp_path, "c.toml", long))
    assert "note: unknown key" in err.message and err.line == 1
    err = _error(_write(tmp_path, "d.toml", long.replace("note", "adapter")))
    assert err.line == 8 and "sead: unknown key (did you mean seed?)" in err.message


def test_a_missing_laboratory_key_points_at_its_table(tmp_path: Path) -> None:
    text = 'seed = 1\n\n[laboratory]\nname = "L"\nreport_number = "1"\n'
    err = _error(_write(tmp_path, "chcert.toml", text))
    assert err.line == 3
    assert "laboratory.signatory: is missing: [laboratory] needs it" in err.message
    text = text.replace('"1"\n', '"1"\nsignatory = "S"\n')
    err = _error(_write(tmp_path, "chcert.toml", text))
    assert err.line == 3 and "laboratory: needs jurisdiction or standard (or both)" in err.message


def test_a_wrong_type_says_what_was_found(tmp_path: Path) -> None:
    err = _error(_write(tmp_path, "chcert.toml", 'seed = 1\nworkers = "2"\n'))
    assert err.line == 2
    assert 'workers: an integer is expected, found a string ("2")' in err.message
    err = _error(_write(tmp_path, "chcert.toml", 'dist = "each"\n'))
    assert "dist: value 'each' is not allowed; allowed: 'load'" in err.message
    err = _error(_write(tmp_path, "chcert.toml", "rng_decks = 100\n"))
    assert "rng_decks: 100 is less than the minimum of 2949" in err.message


@pytest.mark.parametrize("value", ["nan", "inf", "0", "-1.5"])
def test_a_timeout_is_finite_and_above_zero(tmp_path: Path, value: str) -> None:
    err = _error(_write(tmp_path, "chcert.toml", f"seed = 1\ntimeout = {value}\n"))
    assert err.line == 2 and err.message.startswith("timeout: ")


def test_bad_toml_names_file_and_line(tmp_path: Path) -> None:
    path = _write(tmp_path, "chcert.toml", 'seed = 1\nadapter = "reference\n')
    err = _error(path)
    assert err.path == str(path) and err.line == 2
    assert err.message.startswith("TOML syntax: ") and "line 2" in err.message


def test_bad_pyproject_is_an_error_not_no_plan(tmp_path: Path) -> None:
    _write(tmp_path, "pyproject.toml", "[tool.chcert\nseed = 1\n")
    with pytest.raises(PlanError, match="TOML syntax") as caught:
        find_plan(None, tmp_path)
    assert caught.value.line == 1


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ('[signing]\nkey = "k"\ncert = "c"\npassphrase = "hunter2"\n', 4),
        ('seed = 1\npassword = "hunter2"\n', 2),
        ('[signing]\nkey = "k"\ncert = "c"\nkey_passphrase = "hunter2"\n', 4),
    ],
)
def test_a_passphrase_is_refused(tmp_path: Path, text: str, line: int) -> None:
    err = _error(_write(tmp_path, "chcert.toml", f"{text}{LAB}signatury = 'x'\n"))
    assert err.line == line  # first, whatever else is wrong
    assert "never write the passphrase in the plan" in err.message
    assert "passphrase_env" in err.message and "hunter2" not in str(err)


def test_a_passphrase_in_passphrase_env_is_not_echoed(tmp_path: Path) -> None:
    text = '[signing]\nkey = "k"\ncert = "c"\npassphrase_env = "hunter 2!"\n'
    err = _error(_write(tmp_path, "chcert.toml", text))
    assert err.line == 4 and "environment variable" in err.message
    assert "hunter" not in str(err)


def test_a_key_naming_a_variable_is_no_secret(tmp_path: Path) -> None:
    err = _error(_write(tmp_path, "chcert.toml", 'sign_passphrase_env = "X"\n'))
    assert "unknown key" in err.message and "never write" not in err.message


# ------------------------------------------------------------------ the record


def test_to_json_records_the_file_hash_and_what_came_from_where(
    tmp_path: Path, parser: argparse.ArgumentParser
) -> None:
    path = _write(tmp_path, "chcert.toml", FULL)
    args = _run(parser, load_plan(path), "--seed", "9")
    record = args.applied_plan.to_json()
    assert record["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert record["path"] == str(path) and record["table"] is None
    assert record["overridden"] == ["seed"]
    assert record["settings"]["artifact"] == [str(tmp_path / "build/game.whl"),
                                              str(tmp_path / "build/game.js")]  # fmt: skip
    assert record["settings"]["sign_passphrase_env"] == "CHCERT_KEY_PASSPHRASE"
    assert record["laboratory"]["signatory"] == "A. Tester"
    json.dumps(record)  # plain JSON for results.json
    _record_schema().validate(record)


def test_to_json_of_a_plan_without_laboratory(tmp_path: Path) -> None:
    record = load_plan(_write(tmp_path, "pyproject.toml", "[tool.chcert]\n")).to_json()
    assert record["laboratory"] == {} and record["settings"] == {}
    assert record["table"] == "tool.chcert"
    _record_schema().validate(record)


def _record_schema() -> jsonschema.Draft202012Validator:
    """What results.json's manifest can `$ref` for the plan it records."""
    ref = {"$ref": "plan.schema.json#/$defs/record"}
    return jsonschema.Draft202012Validator(ref, registry=_registry())


# ------------------------------------------------------------------ kept in step


def test_schema_mirrors_the_command_line(parser: argparse.ArgumentParser) -> None:
    """plan.schema.json states every setting as harness/run/settings.py declares it."""
    from harness import defaults
    from harness.gamemath import rng
    from harness.results import evidence
    from harness.run import settings

    assert settings.main(["--check"]) == 0, "run: python -m harness.run.settings"
    assert rng.MIN_DECKS == defaults.MIN_DECKS
    schema = json.loads((SCHEMA_DIR / "plan.schema.json").read_text())
    props = schema["properties"]
    assert props["rng_decks"]["minimum"] == rng.MIN_DECKS
    assert set(props) == {*DESTS, "laboratory", "signing", "minimums"}
    # The laboratory's minimums hold its checks' own floors (harness/results/evidence.py)
    minimums = schema["$defs"]["minimums"]["properties"]
    assert {k: v["minimum"] for k, v in minimums.items()} == evidence.floors()
    assert minimums["rng_decks"]["maximum"] == defaults.MAX_DECKS
    profile = json.loads((SCHEMA_DIR / "profile.schema.json").read_text())
    stated = profile["properties"]["evidence_minimums"]["properties"]
    # a profile only raises chcert's defaults (it may come from the tree under test)
    floors = msgspec.to_builtins(evidence.defaults())
    assert {k: v["minimum"] for k, v in stated.items()} == {k: floors[k] for k in stated}
    assert set(schema["$defs"]["signing"]["properties"]) == set(SIGNING_DESTS)
    record = schema["$defs"]["record"]["properties"]["settings"]["properties"]
    assert set(record) == {*DESTS.values(), *SIGNING_DESTS.values()}
    dests = {a.dest for a in _certify_parser(parser)._actions}
    assert {*DESTS.values(), *SIGNING_DESTS.values()} <= dests


def test_the_real_parser_names_the_plans_options_so() -> None:
    """chcert's parser has --artifact, --plan and --sign-*, under the plan's names."""
    from harness.cli import build_parser

    cert = _certify_parser(build_parser())
    by_option = {s: a.dest for a in cert._actions for s in a.option_strings}
    wanted = {"--artifact": "artifact", "--sign-key": "sign_key", "--sign-cert": "sign_cert",
              "--sign-passphrase-env": "sign_passphrase_env", "--plan": "plan"}  # fmt: skip
    assert {o: by_option.get(o) for o in wanted} == wanted


def test_the_example_plan_is_valid(parser: argparse.ArgumentParser) -> None:
    plan = load_plan(ROOT / "examples" / "chcert.toml")
    assert set(plan.laboratory) >= {"name", "report_number", "jurisdiction", "standard",
                                    "signatory"}  # fmt: skip
    _record_schema().validate(_run(parser, plan).applied_plan.to_json())


def test_the_docs_name_every_key() -> None:
    text = (ROOT / "docs" / "run-plan.md").read_text()
    schema = json.loads((SCHEMA_DIR / "plan.schema.json").read_text())
    keys = [*schema["properties"], *schema["$defs"]["laboratory"]["properties"],
            *schema["$defs"]["signing"]["properties"]]  # fmt: skip
    assert [k for k in keys if f"`{k}`" not in text and f"`[{k}]`" not in text] == []
