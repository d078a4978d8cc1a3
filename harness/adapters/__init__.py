"""Adapters: how the harness reaches an implementation under test.

Every adapter speaks protocol v1 and offers the same three calls: `request(op,
**params) -> ok-body`, `exchange([(op, params), ...]) -> [ok-body or ErrorReply]`
(requests pipelined: all sent before the replies are awaited) and `close()`. Specs:

    reference                 the bundled game, run as a JSON Lines subprocess
    python:MODULE:CLASS       a class (methods named like the ops), run in a child process
                              of its own (pyhost.py), so that nothing it does to its
                              process can take the harness down
    subprocess:COMMAND ...    a child process speaking JSON Lines on stdin/stdout
    http://HOST:PORT/PATH     POST each request to PATH/<op>

base.py is the interface and the reply checking every transport shares; each
transport (subprocess.py, pyhost.py, http.py) checks and opens the specs of its own
scheme; registry.py is the one place that knows which scheme is whose. Adapters know
the protocol and nothing of the rules: they never import the oracle.

`Adapter`, `open_adapter` and `check_spec` are imported when first asked for: the child
hosting a python: game (`python -m harness.adapters.pyhost`) imports this package too,
and starts, at every restart, without the reply checking (its JSON Schema) it never uses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from harness.adapters.base import Adapter
    from harness.adapters.registry import check_spec, open_adapter

__all__ = ["Adapter", "check_spec", "open_adapter"]


def __getattr__(name: str) -> Any:
    if name == "Adapter":
        from harness.adapters import base

        return base.Adapter
    if name in __all__:
        from harness.adapters import registry

        return getattr(registry, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
