"""Imports point one way (docs/architecture.md): checked by reading the source with ast."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "harness"

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
    assert "pytest" not in _imports(path) or name in {
        "harness.plugin",
        "harness.runner",
        "harness.cli",
    }


def test_the_plugin_costs_other_test_suites_nothing() -> None:
    """pytest loads the entry point in every run of the environment: it must stay light."""
    heavy = "{'numba', 'scipy', 'harness.runner'}"
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
