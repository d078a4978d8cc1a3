"""Adapter specs: which transport each scheme names, its spec checked, its adapter opened.

The one place that knows every scheme. Each transport's module checks the specs of
its own form and opens them (`check_spec`, `open_spec`), knowing nothing of the
others; it is imported here only when a spec of its scheme is checked or opened, so
that `chcert --help`, and the child hosting a python: game, import none of them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from harness.defaults import DEFAULT_TIMEOUT
from harness.errors import Unreachable

if TYPE_CHECKING:
    from harness.adapters.base import Adapter


class Transport(Protocol):
    """What a transport's module offers for the specs of its scheme."""

    def check_spec(self, spec: str) -> None:
        """ValueError saying what is wrong with the spec's form, before anything starts."""
        ...

    def open_spec(self, spec: str, *, profile_path: str | None, timeout: float) -> Adapter:
        """The adapter of a checked spec; Unreachable when the game cannot be started."""
        ...


def _jsonlines() -> Transport:
    from harness.adapters import subprocess

    return subprocess


def _pyhost() -> Transport:
    from harness.adapters import pyhost

    return pyhost


def _http() -> Transport:
    from harness.adapters import http

    return http


@dataclass(frozen=True)
class Scheme:
    """A form of spec: how it begins (`reference`: the whole spec), and its transport."""

    prefix: str
    form: str  # as a person writes it
    transport: Callable[[], Transport]  # imports the transport's module

    def names(self, spec: str) -> bool:
        return spec == self.prefix if self.prefix == "reference" else spec.startswith(self.prefix)


SCHEMES = (
    Scheme("reference", "reference", _jsonlines),
    Scheme("python:", "python:MODULE:CLASS", _pyhost),
    Scheme("subprocess:", "subprocess:COMMAND", _jsonlines),
    Scheme("http://", "http://HOST:PORT/PATH", _http),
    Scheme("https://", "https://HOST:PORT/PATH", _http),
)


def transport(spec: str) -> Transport:
    """The transport of a spec's scheme; ValueError naming the schemes for any other."""
    for scheme in SCHEMES:
        if scheme.names(spec):
            return scheme.transport()
    forms = ", ".join(s.form for s in SCHEMES[:-1])
    raise ValueError(f"unknown adapter spec {spec!r}; use {forms} or {SCHEMES[-1].form}")


def check_spec(spec: str) -> None:
    """ValueError saying what is wrong with an adapter spec's form, before anything starts."""
    transport(spec).check_spec(spec)


def open_adapter(
    spec: str, *, profile_path: str | None = None, timeout: float = DEFAULT_TIMEOUT
) -> Adapter:
    """Open the adapter a spec names; Unreachable when that is impossible.

    `profile_path` configures the bundled reference game (spec `reference`) to
    play the profile under certification. A `python:` game is started in a child
    process of its own (harness/adapters/pyhost.py): one that cannot be loaded is
    found at `hello`, unreachable as any game that never answers it.
    """
    try:
        serving = transport(spec)
        serving.check_spec(spec)
    except ValueError as exc:
        raise Unreachable(str(exc)) from None
    return serving.open_spec(spec, profile_path=profile_path, timeout=timeout)
