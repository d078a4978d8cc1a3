"""A python: game in a process of its own: the child that hosts the class, and its adapter.

    python -m harness.adapters.pyhost MODULE:CLASS

`--adapter python:MODULE:CLASS` does not import the game into chcert's process:
whatever the game does to its process (`os._exit(0)`, `sys.exit`, a segfault, a
hang holding the interpreter lock, a print to stdout) would then be done to
chcert, which could end with the PASS code and no report. chcert starts this
module as a child instead, in its own working directory, and speaks JSON Lines
with it as with any subprocess: game (harness/adapters/subprocess.py: the reply
deadlines, a fresh child after a fault, the stderr tail as evidence, the process
group killed at the end). So a game that ends or spoils its process in a call
fails the clause that call exercised, and one that does so before answering
`hello` is unreachable (docs/robustness.md); chcert's exit status is its own.

The child takes stdin and stdout for the protocol before it imports the game
(harness/protocol/__init__.py `take_stdio`): the game's prints land on stderr. It puts the
working directory on `sys.path` (`import_from_working_directory`), constructs the
class with no arguments and serves it with the reference game's own server
(harness/protocol/__init__.py `serve_json_lines`). A module that cannot be imported, a class
that is missing or a constructor that fails, `SystemExit` included, ends it with
status 1 before any reply, its traceback and a last line starting CANNOT_LOAD on
stderr; the adapter puts that line in its fault.
"""

from __future__ import annotations

import importlib
import keyword
import os
import sys
import traceback
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from harness.errors import ProtocolViolation
from harness.protocol import serve_json_lines, take_stdio

if TYPE_CHECKING:  # the child imports this module too, without it (a quicker start)
    from harness.adapters.base import Answer

CANNOT_LOAD = "chcert: cannot load the game's class: "


def _is_target(target: str) -> bool:
    """Whether `target` has the form MODULE:CLASS: a dotted module name, each part a
    Python identifier, and a class name that is one; nothing else could be imported, so
    `python:../etc:passwd` or `python:a b:C` is refused before anything starts."""
    parts = target.split(":")
    if len(parts) != 2:
        return False
    module, name = parts
    return all(_is_name(part) for part in module.split(".")) and _is_name(name)


def _is_name(word: str) -> bool:
    return word.isidentifier() and not keyword.iskeyword(word)


def host_command(spec: str) -> list[str]:
    """The child's command line for a `python:MODULE:CLASS` spec (its form checked)."""
    return [sys.executable, "-m", "harness.adapters.pyhost", spec.removeprefix("python:")]


def load_failure(stderr_tail: str) -> str | None:
    """Why the child could not load the game (its CANNOT_LOAD line), or None when loading
    is not what ended it."""
    lines = stderr_tail.rstrip().splitlines()
    if lines and lines[-1].startswith(CANNOT_LOAD):
        return lines[-1].removeprefix("chcert: ")
    return None


def explained(exc: ProtocolViolation) -> ProtocolViolation:
    """The fault with the child's reason in its message when the game could not be loaded
    (the game then never answered: no reply is in the evidence); else the fault as it is."""
    reason = load_failure(str(exc.evidence.get("stderr_tail", "")))
    if reason is None or "reply" in exc.evidence or "raw" in exc.evidence:
        return exc
    return ProtocolViolation(f"{reason} ({exc})", exc.evidence, kind=exc.kind, op=exc.op)


class PythonAdapter:
    """The adapter of a python: game: a SubprocessAdapter on this module's child, offering
    what a class whose methods are called offers, and no more.

    No `request_text` and no `carries_lines`: a line that is not JSON would be answered
    by chcert's own server in the child, never by the game, so those refusals are not
    tested through python: (docs/refusals.md). No `crash`: the recovery checks kill a
    game started by its own command, over subprocess: (docs/adapter-protocol.md,
    Interrupted rounds); python: promises the calls of a class, nothing more.
    """

    def __init__(self, spec: str, *, timeout: float) -> None:
        from harness.adapters.subprocess import SubprocessAdapter  # not in the child: see above

        self.spec = spec
        self._child = SubprocessAdapter(host_command(spec), timeout=timeout, spec=spec)

    def request(self, op: str, **params: Any) -> dict[str, Any]:
        try:
            return self._child.request(op, **params)
        except ProtocolViolation as exc:
            raise explained(exc) from None

    def exchange(self, requests: Sequence[tuple[str, dict[str, Any]]]) -> list[Answer]:
        try:
            return self._child.exchange(requests)
        except ProtocolViolation as exc:
            raise explained(exc) from None

    def close(self) -> None:
        self._child.close()


def check_spec(spec: str) -> None:
    """ValueError unless the spec has the form `python:MODULE:CLASS`."""
    if not _is_target(spec.removeprefix("python:")):
        raise ValueError(
            "python adapter spec is python:MODULE:CLASS (a dotted Python module name and "
            f"a class name), got {spec!r}"
        )


def open_spec(spec: str, *, profile_path: str | None, timeout: float) -> PythonAdapter:
    """The adapter of a checked spec. The game plays the rules it was built with:
    `profile_path` configures only the bundled game."""
    return PythonAdapter(spec, timeout=timeout)


def _described(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def load_game(target: str) -> Any:
    """An instance of MODULE:CLASS, constructed with no arguments."""
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)()


def import_from_working_directory() -> None:
    """Put the working directory on `sys.path`, ahead of the installed packages, as
    `python -m` does, whatever PYTHONSAFEPATH says: the MODULE of `python:MODULE:CLASS`
    is found in the folder chcert runs in, which is where chcert starts this child."""
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or not _is_target(args[0]):
        print("usage: python -m harness.adapters.pyhost MODULE:CLASS", file=sys.stderr)
        return 2
    channel_in, channel_out = take_stdio()
    import_from_working_directory()
    try:
        game = load_game(args[0])
    except BaseException as exc:  # SystemExit too: the game never got as far as hello
        traceback.print_exc()
        print(f"{CANNOT_LOAD}{_described(exc)}", file=sys.stderr, flush=True)
        return 1
    try:
        serve_json_lines(game, channel_in, channel_out)
    except SystemExit:  # the game's own sys.exit in a call: where it came from, as evidence
        traceback.print_exc()
        raise
    return 0


if __name__ == "__main__":
    sys.exit(main())
