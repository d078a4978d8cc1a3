"""The reference game over HTTP: `python -m harness.reference --http PORT`, certified
over loopback through the http:// adapter (its faults: tests/test_hostile.py)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.adapters import open_adapter
from tests.results import reasons
from tests.runs import QUICK_SAMPLES, certify


@pytest.fixture(scope="module")
def reference_url() -> Iterator[str]:
    """The reference, dealing from seeded streams (tests/games.py), served on a free port of
    the loopback; its URL, printed once it listens."""
    server = subprocess.Popen(
        [sys.executable, "-m", "harness.reference", "--game", "tests.games:Seeded", "--http", "0"],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None
    url = server.stdout.readline().strip()
    assert url.startswith("http://127.0.0.1:"), f"the server did not start ({server.poll()})"
    yield url
    server.terminate()
    server.wait(timeout=10)


def test_the_server_keeps_the_connection_and_answers_errors_as_replies(reference_url: str) -> None:
    adapter = open_adapter(reference_url, timeout=10)
    try:
        assert adapter.request("hello")["protocol"] == 1
        opened = adapter.request("round", seats=[{"seat": 1, "ante": 100}])
        answers = adapter.exchange([("act", {"round": "nope", "seat": 1, "action": "call"})])
        assert getattr(answers[0], "code", None) == "unknown_round"
        adapter.request("act", round=opened["round"], seat=1, action="fold")
        assert adapter.request("result", round=opened["round"])["seats"][0]["action"] == "fold"
    finally:
        adapter.close()


@pytest.mark.slow  # a whole certification: the fast tier stays under its bound
def test_the_reference_certifies_over_http(reference_url: str, tmp_path: Path) -> None:
    """Every item, no selection: PASS. The game's shuffles are seeded, so the RNG battery,
    which a fair shuffle fails rarely by design (docs/verdict.md), cannot make this flaky."""
    out = tmp_path / "out"
    budgets = ["--differential", "2000", "--rng-decks", "3000", "--rtp-rounds", "300"]
    budgets += QUICK_SAMPLES  # the laboratory's policy for such samples
    code, results = certify(out, "--adapter", reference_url, *budgets)
    assert code == 0 and results["verdict"] == "PASS", reasons(results)
    assert results["implementation"]["name"] == "chcert-reference"
    assert results["vectors"]["passed"] == results["vectors"]["total"] > 50
    assert results["corpus"]["ran"] == results["corpus"]["vectors"] > 1000
