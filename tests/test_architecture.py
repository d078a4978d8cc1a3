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

# module prefix -> harness modules it must never import
FORBIDDEN = {
    "harness.oracle": [
        "harness.adapters",
        "harness.protocol",
        "harness.reference",
        "harness.checks",
    ],
    "harness.reference": ["harness.oracle", "harness.adapters", "harness.checks", "harness.plugin"],
    "harness.adapters": ["harness.oracle", "harness.reference", "harness.checks", "harness.plugin"],
    "harness.report": ["harness.checks", "harness.plugin", "harness.adapters", "harness.cli"],
    "harness.cards": ["harness.evaluator", "harness.profiles", "harness.checks", "harness.plugin"],
    "harness.evaluator": ["harness.profiles", "harness.oracle", "harness.checks", "harness.plugin"],
    "harness.profiles": ["harness.oracle", "harness.checks", "harness.plugin", "harness.cli"],
    "harness.rng": ["harness.checks", "harness.plugin", "harness.cli", "harness.oracle"],
    "harness.differential": ["harness.adapters", "harness.checks", "harness.plugin", "harness.cli"],
    "harness.results": ["harness.checks", "harness.plugin", "harness.adapters", "harness.cli"],
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
        "harness.plugin",
        "harness.handover",
        "harness.controller",
        "harness.worker",
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
    heavy = "{'numba', 'scipy', 'harness.controller', 'harness.worker'}"
    code = f"import sys, harness.plugin; print(sorted({heavy} & set(sys.modules)))"
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
