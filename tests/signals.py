"""Signals as a terminal leaves them, for the chcert processes a test interrupts."""

from __future__ import annotations

import signal


def default_signals() -> None:
    """`preexec_fn` of a chcert a test will signal: SIGINT, SIGTERM and SIGHUP at their
    default. A test suite run in the background of a non-interactive shell (or under
    nohup) inherits them ignored, and chcert rightly leaves an ignored signal ignored
    (docs/robustness.md)."""
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)
