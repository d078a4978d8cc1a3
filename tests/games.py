"""Games the team did not write as the reference: variations a laboratory meets.

Each is the reference game with one declaration or capability changed, loaded
with `python:tests.games:NAME`. `Seeded` deals from a seeded generator, so a
run in one process (-n 0) is the same every time: statistical checks that a
fair game fails rarely by design (docs/verdict.md) cannot make these tests flaky.
"""

from __future__ import annotations

import base64
import os
import shlex
import sys
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from harness.errors import ErrorReply
from harness.reference import ReferenceGame
from harness.rules.table import REFERENCE_TABLE, Table

SEED = 20261130


def served(name: str, profile: str | None = None) -> str:
    """The adapter spec of a game of this module served over JSON Lines: certified so, it
    meets every refusal, the lines that are not JSON too, which a python: adapter cannot
    send (docs/refusals.md); so a run of it can PASS."""
    argv = [sys.executable, "-m", "harness.reference", "--game", f"tests.games:{name}"]
    return "subprocess:" + shlex.join(argv + (["--profile", profile] if profile else []))


class Seeded(ReferenceGame):
    """The reference game drawing every shuffle and raw RNG byte from seeded PCG64 streams.

    One stream per kind of draw and size, so the draws of a check do not depend on
    which other checks ran before it in the same worker (xdist orders them freely).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._streams: dict[tuple[str, int], np.random.Generator] = {}

    def stream(self, kind: str, size: int) -> np.random.Generator:
        key = (kind, size)
        if key not in self._streams:
            self._streams[key] = np.random.default_rng([SEED, len(kind), size])
        return self._streams[key]

    def shuffled_deck(self) -> list[int]:
        return [int(i) for i in self.stream("deck", 52).permutation(52)]

    def shuffled_decks(self, count: int) -> npt.NDArray[np.uint8]:
        source = self.stream("decks", count)
        return np.argsort(source.random((count, 52)), axis=1).astype(np.uint8)

    def rng(self, bytes: Any) -> dict[str, Any]:
        return {"data": base64.b64encode(self.stream("rng", bytes).bytes(bytes)).decode()}


class OwnLimits(Seeded):
    """The reference game at a table of its own (its limits and house rules)."""

    own_table = REFERENCE_TABLE

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **{**kwargs, "table": self.own_table})


class WideLimits(OwnLimits):
    """A correct game whose table takes antes of 1..100,000 (the reference's: 100..50,000)."""

    own_table = Table(ante=(1, 100_000), aa_bonus=(1, 50_000))


class NoAABonusLimits(OwnLimits):
    """Offers the AA Bonus but declares no limits for it (config.limits.aa_bonus absent)."""

    own_table = Table(ante=(100, 50_000), aa_bonus=None)


class TwoFaced(Seeded):
    """Declares the reference's table to the first connection made (the controller's
    hello comes before any worker starts), and a table of one minor unit, which it then
    enforces, to every later one: the run's pytest-xdist workers. TWO_FACED_MARKER names
    the file whose creation marks the first."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        try:
            os.close(os.open(os.environ["TWO_FACED_MARKER"], os.O_CREAT | os.O_EXCL))
        except FileExistsError:
            kwargs["table"] = Table(ante=(1, 1), aa_bonus=(1, 1))
        super().__init__(*args, **kwargs)


class NarrowLimits(OwnLimits):
    """A correct game whose table takes antes of 200..50,000 (inside the profile's 100..)."""

    own_table = Table(ante=(200, 50_000), aa_bonus=(100, 25_000))


class _OneSeatTable(Seeded):
    """A table of one seat: a wager for any other seat is refused."""

    def round(self, seats: Any, cards: Any = None) -> dict[str, Any]:
        if isinstance(seats, list) and any(
            not isinstance(s, dict) or s.get("seat") != 1 for s in seats
        ):
            raise ErrorReply("invalid_bet", "this table has one seat, seat 1")
        return super().round(seats=seats, cards=cards)


class NoInject(_OneSeatTable):
    """A correct game that cannot stack decks and seats one player."""

    def hello(self) -> dict[str, Any]:
        hello = super().hello()
        hello["capabilities"] = ["shuffle", "rng", "history", "events", "seats:1"]
        return hello


class OneSeat(_OneSeatTable):
    """A correct one-seat game that can stack decks: multi-seat vectors cannot run."""

    def hello(self) -> dict[str, Any]:
        hello = super().hello()
        hello["capabilities"] = [c for c in hello["capabilities"] if not c.startswith("seats:")]
        hello["capabilities"].append("seats:1")
        return hello


class PublishesWrongRtp(Seeded):
    """A correct game that tells its players the RTP is 98.75% (source 002's figure,
    which no reading of the exact mathematics gives)."""

    def hello(self) -> dict[str, Any]:
        hello = super().hello()
        hello["config"]["published"] = {"rtp": 0.9875, "house_edge": 0.0216}
        return hello


class PublishesTrueFigures(Seeded):
    """A correct game publishing figures the exact mathematics confirms."""

    def hello(self) -> dict[str, Any]:
        hello = super().hello()
        hello["config"]["published"] = {
            "house_edge": 0.0216,
            "rtp": 0.9784,
            "raise_frequency": 0.82,
            "aa_bonus_edge": 0.0626,
        }
        return hello


class NoLimits(Seeded):
    """A game whose hello leaves out the table limits protocol v1 requires."""

    def hello(self) -> dict[str, Any]:
        hello = super().hello()
        del hello["config"]["limits"]
        return hello


class RefusesShuffle(Seeded):
    """Declares the shuffle capability, then refuses the op."""

    def shuffle(self, count: Any) -> dict[str, Any]:
        raise ErrorReply("unsupported", "the shuffle is not exposed in production builds")


class _OnTrigger(Seeded):
    """The reference game misbehaving on the `result` of a round whose seat 1 ante is 250
    (vector s000-antewin/nq-four-of-a-kind-std-t1), like tests/fixtures/faulty_game.py."""

    def __init__(self) -> None:
        super().__init__()
        self.armed: set[Any] = set()

    def round(self, seats: Any, cards: Any = None) -> dict[str, Any]:
        opened = super().round(seats, cards)
        if seats and seats[0].get("ante") == 250:
            self.armed.add(opened["round"])
        return opened

    def result(self, round: Any) -> dict[str, Any]:
        if round in self.armed:
            marker = os.environ.get("CHCERT_TEST_MARKER")  # tells a test the moment has come
            if marker:
                Path(marker).write_text("result\n")
            self.misbehave()
        return super().result(round)

    def misbehave(self) -> None:
        raise NotImplementedError


class HangsOnTrigger(_OnTrigger):
    """A Python game whose call never returns."""

    def misbehave(self) -> None:
        import time

        time.sleep(3600)


class ExitsOnTrigger(_OnTrigger):
    """A Python game calling sys.exit in the middle of a run."""

    def misbehave(self) -> None:
        import sys

        sys.exit(3)


class AnswersASet(Seeded):
    """A game whose `round` body holds a Python set, which JSON cannot carry."""

    def round(self, seats: Any, cards: Any = None) -> dict[str, Any]:
        return {**super().round(seats, cards), "flop": set()}


class BiasedThenFair(Seeded):
    """A shuffle biased for a while (after start-up, say): its first `--rng-decks` decks
    (the default) deal their first two cards in sorted order, every later deck is fair.
    The RNG battery's first sample is grossly biased and any fresh sample is fair."""

    BIASED = 20_000

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._dealt = 0

    def shuffled_decks(self, count: int) -> npt.NDArray[np.uint8]:
        decks = super().shuffled_decks(count)
        biased = max(0, min(count, self.BIASED - self._dealt))
        decks[:biased, :2] = np.sort(decks[:biased, :2], axis=1)
        self._dealt += count
        return decks
