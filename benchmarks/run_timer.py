"""A pytest plugin that times a certification's phases and items, for bench_run.py.

bench_run.py loads it into `chcert certify` and its workers through PYTEST_PLUGINS
(with this folder on PYTHONPATH); each process appends its events, one JSON object a
line, to a file of its own in $CHCERT_RUN_TIMER.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

_OUT = Path(os.environ["CHCERT_RUN_TIMER"])
_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "controller")


def _event(name: str, **fields: Any) -> None:
    line = json.dumps({"event": name, "at": time.time(), "process": _WORKER, **fields})
    with (_OUT / f"{os.getpid()}.jsonl").open("a", encoding="utf-8") as fh:
        fh.write(line + "\n")


_event("plugin loaded")


@pytest.hookimpl(hookwrapper=True)
def pytest_collection(session: pytest.Session) -> Generator[None, None, None]:
    _event("collection start")
    yield
    _event("collection end")


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> Generator[None, None, None]:
    _event("items start")  # a wrapper: xdist's own loop ends the hook under workers
    yield


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, None, None]:
    started = time.time()
    yield
    kind = getattr(getattr(item, "kind", None), "value", "other")
    _event("item", item=item.name, kind=kind, started=started, seconds=time.time() - started)


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_sessionfinish(session: pytest.Session) -> Generator[None, None, None]:
    _event("session finish start")
    yield
    _event("session finish end")
