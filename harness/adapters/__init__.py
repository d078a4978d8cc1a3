"""Adapters: how the harness reaches an implementation under test.

Every adapter speaks protocol v1 and offers the same three calls: `request(op,
**params) -> ok-body`, `exchange([(op, params), ...]) -> [ok-body or ErrorReply]`
(requests pipelined: all sent before the replies are awaited) and `close()`. Specs:

    reference                 the bundled game, run as a JSON Lines subprocess
    python:MODULE:CLASS       a class loaded in-process (methods named like the ops)
    subprocess:COMMAND ...    a child process speaking JSON Lines on stdin/stdout
    http://HOST:PORT/PATH     POST each request to PATH/<op>

Adapters know the protocol and nothing of the rules: they never import the oracle.
"""

from harness.adapters.base import Adapter, open_adapter

__all__ = ["Adapter", "open_adapter"]
