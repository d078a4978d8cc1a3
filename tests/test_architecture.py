"""Imports point one way (docs/architecture.md): checked by reading the source with ast."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "harness"
PYPROJECT = PACKAGE.parent / "pyproject.toml"

# The rooms of harness/ (docs/architecture.md) and the rooms each may import: the arrows
# of the architecture. The plumbing (the top-level modules: errors, paths, atomic,
# defaults, strictjson, _schema, collector, compiled) is anyone's. An arrow not listed is a
# change of design.
ROOMS: dict[str, set[str]] = {
    "rules": set(),  # the game's rules: cards, evaluation, profiles, the oracle
    "protocol": {"rules"},  # protocol v1 and the game's declaration
    "results": {"rules", "protocol"},  # the model, the verdict, results.json built
    "gamemath": {"rules", "results"},  # exact mathematics, the RNG battery
    "differential": {"rules", "protocol"},  # the differential's rounds, the decision table
    "vectors": {"rules", "protocol", "differential"},  # settlement, refusal and corpus vectors
    "adapters": {"protocol"},  # the transports
    "reference": {"rules", "protocol"},  # the bundled game (never the oracle, below)
    "signing": {"results"},  # the attachment, the signature, `chcert verify`
    "diff": {"results"},  # two results compared; renders nothing but text
    "report": {"results", "signing", "diff"},  # from results.json alone
    "checks": {"adapters", "differential", "gamemath", "protocol", "results", "rules", "vectors"},
    "run": {"adapters", "checks", "gamemath", "protocol", "report", "results", "rules"}
    | {"vectors"},
    # the production audit: round logs re-settled by the rules and the decision table
    "audit": {"rules", "protocol", "differential", "gamemath", "results", "vectors", "checks"}
    | {"report", "register"},
    # the laboratory's register: reports read into records, the history chained
    "register": {"results", "signing"},
    "cli": {"adapters", "checks", "diff", "gamemath", "protocol", "report", "results", "rules"}
    | {"run", "signing", "vectors", "audit", "register"},
}
# Within and across rooms, module by module: prefix -> harness modules it must never import.
FORBIDDEN = {
    # the reference game and the oracle are written apart, so they cannot share a bug
    "harness.rules.oracle": ["harness.reference"],
    "harness.reference": ["harness.rules.oracle"],
    "harness.rules.cards": ["harness.rules.evaluator", "harness.rules.profiles"],
    "harness.rules.evaluator": ["harness.rules.profiles", "harness.rules.oracle"],
    "harness.rules.profiles": ["harness.rules.oracle"],
    "harness.gamemath.rng": ["harness.rules.oracle"],
    # the readers of results.json import no numerical library
    "harness.results.model": ["harness.results.build", "harness.gamemath"],
    "harness.results.verdict": ["harness.results.build", "harness.gamemath"],
    "harness.report": ["harness.results.build"],
    # The interface the transports share knows none of them: registry.py says whose a spec is.
    "harness.adapters.base": [
        "harness.adapters.registry",
        "harness.adapters.http",
        "harness.adapters.pyhost",
        "harness.adapters.subprocess",
    ],
    # The comparison renders nothing: text.py and the report read its records.
    "harness.diff.compare": ["harness.diff", "harness.report", "harness.cli"],
    "harness.atomic": ["harness"],  # a leaf: writing files whole needs nothing of the harness
}
PLUMBING = {"harness", "harness.errors", "harness.atomic", "harness.paths", "harness.defaults"}
PLUMBING |= {"harness.strictjson", "harness._schema", "harness.collector", "harness.compiled"}


def _room(module: str) -> str | None:
    """The room of a harness module (its subpackage), None for the plumbing."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and (PACKAGE / parts[1]).is_dir() else None


def test_every_module_is_in_a_room_or_the_plumbing() -> None:
    names = {_module_name(path) for path in MODULES}
    loose = sorted(n for n in names if _room(n) is None and n not in PLUMBING)
    assert not loose, f"modules in no room: {loose}"
    rooms = {r for n in names if (r := _room(n)) is not None}
    assert rooms == set(ROOMS), rooms ^ set(ROOMS)


@pytest.mark.parametrize("path", sorted((PACKAGE).rglob("*.py")), ids=lambda p: _module_name(p))
def test_rooms_import_only_the_rooms_below(path: Path) -> None:
    """Each room imports only the rooms ROOMS allows it, wherever the import is."""
    name = _module_name(path)
    room = _room(name)
    if room is None:
        return
    allowed = ROOMS[room] | {room}
    wrong = sorted(
        i for i in _imports(path) if i.startswith("harness.") and (_room(i) or room) not in allowed
    )
    assert not wrong, f"{name} ({room}) must not import {wrong}"


def test_the_arrows_between_rooms_have_no_cycle() -> None:
    assert _cycles({room: set(allowed) for room, allowed in ROOMS.items()}) == []


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


MODULES = sorted(PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: _module_name(p))
def test_imports_point_one_way(path: Path) -> None:
    name = _module_name(path)
    for prefix, banned in FORBIDDEN.items():
        if name == prefix or name.startswith(prefix + "."):
            bad = sorted(
                i for i in _imports(path) for b in banned if i == b or i.startswith(b + ".")
            )
            assert not bad, f"{name} must not import {bad}"
    # The test runner is the run's engine: the plugin, its two sides and `chcert certify`.
    assert "pytest" not in _imports(path) or name in {
        "harness.run.plugin",
        "harness.run.handover",
        "harness.run.controller",
        "harness.run.worker",
        "harness.cli.certify",
        "harness.cli.checks",
    }


def _import_graph() -> dict[str, set[str]]:
    """Each harness module and the harness modules it imports, wherever the import is (in a
    function, under TYPE_CHECKING): `from harness.x import y` is of harness.x.y when that
    is a module, else of harness.x. Importing harness.x.y is not counted as importing the
    package harness.x: a package may import its submodules, unless one imports it back."""
    names = {_module_name(path) for path in MODULES}
    graph: dict[str, set[str]] = {}
    for path in MODULES:
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                for alias in node.names:
                    submodule = f"{node.module}.{alias.name}"
                    found.add(submodule if submodule in names else node.module)
            elif isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
        name = _module_name(path)
        graph[name] = (found & names) - {name}
    return graph


def _reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = list(graph[start])
    while todo:
        module = todo.pop()
        if module not in seen:
            seen.add(module)
            todo.extend(graph[module])
    return seen


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module: modules each reachable
    from every other, sorted."""
    reach = {module: _reachable(graph, module) for module in graph}
    components = {
        frozenset({module, *(other for other in reach[module] if module in reach[other])})
        for module in graph
    }
    return sorted(sorted(component) for component in components if len(component) > 1)


def test_the_cycle_finder_names_each_component() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"f"}, "f": {"e"}}
    assert _cycles(graph) == [["a", "b", "c"], ["e", "f"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle_inside_harness() -> None:
    """Modules of a cycle cannot be understood, tested or imported one without the other,
    and which of them runs first depends on who imports them: each module has a place
    below the modules it uses (docs/architecture.md)."""
    cycles = _cycles(_import_graph())
    assert not cycles, "import cycles: " + "; ".join(" <-> ".join(c) for c in cycles)


def test_the_plugin_costs_other_test_suites_nothing() -> None:
    """pytest loads the entry point in every run of the environment: it must stay light."""
    heavy = "{'numba', 'scipy', 'harness.run.controller', 'harness.run.worker'}"
    code = f"import sys, harness.run.plugin; print(sorted({heavy} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_help_needs_no_heavy_import() -> None:
    """`chcert --help` answers at once: the numerical stack, the schemas and the report are
    imported by the commands that need them (harness/defaults.py)."""
    heavy = "{'numba', 'numpy', 'scipy', 'reportlab', 'pypdf', 'pyhanko', 'jsonschema'}"
    code = (
        "import contextlib, io, sys\n"
        "from harness.cli import main\n"
        "for argv in (['--help'], ['certify', '--help'], ['diff', '--help']):\n"
        "    with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()):\n"
        "        main(argv)\n"
        f"print(sorted({heavy} & set(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# Imported by harness, yet not a dependency of the installed tool: the corpus generator's
# cross-check (`chcert vectors generate`), which says so when it is missing.
TEST_ONLY = {"eval7"}


def test_every_package_harness_imports_is_a_declared_dependency() -> None:
    """The wheel's installs take what pyproject.toml declares; a package harness imports
    that only arrives as another's dependency may not arrive at all (tests/test_wheel.py
    installs the wheel offline beside this environment's packages, so it cannot tell)."""
    names = {i.split(".")[0] for path in MODULES for i in _imports(path)}
    third_party = names - set(sys.stdlib_module_names) - {"harness", "_pytest"} - TEST_ONLY
    by_module = importlib.metadata.packages_distributions()
    declared = {
        re.split(r"[<>=!~ \[;]", requirement, maxsplit=1)[0].lower().replace("_", "-")
        for requirement in tomllib.loads(PYPROJECT.read_text())["project"]["dependencies"]
    }
    undeclared = {
        name: by_module.get(name)
        for name in third_party
        if not {d.lower().replace("_", "-") for d in by_module.get(name, [name])} & declared
    }
    assert undeclared == {}
