"""Interrupted rounds: the reference game with `--db` survives SIGKILL at any moment.

The game runs as the harness runs it (docs/adapter-protocol.md, "Interrupted
rounds"): `python -m harness.reference --db FILE` over JSON Lines, in a process
group of its own, killed with SIGKILL to the group and started again with the
very same command. A tiny client here writes request lines and reads reply
lines with a deadline. After every restart the rounds the test knows are asked
again and judged by the rules oracle (harness.rules.oracle.settle on the cards the
game showed, or stacked), never by the engine's own settlement:

- a finished round answers `result` byte for byte as before the kill;
- an interrupted round (resume) shows its original hole cards and flop and the
  decisions acknowledged, takes the remaining ones and settles on its original
  cards; (void) returns every stake, pays nothing else, refuses `act`;
- a decision sent but not answered before the kill took effect whole or not at
  all; a round whose `round` got no reply is never asked about;
- `history` holds every ended round once, as `result` gives it; no round id is
  given twice. So no stake vanishes and none is paid twice: each ended round's
  money is the oracle's (or, void, its stakes), and it is listed once.

Each restart costs the game's start-up (about half a second: numpy and numba are
imported); the default tests kill about thirty times, the slow ones 300 times.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import random
import select
import signal
import sqlite3
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from harness.errors import ErrorReply
from harness.reference import ReferenceGame
from harness.reference.mutants import MUTANTS
from harness.reference.store import RoundStore, StoreError
from harness.rules.cards import Card, parse_card, parse_cards
from harness.rules.game import Action, Deal
from harness.rules.oracle import SeatPlay, settle
from harness.rules.profiles import Profile, load_profile
from harness.rules.table import REFERENCE_TABLE

ROOT = Path(__file__).resolve().parent.parent
REPLY_TIMEOUT = 60.0  # a loaded CI machine; the game answers in milliseconds
HISTORY_ASKED = 1000  # the reference keeps the last 1,000 ended rounds: every test stays below
PROFILE = load_profile("standard")


# ------------------------------------------------------------------ the client


class Game:
    """The reference game over JSON Lines, started and killed as the harness does it."""

    def __init__(self, db: Path, *options: str) -> None:
        self.command = [sys.executable, "-m", "harness.reference", "--db", str(db), *options]
        self.stderr_path = db.with_suffix(".stderr")
        self.startups: list[float] = []  # seconds from exec to the answer to hello
        self.proc: subprocess.Popen[bytes] | None = None
        self.start()

    def start(self, hello: bool = True) -> None:
        with self.stderr_path.open("ab") as stderr:
            self.proc = subprocess.Popen(
                self.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                cwd=ROOT,
                start_new_session=True,  # a group of its own, killed as a whole
            )
        self._buffer = b""
        self._ids = itertools.count(1)
        self._started = time.monotonic()
        if hello:
            self.hello = self.ok("hello")
            self.startups.append(time.monotonic() - self._started)

    def kill(self) -> None:
        """SIGKILL to the game's process group, without a word to it first."""
        assert self.proc is not None
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdout.close()
        with contextlib.suppress(BrokenPipeError):  # requests it never read
            self.proc.stdin.close()
        self.proc = None

    def restart(self) -> None:
        self.kill()
        self.start()

    def send(self, op: str, **params: Any) -> int:
        assert self.proc is not None and self.proc.stdin is not None
        rid = next(self._ids)
        self.proc.stdin.write(json.dumps({"id": rid, "op": op, **params}).encode() + b"\n")
        self.proc.stdin.flush()
        return rid

    def line(self) -> bytes:
        assert self.proc is not None and self.proc.stdout is not None
        deadline = time.monotonic() + REPLY_TIMEOUT
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            ready = select.select([self.proc.stdout], [], [], max(left, 0))[0]
            if not ready:
                raise AssertionError(f"no reply within {REPLY_TIMEOUT} s{self._stderr()}")
            chunk = os.read(self.proc.stdout.fileno(), 1 << 16)
            if not chunk:
                raise AssertionError(f"the game closed its stdout{self._stderr()}")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def call(self, op: str, **params: Any) -> tuple[dict[str, Any], bytes]:
        """The reply, and its body as the game wrote it (after the request id)."""
        rid = self.send(op, **params)
        raw = self.line()
        reply = json.loads(raw)
        assert reply["id"] == rid, (op, params, reply)
        return reply, raw[raw.index(b',"') + 1 :]

    def ok(self, op: str, **params: Any) -> dict[str, Any]:
        reply, _ = self.call(op, **params)
        assert "ok" in reply, (op, params, reply)
        body: dict[str, Any] = reply["ok"]
        return body

    def error(self, op: str, **params: Any) -> str:
        reply, _ = self.call(op, **params)
        assert "error" in reply, (op, params, reply)
        code: str = reply["error"]["code"]
        return code

    def bye(self) -> None:
        assert self.proc is not None
        self.ok("bye")
        assert self.proc.wait(timeout=REPLY_TIMEOUT) == 0
        self.proc = None

    def _stderr(self) -> str:
        tail = self.stderr_path.read_bytes()[-2000:].decode(errors="replace")
        return f"; stderr: {tail}" if tail else ""


@pytest.fixture
def games(tmp_path: Path) -> Iterator[list[Game]]:
    """The games a test starts, each killed at the end if it still runs."""
    started: list[Game] = []
    yield started
    for game in started:
        if game.proc is not None:
            game.kill()


# ------------------------------------------------------------------- the model


@dataclass
class Tracked:
    """One round the test was told about (its `round` request was answered)."""

    ident: str
    wagers: dict[int, tuple[int, int]]  # seat: (ante, AA Bonus)
    stacked: dict[str, Any] | None
    holes: dict[int, list[str]]
    flop: list[str]
    actions: dict[int, str] = field(default_factory=dict)  # decisions the game took
    unanswered: dict[int, str] = field(default_factory=dict)  # sent, the game killed before
    interrupted: bool = False  # it awaited decisions when the game was killed
    final: bytes | None = None  # its `result` body, byte for byte, once it ended
    void: bool = False

    @property
    def undecided(self) -> list[int]:
        return [n for n in self.wagers if n not in self.actions and n not in self.unanswered]

    @property
    def decided(self) -> bool:
        return len(self.actions) == len(self.wagers)


@dataclass
class Findings:
    kills: int = 0
    inside_requests: int = 0
    during_startup: int = 0
    unanswered_taken: int = 0  # decisions unanswered before a kill that the game had recorded
    unanswered_lost: int = 0  # ... and those it had not (neither is a fault)
    restarts_checked: int = 0
    rounds: int = 0


class Table:
    """The rounds a test plays on one game, and the checks made after every restart."""

    def __init__(self, game: Game, mode: str, profile: Profile = PROFILE) -> None:
        self.game = game
        self.mode = mode
        self.profile = profile
        self.rounds: dict[str, Tracked] = {}
        self.seen_ids: set[str] = set()
        self.found = Findings()

    def open(self, wagers: dict[int, tuple[int, int]], stacked: dict[str, Any] | None) -> Tracked:
        seats = [{"seat": n, "ante": a, "aa_bonus": b} for n, (a, b) in wagers.items()]
        reply = self.game.ok("round", seats=seats, **({"cards": stacked} if stacked else {}))
        return self.opened(reply, wagers, stacked)

    def opened(
        self, reply: dict[str, Any], wagers: dict[int, tuple[int, int]], stacked: Any
    ) -> Tracked:
        ident = reply["round"]
        assert ident not in self.seen_ids, f"round id {ident} given twice"
        self.seen_ids.add(ident)
        holes = {s["seat"]: s["hole"] for s in reply["seats"]}
        if stacked:
            assert holes == {int(n): h for n, h in stacked["seats"].items()}
            assert reply["flop"] == stacked["flop"]
        rnd = Tracked(ident, wagers, stacked, holes, reply["flop"])
        self.rounds[ident] = rnd
        self.found.rounds += 1
        return rnd

    def act(self, rnd: Tracked, seat: int, action: str) -> None:
        assert self.game.ok("act", round=rnd.ident, seat=seat, action=action) == {}
        rnd.actions[seat] = action

    def result(self, rnd: Tracked) -> None:
        """Ask a round's result and judge it; an ended round's must not change."""
        reply, raw = self.game.call("result", round=rnd.ident)
        if rnd.final is not None:
            assert raw == rnd.final, f"round {rnd.ident} answered differently after a kill"
            return
        if "error" in reply:
            assert not rnd.interrupted, f"interrupted round {rnd.ident}: {reply}"
            assert reply["error"]["code"] == "round_in_progress", reply
            assert not rnd.decided and not rnd.unanswered, (rnd, reply)
            return
        body = reply["ok"]
        status = body.get("status")
        if status == "in_progress":
            assert self.mode == "resume" and rnd.interrupted, (rnd, body)
            self._judge_in_progress(rnd, body)
        elif status == "void":
            assert self.mode == "void" and rnd.interrupted, (rnd, body)
            self._judge_void(rnd, body)
            rnd.final = raw
        else:
            self._take_unanswered(rnd, {s["seat"]: s["action"] for s in body["seats"]})
            assert rnd.decided, f"round {rnd.ident} settled before every seat decided: {body}"
            judge_settlement(self.profile, rnd, body)
            rnd.final = raw

    def _take_unanswered(self, rnd: Tracked, shown: dict[int, str | None]) -> None:
        """A decision the kill left unanswered was recorded whole or not at all."""
        for seat, action in rnd.unanswered.items():
            assert shown[seat] in (None, action), (rnd, shown)
            if shown[seat] == action:
                rnd.actions[seat] = action
                self.found.unanswered_taken += 1
            else:
                self.found.unanswered_lost += 1
        rnd.unanswered.clear()
        for seat, recorded in shown.items():
            assert recorded == rnd.actions.get(seat), f"round {rnd.ident} seat {seat}: {recorded}"

    def _judge_in_progress(self, rnd: Tracked, body: dict[str, Any]) -> None:
        assert set(body) == {"round", "status", "seats", "flop"}, body
        assert body["round"] == rnd.ident and body["flop"] == rnd.flop
        assert {s["seat"]: s["hole"] for s in body["seats"]} == rnd.holes
        self._take_unanswered(rnd, {s["seat"]: s["action"] for s in body["seats"]})
        assert not rnd.decided, f"round {rnd.ident}: every seat decided, yet in progress"

    def _judge_void(self, rnd: Tracked, body: dict[str, Any]) -> None:
        """Every stake returned, the call if it was made, nothing else paid (s002-malfunction)."""
        assert set(body) == {"round", "status", "seats"} and body["round"] == rnd.ident
        calls = {}
        for entry in body["seats"]:
            ante, aa = rnd.wagers[entry["seat"]]
            wagers = entry["wagers"]
            assert wagers["ante"] == {"stake": ante, "returned": ante}, entry
            assert wagers["aa_bonus"] == ({"stake": aa, "returned": aa} if aa else None), entry
            call = wagers["call"]
            assert call["returned"] == call["stake"] in (0, self.profile.call_multiple * ante)
            calls[entry["seat"]] = call["stake"] > 0
        assert set(calls) == set(rnd.wagers), body
        for seat, action in [*rnd.actions.items(), *rnd.unanswered.items()]:
            if action == "call" and seat in rnd.actions:
                assert calls[seat], f"round {rnd.ident}: seat {seat}'s call not returned"
            if action == "fold":
                assert not calls[seat], f"round {rnd.ident}: seat {seat} folded, a call returned"
        for seat, action in rnd.unanswered.items():  # a call in flight shows as its stake
            if action == "call":
                taken = calls[seat]
                self.found.unanswered_taken += taken
                self.found.unanswered_lost += not taken
        rnd.unanswered.clear()
        code = self.game.error("act", round=rnd.ident, seat=next(iter(rnd.wagers)), action="fold")
        assert code == "invalid_action"
        rnd.void = True

    def killed(self) -> None:
        self.found.kills += 1
        for rnd in self.rounds.values():
            if rnd.final is None and not rnd.decided:
                rnd.interrupted = True

    def check(self) -> None:
        """After a restart: every round the test knows, then the history, once each."""
        for rnd in self.rounds.values():
            self.result(rnd)
        history = self.game.ok("history", last=HISTORY_ASKED)["rounds"]
        assert len(history) < HISTORY_ASKED, "the test outgrew the history the game keeps"
        idents = [entry["round"] for entry in history]
        assert len(idents) == len(set(idents)), "a round appears twice in the history"
        listed = {entry["round"]: entry for entry in history}
        for ident, entry in listed.items():
            if ident not in self.rounds:  # a round whose `round` got no reply: voided, or none
                assert self.mode == "void" and entry.get("status") == "void", entry
        for rnd in self.rounds.values():
            if rnd.final is None:
                assert rnd.ident not in listed, f"round {rnd.ident} listed before it ended"
            else:
                assert listed[rnd.ident] == json.loads(rnd.final.partition(b":")[2][:-1])
        self.found.restarts_checked += 1


def judge_settlement(profile: Profile, rnd: Tracked, body: dict[str, Any]) -> None:
    """The settlement is the oracle's for the cards shown before the decisions (and stacked)."""
    assert body["round"] == rnd.ident
    holes = {s["seat"]: s["hole"] for s in body["seats"]}
    assert holes == rnd.holes, f"round {rnd.ident}: hole cards changed"
    board = body["board"]
    assert board[:3] == rnd.flop, f"round {rnd.ident}: the flop changed"
    if rnd.stacked is not None:
        dealt = {"dealer": body["dealer"]["hole"], "turn": board[3], "river": board[4]}
        stacked = {k: rnd.stacked[k] for k in dealt}
        assert dealt == stacked, f"round {rnd.ident}: not the cards stacked"
    first, second = parse_cards(body["dealer"]["hole"])
    f1, f2, f3 = parse_cards(rnd.flop)
    deal = Deal(
        {n: (parse_card(h[0]), parse_card(h[1])) for n, h in rnd.holes.items()},
        (first, second),
        (f1, f2, f3),
        parse_card(board[3]),
        parse_card(board[4]),
    )
    plays = {n: SeatPlay(n, a, b, Action(rnd.actions[n])) for n, (a, b) in rnd.wagers.items()}
    want = settle(profile, deal, plays)  # raises for an impossible deal (a card twice)
    assert body["dealer"]["hand"] == want.dealer_hand.wire
    assert body["dealer"]["qualifies"] == want.dealer_qualifies
    for entry in body["seats"]:
        rules = want.seat(entry["seat"])
        assert entry["action"] == rules.action.value
        assert entry["hand"] == (rules.hand.wire if rules.action is Action.CALL else None)
        wagers = entry["wagers"]
        assert wagers["ante"] == rules.ante.to_json(), (rnd.ident, entry, rules)
        assert wagers["call"] == rules.call.to_json(), (rnd.ident, entry, rules)
        if rules.aa_bonus is not None:
            assert wagers["aa_bonus"] == rules.aa_bonus.to_json(), (rnd.ident, entry, rules)
        else:
            assert wagers["aa_bonus"] in (None, {"stake": 0, "returned": 0}), entry


def stacked_cards(rng: random.Random, seats: list[int]) -> dict[str, Any]:
    """A deck stacked for these seats (capability inject), so the test knows every card."""
    deck = [str(Card(i)) for i in rng.sample(range(52), 2 * len(seats) + 9)]
    return {
        "seats": {str(n): deck[2 * i : 2 * i + 2] for i, n in enumerate(seats)},
        "dealer": deck[-9:-7],
        "flop": deck[-7:-4],
        "turn": deck[-4],
        "river": deck[-3],
    }


def wagers_for(rng: random.Random, seats: list[int]) -> dict[int, tuple[int, int]]:
    ante_lo = REFERENCE_TABLE.ante[0]
    aa_lo = REFERENCE_TABLE.aa_bonus[0] if REFERENCE_TABLE.aa_bonus else 0
    return {n: (ante_lo * rng.randint(1, 5), aa_lo * rng.choice((0, 0, 1, 3))) for n in seats}


# --------------------------------------------------------- kills at set moments


def test_kills_at_each_step_of_a_round_change_nothing(tmp_path: Path, games: list[Game]) -> None:
    """Resume: killed after `round`, after some decisions, after the last `act`, between
    `act` and `result` and after `result`, the rounds go on as if nothing happened."""
    game = Game(tmp_path / "rounds.db")
    games.append(game)
    assert "recovery" in game.hello["capabilities"]
    assert game.hello["config"]["recovery"] == "resume"
    table = Table(game, "resume")
    rng = random.Random(20240611)
    seats = [1, 2, 3]
    stacked = table.open(wagers_for(rng, seats), stacked_cards(rng, seats))
    dealt = table.open(wagers_for(rng, [2, 5]), None)  # the game's own shuffle
    assert game.error("result", round=stacked.ident) == "round_in_progress"

    def restart() -> None:
        game.kill()
        table.killed()
        game.start()
        table.check()

    restart()  # after `round`: both in progress, nothing decided
    assert game.ok("result", round=stacked.ident)["status"] == "in_progress"
    table.act(stacked, 1, "call")
    table.act(dealt, 2, "fold")
    restart()  # after some decisions
    assert game.error("act", round=stacked.ident, seat=1, action="fold") == "invalid_action"
    shown = game.ok("result", round=stacked.ident)["seats"]
    assert [s["action"] for s in shown] == ["call", None, None]
    table.act(stacked, 2, "fold")
    table.act(stacked, 3, "call")
    restart()  # after the last `act`, before `result`
    assert stacked.final is not None  # settled on the stacked cards (judged in check)
    table.act(dealt, 5, "call")
    table.result(dealt)
    restart()  # after `result`: the same bytes
    later = table.open(wagers_for(rng, [4]), stacked_cards(rng, [4]))
    assert later.ident not in (stacked.ident, dealt.ident)
    table.act(later, 4, "call")
    table.result(later)
    table.check()
    game.bye()


def test_void_returns_every_stake_and_nothing_else(tmp_path: Path, games: list[Game]) -> None:
    game = Game(tmp_path / "rounds.db", "--recovery", "void")
    games.append(game)
    assert game.hello["config"]["recovery"] == "void"
    table = Table(game, "void")
    rng = random.Random(7)
    untouched = table.open({1: (100, 100), 2: (300, 0)}, stacked_cards(rng, [1, 2]))
    halfway = table.open({1: (200, 300), 3: (100, 0)}, None)
    table.act(halfway, 1, "call")
    ended = table.open({6: (100, 100)}, stacked_cards(rng, [6]))
    table.act(ended, 6, "call")
    table.result(ended)
    decided = table.open({7: (500, 0)}, None)
    table.act(decided, 7, "fold")  # its last decision: not interrupted, settled as usual
    game.kill()
    table.killed()
    game.start()
    table.check()
    assert untouched.void and halfway.void and not ended.void and not decided.void
    body = json.loads(halfway.final.partition(b":")[2][:-1]) if halfway.final else {}
    assert body["seats"][0]["wagers"]["call"] == {"stake": 400, "returned": 400}
    game.kill()  # voided once: the next start finds nothing to void
    game.start()
    table.check()
    game.bye()


# ------------------------------------------------------- kills at random moments


def play_with_kills(tmp_path: Path, games: list[Game], mode: str, kills: int, seed: int) -> Table:
    """Random rounds, decisions and results on one game; `kills` SIGKILLs at random: after
    a reply, inside a request (sent, killed 0-30 ms later, its reply never read) or while
    the game starts (and voids). After every restart, `Table.check`."""
    rng = random.Random(seed)
    options = ["--recovery", mode]
    game = Game(tmp_path / f"{mode}.db", *options)
    games.append(game)
    table = Table(game, mode)
    while table.found.kills < kills:
        open_rounds = [r for r in table.rounds.values() if r.final is None and r.undecided]
        ended = [r for r in table.rounds.values() if r.final is None and r.decided]
        roll = rng.random()
        if roll < 0.12:  # a kill, after the last reply or inside the next request
            inside = rng.random() < 0.6
            if inside:
                send_unanswered(table, rng, open_rounds)
                # 0-30 ms, most often the first few, while the request is read and committed
                time.sleep(0.030 * rng.random() ** 3)
                table.found.inside_requests += 1
            game.kill()
            table.killed()
            if rng.random() < 0.15:  # killed again while it starts (and voids)
                game.start(hello=False)
                time.sleep(rng.uniform(0, max(game.startups or [0.5])))
                game.kill()
                table.found.kills += 1
                table.found.during_startup += 1
            game.start()
            table.check()
        elif roll < 0.35 or not open_rounds:
            if len(open_rounds) < 6:
                seats = sorted(rng.sample(range(1, 8), rng.randint(1, 3)))
                stacked = stacked_cards(rng, seats) if rng.random() < 0.5 else None
                table.open(wagers_for(rng, seats), stacked)
        elif roll < 0.85:
            rnd = rng.choice(open_rounds)
            table.act(rnd, rng.choice(rnd.undecided), rng.choice(("call", "fold")))
        elif ended:
            table.result(rng.choice(ended))
    table.check()
    game.bye()
    return table


def send_unanswered(table: Table, rng: random.Random, open_rounds: list[Tracked]) -> None:
    """The next request, sent and never read: a decision, a new round or a result."""
    if open_rounds and rng.random() < 0.6:
        rnd = rng.choice(open_rounds)
        seat, action = rng.choice(rnd.undecided), rng.choice(("call", "fold"))
        rnd.unanswered[seat] = action
        table.game.send("act", round=rnd.ident, seat=seat, action=action)
    elif rng.random() < 0.7:
        table.game.send("round", seats=[{"seat": 1, "ante": 100, "aa_bonus": 100}])
    elif table.rounds:
        table.game.send("result", round=rng.choice(list(table.rounds)))


def report(table: Table, game_startups: list[float], elapsed: float) -> None:
    found = table.found
    mean = sum(game_startups) / len(game_startups)
    print(
        f"\n{table.mode}: {found.kills} kills ({found.inside_requests} inside a request, "
        f"{found.during_startup} during start-up), {found.restarts_checked} restarts checked, "
        f"{found.rounds} rounds; unanswered decisions recorded {found.unanswered_taken}, "
        f"not recorded {found.unanswered_lost}; start-up {mean:.2f} s on average; "
        f"{elapsed:.1f} s; nothing found (any finding fails an assertion)"
    )


@pytest.mark.slow  # kill runs; the fast tier kills at each step above
@pytest.mark.timeout(900)
@pytest.mark.parametrize(("mode", "kills"), [("resume", 14), ("void", 10)])
def test_random_kills(tmp_path: Path, games: list[Game], mode: str, kills: int) -> None:
    started = time.monotonic()
    table = play_with_kills(tmp_path, games, mode, kills, seed=kills)
    assert table.found.kills >= kills
    report(table, games[0].startups, time.monotonic() - started)


@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.parametrize(("mode", "kills"), [("resume", 180), ("void", 120)])
def test_hundreds_of_random_kills(tmp_path: Path, games: list[Game], mode: str, kills: int) -> None:
    started = time.monotonic()
    table = play_with_kills(tmp_path, games, mode, kills, seed=1000 + kills)
    assert table.found.kills >= kills
    report(table, games[0].startups, time.monotonic() - started)


# ------------------------------------------------------------ in this process


def test_in_memory_the_game_declares_no_recovery() -> None:
    hello = ReferenceGame("standard").hello()
    assert "recovery" not in hello["capabilities"]
    assert "recovery" not in hello["config"]


def test_a_store_declares_recovery_as_the_profile_allows(tmp_path: Path) -> None:
    with RoundStore(tmp_path / "a.db") as store:
        hello = ReferenceGame("standard", store=store).hello()
    assert "recovery" in hello["capabilities"] and hello["config"]["recovery"] == "resume"
    with RoundStore(tmp_path / "b.db") as store:  # 002: "all affected game bets ... void"
        assert ReferenceGame("source-002", store=store).hello()["config"]["recovery"] == "void"
    with RoundStore(tmp_path / "c.db") as store:
        game = ReferenceGame("source-002", store=store, recovery="resume")
        assert game.hello()["config"]["recovery"] == "resume"


def test_the_state_rebuilt_is_the_state_stored(tmp_path: Path) -> None:
    """In one process, two games on one file in turn: the second answers as the first."""
    rng = random.Random(3)
    with RoundStore(tmp_path / "g.db") as store:
        first = ReferenceGame("standard", store=store)
        idents = []
        for _ in range(20):
            seats = sorted(rng.sample(range(1, 8), 3))
            bets = [{"seat": n, "ante": 100, "aa_bonus": 100} for n in seats]
            ident = first.round(seats=bets)["round"]
            for n in seats[: rng.randint(1, 3)]:
                first.act(round=ident, seat=n, action=rng.choice(("call", "fold")))
            idents.append(ident)
        answers = {i: _answer(first, i) for i in idents}
        history = first.history(last=100)
    with RoundStore(tmp_path / "g.db") as store:
        second = ReferenceGame("standard", store=store)
        assert second.history(last=100) == history
        for ident, answer in answers.items():
            again = _answer(second, ident)
            if "error" in answer:  # opened by the first game, not finished: interrupted
                assert again["status"] == "in_progress"
            else:
                assert again == answer
        assert second.round(seats=[{"seat": 1, "ante": 100}])["round"] == "r21"


def _answer(game: ReferenceGame, ident: str) -> dict[str, Any]:
    try:
        return game.result(round=ident)
    except ErrorReply as exc:
        return {"error": exc.code}


def test_a_refused_write_changes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A store that cannot commit (a full disk): the request is answered `internal` and the
    game's state is the store's, as if the request never came."""
    with RoundStore(tmp_path / "g.db") as store:
        game = ReferenceGame("standard", store=store)
        ident = game.round(seats=[{"seat": 1, "ante": 100}, {"seat": 2, "ante": 100}])["round"]
        game.act(round=ident, seat=1, action="call")

        def refuse(*args: Any) -> None:
            raise StoreError("disk full")

        monkeypatch.setattr(store, "record_decision", refuse)
        with pytest.raises(ErrorReply) as refused:
            game.act(round=ident, seat=2, action="call")
        assert refused.value.code == "internal"
        with pytest.raises(ErrorReply) as waiting:
            game.result(round=ident)
        assert waiting.value.code == "round_in_progress"
        monkeypatch.setattr(store, "open_round", refuse)
        with pytest.raises(ErrorReply):
            game.round(seats=[{"seat": 1, "ante": 100}])
        monkeypatch.undo()
        game.act(round=ident, seat=2, action="fold")
        assert game.result(round=ident)["seats"][1]["action"] == "fold"
        assert game.round(seats=[{"seat": 1, "ante": 100}])["round"] == "r2"


def test_mutants_keep_their_rounds_too(tmp_path: Path) -> None:
    for name in ("tie-loses", "history-keeps-five", "aa-settled-after-river"):
        with RoundStore(tmp_path / f"{name}.db") as store:
            game = MUTANTS[name]("standard", store=store)
            ident = game.round(seats=[{"seat": 1, "ante": 100, "aa_bonus": 100}])["round"]
            game.act(round=ident, seat=1, action="call")
            answer = game.result(round=ident)
        with RoundStore(tmp_path / f"{name}.db") as store:
            assert MUTANTS[name]("standard", store=store).result(round=ident) == answer


def test_the_history_forgets_in_the_store_as_in_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("harness.reference.engine.HISTORY_KEPT", 3)
    with RoundStore(tmp_path / "g.db") as store:
        game = ReferenceGame("standard", store=store)
        for _ in range(5):
            ident = game.round(seats=[{"seat": 1, "ante": 100}])["round"]
            game.act(round=ident, seat=1, action="fold")
        kept = game.history(last=10)
    db = sqlite3.connect(tmp_path / "g.db")
    assert db.execute("SELECT count(*) FROM rounds").fetchone() == (3,)
    db.close()
    with RoundStore(tmp_path / "g.db") as store:
        again = ReferenceGame("standard", store=store)
        assert again.history(last=10) == kept
        assert [r["round"] for r in kept["rounds"]] == ["r3", "r4", "r5"]


# --------------------------------------------------------------- the command


def _refusal(db: Path, *options: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "harness.reference", "--db", str(db), *options]
    return subprocess.run(
        command, input="", capture_output=True, text=True, cwd=ROOT, timeout=REPLY_TIMEOUT
    )


def test_a_file_not_of_this_kind_is_refused_at_start_up(tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("not a database\n")
    other = tmp_path / "other.db"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE t (x)")
    db.close()
    newer = tmp_path / "newer.db"
    RoundStore(newer).close()
    db = sqlite3.connect(newer)
    db.execute("PRAGMA user_version = 99")
    db.close()
    for path, says in [
        (text, "is not a round store"),
        (other, "not a round store"),
        (newer, "newer"),
    ]:
        ran = _refusal(path)
        assert ran.returncode == 1 and ran.stdout == ""
        lines = ran.stderr.splitlines()
        assert len(lines) == 1 and says in lines[0], ran.stderr


def test_another_profile_is_refused(tmp_path: Path) -> None:
    with RoundStore(tmp_path / "g.db") as store:
        ReferenceGame("standard", store=store)
    with (
        pytest.raises(StoreError, match="under profile standard"),
        RoundStore(tmp_path / "g.db") as store,
    ):
        ReferenceGame("source-004", store=store)


def test_recovery_without_db_is_a_usage_error() -> None:
    ran = subprocess.run(
        [sys.executable, "-m", "harness.reference", "--recovery", "void"],
        input="",
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=REPLY_TIMEOUT,
    )
    assert ran.returncode == 2 and "--recovery needs --db" in ran.stderr


def test_over_http_an_interrupted_round_resumes(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "harness.reference", "--http", "0"]
    command += ["--db", str(tmp_path / "h.db")]

    def serve() -> tuple[subprocess.Popen[str], str]:
        server = subprocess.Popen(
            command, stdout=subprocess.PIPE, text=True, cwd=ROOT, start_new_session=True
        )
        assert server.stdout is not None
        return server, server.stdout.readline().strip()

    def post(url: str, op: str, **params: Any) -> dict[str, Any]:
        data = json.dumps({"id": 1, "op": op, **params}).encode()
        with urllib.request.urlopen(urllib.request.Request(url + op, data=data), timeout=30) as r:
            reply: dict[str, Any] = json.loads(r.read())
        return reply

    server, url = serve()
    try:
        assert "recovery" in post(url, "hello")["ok"]["capabilities"]
        opened = post(url, "round", seats=[{"seat": 1, "ante": 100}, {"seat": 2, "ante": 100}])
        ident = opened["ok"]["round"]
        post(url, "act", round=ident, seat=2, action="call")
    finally:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait()
    server, url = serve()
    try:
        shown = post(url, "result", round=ident)["ok"]
        assert shown["status"] == "in_progress" and shown["flop"] == opened["ok"]["flop"]
        assert [s["action"] for s in shown["seats"]] == [None, "call"]
        post(url, "act", round=ident, seat=1, action="fold")
        assert "board" in post(url, "result", round=ident)["ok"]
    finally:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait()
