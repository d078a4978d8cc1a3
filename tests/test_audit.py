"""The production audit (docs/audit.md): the round log read as it is written, the sieve
held equal to the rules oracle, every production mutant found by exactly its check, a
correct log found clean, and bad input told apart from findings."""

from __future__ import annotations

import contextlib
import csv
import hashlib
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from harness.audit.ids import Repeat
from harness.audit.judge import Partial, Repeats, met_again
from harness.audit.log import Malformed, Rows, keys_at, read_log
from harness.audit.model import main as schema_main
from harness.audit.mutants import MUTANTS, Mutant
from harness.audit.settle import Payouts, owed
from harness.cli import main
from harness.defaults import available_profiles
from harness.reference.engine import ReferenceGame
from harness.reference.roundlog import RoundLog
from harness.rules.cards import Card, parse_cards
from harness.rules.game import Action, Deal
from harness.rules.oracle import SeatPlay, settle
from harness.rules.profiles import load_profile
from harness.rules.table import REFERENCE_TABLE
from tests.pdftext import pdf_text

ROUNDS = 1_400  # enough for every card test, and 1,000 first seats calling (returns.py)


@contextlib.contextmanager
def _seeded_decks(seed: int) -> Iterator[None]:
    """The reference game's decks drawn from `seed`, not the OS: a test of a statistical
    check must not pass or fail by the draw of its run (each test family has alpha 0.01)."""
    draw = random.Random(seed)

    def shuffle() -> list[int]:
        deck = list(range(52))
        draw.shuffle(deck)
        return deck

    with mock.patch("harness.reference.engine.production_shuffle", shuffle):
        yield


def _play(path: Path, profile: str = "standard", rounds: int = ROUNDS, seed: int = 1) -> None:
    """The reference game plays `rounds` rounds of three seats, writing its round log."""
    log = RoundLog(path, build="reference")
    game = ReferenceGame(profile, round_log=log)
    draw = random.Random(seed)
    aa = game.profile.aa_table is not None
    with _seeded_decks(seed):
        for _ in range(rounds):
            seats = [
                {"seat": s, "ante": draw.choice([100, 250, 1000]),
                 **({"aa_bonus": 100} if aa and draw.random() < 0.4 else {})}
                for s in (1, 2, 3)
            ]  # fmt: skip
            ident = game.round(seats=seats)["round"]
            for s in (1, 2, 3):  # the first seat, which the return test reads, calls more
                calls = draw.random() < (0.9 if s == 1 else 0.5)
                game.act(round=ident, seat=s, action="call" if calls else "fold")
    log.close()


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _audit(tmp: Path, *args: str) -> tuple[int, dict[str, Any]]:
    out = tmp / "out"
    code = main(["audit", *args, "--out", str(out), "--quiet"])
    data = json.loads((out / "audit.json").read_text()) if (out / "audit.json").exists() else {}
    return code, data


def _found(data: dict[str, Any]) -> set[tuple[str, str, str | None]]:
    return {(f["check"], f["kind"], f.get("clause")) for f in data["findings"]}


@pytest.fixture(scope="module")
def reference_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The reference game's log, its rounds spread over a week (the drift test's least)."""
    path = tmp_path_factory.mktemp("log") / "reference.jsonl"
    _play(path)
    rows = _rows(path)
    start = np.datetime64("2026-01-01T00:00:00", "us")
    step = np.timedelta64(7 * 86_400_000_000 // ROUNDS, "us")
    for r in rows:
        r["time"] = f"{start + step * (int(r['round'][1:]) - 1)}Z"
    return _write(path, rows)


def test_the_reference_game_s_log_is_clean(reference_log: Path, tmp_path: Path) -> None:
    code, data = _audit(tmp_path, str(reference_log))
    assert code == 0 and data["verdict"] == "PASS", data["findings"]
    assert data["rows"]["read"] == data["rows"]["judged"] == 3 * ROUNDS
    assert data["rows"]["rounds"] == ROUNDS
    assert {c["name"]: c["status"] for c in data["checks"]} == {
        "integrity": "pass",
        "settlement": "pass",
        "cards": "pass",
        "return": "pass",
        "drift": "pass",
        "leak": "pass",
    }
    cards = next(c for c in data["checks"] if c["name"] == "cards")
    assert cards["alpha"] == 0.01 and cards["correction"] == "Holm" and cards["power"] == 0.8
    assert len(cards["tests"]) >= 7 and all(t["detects"] for t in cards["tests"])
    bands = {(b["group"], b["value"]): b for b in data["bands"]}
    assert set(bands) == {("stake", "100"), ("stake", "250"), ("stake", "1000"),
                          ("build", "reference")}  # fmt: skip
    assert sum(bands["stake", v]["seats"] for v in ("100", "250", "1000")) == 3 * ROUNDS
    for b in bands.values():  # the log pays as the rules do, and inside its bands
        assert b["returned"] == b["rules_returned"] and b["outside"] != "99%"
        assert b["band_99"][0] < b["band_95"][0] < b["expected_rtp"] < b["band_95"][1]


@pytest.mark.parametrize(
    "mutant", sorted(MUTANTS.values(), key=lambda m: m.name), ids=lambda m: m.name
)
def test_each_production_mutant_is_found_by_exactly_its_check(
    mutant: Mutant, reference_log: Path, tmp_path: Path
) -> None:
    log = _write(tmp_path / "mutant.jsonl", mutant.change(_rows(reference_log)))
    declared = tmp_path / "declared.json"
    config = {**load_profile("standard").declared_config(), **REFERENCE_TABLE.to_config()}
    declared.write_text(json.dumps(config))
    code, data = _audit(
        tmp_path, str(log), *(["--declared", str(declared)] if mutant.declared else [])
    )
    if mutant.finds is None:
        assert code == 0 and _found(data) == set(), data["findings"]
        return
    if mutant.name == "adaptive-dealer":  # its return is below every band
        assert {b["outside"] for b in data["bands"]} == {"99%"}
    assert code == 1 and _found(data) == {mutant.finds, *mutant.also}, data["findings"]
    for finding in data["findings"]:
        assert finding["count"] >= 1
        assert finding["examples"] or finding["check"] in ("cards", "return", "drift", "leak")


def _play_flush_mutant(log: RoundLog) -> None:
    """1,500 rounds of one seat calling, from the mutant paying a flush at even money."""
    from harness.reference.mutants import MUTANTS as GAMES

    game = GAMES["flush-pays-even-money"]("standard", round_log=log)
    with _seeded_decks(7):
        for _ in range(1500):
            ident = game.round(seats=[{"seat": 1, "ante": 100}])["round"]
            game.act(round=ident, seat=1, action="call")
    log.close()


def test_a_game_mutant_s_log_fails_the_clause_of_its_fault(tmp_path: Path) -> None:
    """A game that pays a flush at even money writes a log whose audit names ante-odds of
    the ante pay table's clause, with a vector that replays the first such round."""
    log = RoundLog(tmp_path / "flush.jsonl", build="mutant")
    _play_flush_mutant(log)
    code, data = _audit(tmp_path, str(tmp_path / "flush.jsonl"), "--adapter", "reference")
    assert code == 1 and _found(data) == {("settlement", "ante-odds", "s000-antewin")}
    (finding,) = data["findings"]
    assert finding["detail"] == "ante flush" and finding["vector"].startswith("vectors/")
    vector = tmp_path / "out" / finding["vector"]
    assert vector.exists() and "--vectors" in finding["reproduce"]
    text = pdf_text(tmp_path / "out" / "audit.pdf")  # the compliance file's copy
    assert "Verdict: FAIL" in text and "s000-antewin" in text and "ante flush" in text
    assert "Card tests" in text and "Holm" in text


@pytest.mark.parametrize(
    "profile",
    [
        p if p == "standard" else pytest.param(p, marks=pytest.mark.slow)
        for p in available_profiles()
    ],
)  # the standard profile in the fast tier, every other in the slow
def test_the_sieve_pays_what_the_oracle_pays(profile: str, tmp_path: Path) -> None:
    """Random rounds of every bundled profile, every seat calling or folding, AA Bonus or
    not: the arrays owe each row exactly the oracle's settlement."""
    rules = load_profile(profile)
    draw = np.random.default_rng(11)
    rows = []
    plays_of = []
    for n in range(800):
        cards = [Card(int(i)) for i in draw.permutation(52)[:13]]
        seats = {s: (cards[2 * s - 2], cards[2 * s - 1]) for s in (1, 2, 3)}
        deal = Deal(
            seats, (cards[6], cards[7]), (cards[8], cards[9], cards[10]), cards[11], cards[12]
        )
        plays = {
            s: SeatPlay(s, int(draw.choice([1, 7, 100])),
                        int(draw.choice([0, 5])) if rules.aa_table else 0,
                        Action.CALL if draw.random() < 0.7 else Action.FOLD)
            for s in seats
        }  # fmt: skip
        want = settle(rules, deal, plays)
        plays_of.append((deal, plays, want))
        for seat in want.seats:
            aa = seat.aa_bonus
            rows.append({
                "table": "t", "round": f"r{n}", "time": "2026-01-01T00:00:00Z", "build": "b",
                "seat": seat.seat, "hole": "".join(map(str, deal.seats[seat.seat])),
                "flop": "".join(map(str, deal.flop)), "turn": str(deal.turn),
                "river": str(deal.river), "dealer": "".join(map(str, deal.dealer)),
                "action": seat.action.value, "ante": seat.ante.stake, "call": seat.call.stake,
                "aa_bonus": aa.stake if aa else 0, "ante_returned": seat.ante.returned,
                "call_returned": seat.call.returned, "aa_bonus_returned": aa.returned if aa else 0,
                "status": "settled",
            })  # fmt: skip
    batches = [b for b in read_log(_write(tmp_path / "log.jsonl", rows)) if isinstance(b, Rows)]
    due = [owed(Payouts.of(rules), b) for b in batches]
    got = {
        "call": np.concatenate([d.call for d in due]),
        "ante_returned": np.concatenate([d.ante_returned for d in due]),
        "call_returned": np.concatenate([d.call_returned for d in due]),
        "aa_bonus_returned": np.concatenate([d.aa_bonus_returned for d in due]),
    }
    for column, values in got.items():
        assert values.tolist() == [r[column] for r in rows], column
    assert all(d.judged.all() for d in due)


def test_a_log_reads_alike_as_json_lines_csv_and_parquet(
    reference_log: Path, tmp_path: Path
) -> None:
    rows = MUTANTS["rare-mispay"].change(_rows(reference_log))
    jsonl = _write(tmp_path / "log.jsonl", rows)
    with (tmp_path / "log.csv").open("w", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    table = pa.Table.from_pylist(rows)
    table = table.set_column(
        table.schema.get_field_index("time"), "time",
        pa.array([r["time"] for r in rows]).cast(pa.timestamp("us", tz="UTC")),
    )  # fmt: skip
    pq.write_table(table, tmp_path / "log.parquet")
    seen = []
    for path in (jsonl, tmp_path / "log.csv", tmp_path / "log.parquet"):
        code, data = _audit(tmp_path, str(path))
        seen.append((code, data["rows"], [(f["kind"], f["count"], f["examples"][0]["row"])
                                         for f in data["findings"]]))  # fmt: skip
    assert seen[0] == seen[1] == seen[2] and seen[0][0] == 1


def test_a_malformed_row_is_a_finding_with_its_file_and_row(tmp_path: Path) -> None:
    path = tmp_path / "bad.csv"
    _play(tmp_path / "ok.jsonl", rounds=5)
    rows = _rows(tmp_path / "ok.jsonl")
    rows[2]["hole"] = "AsXx"
    with path.open("w", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    items = list(read_log(path))
    bad = [i for i in items if isinstance(i, Malformed)]
    assert [(b.row, b.column, b.value) for b in bad] == [(3, "hole", "AsXx")]
    code, data = _audit(tmp_path, str(path))
    assert code == 1 and _found(data) == {("integrity", "malformed-row", None)}
    (finding,) = data["findings"]
    assert finding["examples"][0]["row"] == 3 and finding["detail"] == "hole"


def test_instants_in_text_are_read_by_arrow_as_python_reads_them() -> None:
    """A CSV or JSON Lines batch's instants, read by Arrow, are Python's reading of each
    (fractions of 1 to 9 digits, zones from -12:00 to +14:00, before 1970 too); a batch
    Arrow refuses (a 30 February) is read one instant at a time."""
    from harness.audit.log import _micros, _time

    draw = random.Random(5)
    texts = [
        f"{draw.randint(1900, 2200):04d}-{draw.randint(1, 12):02d}-{draw.randint(1, 28):02d}"
        f"{draw.choice('T ')}{draw.randint(0, 23):02d}:{draw.randint(0, 59):02d}:"
        f"{draw.randint(0, 59):02d}{draw.choice(['', '.5', '.123456', '.987654321'])}"
        f"{draw.choice(['Z', '+01:00', '-0530', '+14:00', '-12:00'])}"
        for _ in range(500)
    ]
    texts += ["1969-12-31T23:59:59.5Z", "not an instant", None]
    for batch in (texts, [*texts, "2026-02-30T00:00:00Z"]):
        values, wrong = _time(pa.chunked_array([pa.array(batch, pa.string())]))
        assert wrong.tolist() == [t is None or not t[0].isdigit() or "02-30" in t for t in batch]
        assert values[:500].tolist() == [_micros(t) for t in texts[:500]]
        assert values[500] == -500_000


def test_a_converted_log_audits_as_its_source(reference_log: Path, tmp_path: Path) -> None:
    """A JSON Lines log converted to Parquet: a column typed only where every value
    reads so, a line that is not JSON named and left out (exit 2), and the Parquet
    file's audit finds what the source's finds but that line."""
    rows = _rows(reference_log)
    rows[5]["ante_returned"] += 100  # mispaid
    rows[9]["call"] = "12.5"  # not an amount: the column stays text
    source = _write(tmp_path / "log.jsonl", rows)
    with source.open("a") as file:
        file.write("not json\n")
    parquet = tmp_path / "log.parquet"
    assert main(["audit", str(source), "--convert-to", str(parquet), "--quiet"]) == 2
    schema = pq.read_schema(parquet)
    assert schema.field("time").type == pa.timestamp("us", tz="UTC")
    assert (schema.field("ante").type, schema.field("call").type) == (pa.int64(), pa.string())
    assert pq.ParquetFile(parquet).metadata.num_rows == len(rows)
    _, before = _audit(tmp_path / "source", str(source))
    _, after = _audit(tmp_path / "parquet", str(parquet))
    assert _found(after) == _found(before)
    count = {(f["kind"], f["detail"].split(" ")[0]): f["count"] for f in before["findings"]}
    assert count == {
        (f["kind"], f["detail"].split(" ")[0]): f["count"] for f in after["findings"]
    } | {("malformed-row", "line"): 1}
    assert before["rows"]["read"] == after["rows"]["read"] + 1
    assert main(["audit", str(parquet), "--convert-to", str(tmp_path / "x.parquet")]) == 4


def test_bad_input_is_a_usage_error_and_an_empty_log_is_incomplete(tmp_path: Path) -> None:
    (tmp_path / "empty.jsonl").write_text("")
    code, data = _audit(tmp_path, str(tmp_path / "empty.jsonl"))
    assert code == 2 and data["verdict"] == "INCOMPLETE" and data["rows"]["read"] == 0
    (tmp_path / "other.jsonl").write_text('{"a": 1}\n')
    assert main(["audit", str(tmp_path / "other.jsonl"), "--out", str(tmp_path / "o")]) == 4
    (tmp_path / "notes.txt").write_text("x")
    assert main(["audit", str(tmp_path / "notes.txt"), "--out", str(tmp_path / "o")]) == 4
    assert main(["audit", str(tmp_path / "missing.jsonl"), "--out", str(tmp_path / "o")]) == 4
    log = tmp_path / "in" / "log.jsonl"
    log.parent.mkdir()
    _play(log, rounds=2)
    assert main(["audit", str(log), "--out", str(log.parent)]) == 4  # nothing written over it


def test_a_period_keeps_only_its_rows(reference_log: Path, tmp_path: Path) -> None:
    rows = _rows(reference_log)
    for n, r in enumerate(rows):
        r["time"] = f"2026-01-{1 + n // 300:02d}T12:00:00Z"  # 300 rows a day
    log = _write(tmp_path / "days.jsonl", rows)
    code, data = _audit(tmp_path, str(log), "--from", "2026-01-02", "--to", "2026-01-03")
    assert data["rows"]["read"] == data["rows"]["judged"] == 300 and not data["findings"]
    # A hundred rounds are too few to read the card tests: judged, but not certified clean.
    assert code == 2 and data["reasons"][0].startswith("too few rows for the card tests")


def test_the_audit_schema_is_generated_from_the_model() -> None:
    assert schema_main(["--check"]) == 0


@pytest.mark.slow
def test_a_certified_game_s_own_log_is_clean_and_a_finding_replays(tmp_path: Path) -> None:
    """End to end, as a laboratory would: the reference game, run over JSON Lines with
    `--log`, plays the RTP simulation (rounds stacked from the seed, each a fair deck;
    the differential's rounds are drawn from biased decks on purpose, which the card
    tests would rightly reject) and its log is audited clean; the flush mutant's log
    fails ante-odds, and the command audit.json gives replays it against the mutant."""
    import shlex
    import sys

    log = tmp_path / "served.jsonl"
    served = f"subprocess:{sys.executable} -m harness.reference --log {log}"
    # Seeded: each family of the audit's tests (cards, returns, drift, leaks) holds a fair
    # game to a 1% false alarm, which an unseeded run met in a CI run (the dealer's cards
    # by position, p 0.0056).
    code = main(["certify", "--adapter", served, "--out", str(tmp_path / "cert"), "-n", "0",
                 "--rtp-rounds", "12000", "-k", "rtp", "--seed", "7"])  # fmt: skip
    certified = json.loads((tmp_path / "cert" / "results.json").read_text())
    assert code == 2 and not certified["failures"]  # INCOMPLETE: a selection, nothing failed
    assert len(log.read_text().splitlines()) >= 12000
    code, data = _audit(tmp_path, str(log))
    assert not data["findings"] and data["rows"]["judged"] == data["rows"]["read"]
    # Dealt in under a minute: every check passes but drift, which needs a week of days.
    status = {c["name"]: c["status"] for c in data["checks"]}
    assert code == 2 and {n for n, s in status.items() if s != "pass"} == {"drift"}, status

    mutant = tmp_path / "mutant.jsonl"
    log = RoundLog(mutant, build="mutant")
    _play_flush_mutant(log)
    adapter = f"subprocess:{sys.executable} -m harness.reference --mutant flush-pays-even-money"
    code, data = _audit(tmp_path, str(mutant), "--adapter", adapter)
    (finding,) = data["findings"]
    command = shlex.split(finding["reproduce"])
    assert command[:2] == ["chcert", "certify"]
    replay = tmp_path / "replay"
    assert main([*command[1:], "--out", str(replay), "-n", "0"]) == 1
    results = json.loads((replay / "results.json").read_text())
    failed = {c["id"] for c in results["clauses"] if c["status"] == "fail"}
    assert failed == {"s000-antewin"}


@pytest.mark.parametrize("suffix", [".parquet", ".csv", ".jsonl"])
def test_a_generated_log_of_each_kind_is_read_whole_and_clean(suffix: str, tmp_path: Path) -> None:
    from harness.audit.generate import generate

    log = tmp_path / f"log{suffix}"
    assert generate(log, 6_000, seats=3, seed=5, days=7) == 6_000  # enough for every test
    code, data = _audit(tmp_path, str(log))
    assert code == 0 and data["rows"]["read"] == data["rows"]["judged"] == 6_000
    assert data["rows"]["rounds"] == 2_000


def test_a_round_id_is_found_again_across_batches_and_files_on_disk(tmp_path: Path) -> None:
    """The ids met are hashed over their own bytes only: an id read in a batch of short
    ids and again in a batch of long ones (arrays sliced, as Arrow hands a batch), in
    another file, is the same id; its table is part of it; a long key is hashed whole."""
    from harness.audit.ids import RoundIds

    ids = RoundIds(tmp_path)
    names = pa.array(["t1", "t2"])
    ids.add(names, np.array([0, 0, 1]), pa.array(["r1", "x", "r2"]),
            np.array([0, 2, 2]), 0, np.array([1, 4, 7]))  # fmt: skip
    long = "r3-with-a-much-longer-id-than-the-forty-bytes-kept"
    names = pa.array(["x", "t2", "t1"]).slice(1)
    rounds = pa.array(["y", long, "r1", "r2", long + "-not-the-same"]).slice(1)
    ids.add(names, np.array([1, 1, 0, 0, 1, 1]), rounds, np.array([0, 1, 2, 0, 0, 3]), 1,
            np.array([1, 2, 3, 9, 11, 12]))  # fmt: skip
    found = sorted((r.first, r.again) for r in ids.repeated())
    assert found == [((0, 1), (1, 2)), ((0, 7), (1, 3)), ((1, 1), (1, 11))]


@pytest.mark.parametrize("suffix", [".parquet", ".csv", ".jsonl"])
def test_a_repeated_round_ids_example_is_read_from_the_log_again(
    suffix: str, tmp_path: Path
) -> None:
    """The round ids' files keep no id: a round met again is named in its example by the
    row read again from the log, by the number the audit gave it (a line that cannot be
    taken apart counts), wherever the row lies (a Parquet file's fourth row group)."""
    from harness.audit.generate import generate

    log = tmp_path / f"log{suffix}"
    generate(log, 3_000, seats=3, seed=2, days=2)
    if suffix == ".parquet":  # the first round's first row again, the log's last
        table = pq.read_table(log)
        first = (table["table"][0].as_py(), table["round"][0].as_py())
        pq.write_table(pa.concat_tables([table, table.slice(0, 1)]), log, row_group_size=1_000)
        again = 3_001
    else:  # and a line that is no row before them, which takes a number of its own
        lines = log.read_text().splitlines(keepends=True)
        head = 1 if suffix == ".csv" else 0
        row = next(csv.DictReader(lines)) if suffix == ".csv" else json.loads(lines[0])
        first = (row["table"], row["round"])
        lines.append(lines[head])
        lines.insert(head + 10, "not,a,row\n" if suffix == ".csv" else "[1]\n")
        log.write_text("".join(lines))
        again = 3_002
    code, data = _audit(tmp_path, str(log))
    found = [f for f in data["findings"] if f["kind"] == "round-repeated"]
    assert code == 1 and len(found) == 1 and found[0]["count"] == 1
    (example,) = found[0]["examples"]
    assert (example["table"], example["round"], example["row"]) == (*first, again)
    assert example["detail"].endswith(" row 1")
    assert keys_at(log, [again]) == {again: first}
    log.unlink()  # a log moved before the examples are read again: no ids, no failure
    assert keys_at(log, [again]) == {}
    partial = Partial()
    met_again(Repeats(2, (Repeat((0, 1), (0, again)),)), [str(log)], partial)
    (tally,) = partial.tallies.values()
    assert tally.count == 2 and (tally.examples[0].row, tally.examples[0].table) == (again, "")


def test_a_repeated_round_ids_example_reads_its_id_as_the_checks_do(tmp_path: Path) -> None:
    """A round id a Parquet file types as a number is the text Arrow casts it to, in a
    repeated round's example as in every other finding's (4, not Python's 4.0)."""
    from harness.audit.generate import generate

    log = tmp_path / "float.parquet"
    generate(log, 3_000, seats=3, seed=2, days=2)
    table = pq.read_table(log)
    table = table.set_column(1, "round", table["round"].cast(pa.int64()).cast(pa.float64()))
    pq.write_table(pa.concat_tables([table, table.slice(0, 1)]), log, row_group_size=1_000)
    code, data = _audit(tmp_path, str(log))
    examples = {f["kind"]: f["examples"][0] for f in data["findings"]}
    assert code == 1
    repeated, backwards = examples["round-repeated"], examples["time-backwards"]
    assert repeated["row"] == backwards["row"] == 3_001
    assert repeated["round"] == backwards["round"] == "0"


def test_a_blank_line_in_a_csv_log_is_a_malformed_row_and_counts_in_the_numbering(
    tmp_path: Path,
) -> None:
    """Every line after a CSV's header is a row or a malformed one, with its number: blank
    lines before a line the fast reader cannot take apart are not read twice when the
    line-by-line reader takes over there (no round met again, no row counted twice)."""
    from harness.audit.generate import generate

    log = tmp_path / "blank.csv"
    generate(log, 60_000, seats=3, seed=9, days=2)  # the bad line in a later 4 MB block
    lines = log.read_text().splitlines(keepends=True)
    lines = [*lines[:101], "\n" * 5, *lines[101:50_001], "not,a,row\n", *lines[50_001:]]
    log.write_text("".join(lines))
    code, data = _audit(tmp_path, str(log))
    kinds = {f["kind"]: f for f in data["findings"]}
    assert code == 1 and set(kinds) == {"malformed-row"}, data["findings"]
    assert data["rows"]["read"] == 60_006 and data["rows"]["malformed"] == 6
    rows = sorted(e["row"] for f in data["findings"] for e in f["examples"])
    assert rows[:3] == [101, 102, 103]


def _csv(path: Path, rows: list[dict[str, Any]], header: str | None = None) -> Path:
    with path.open("w", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    if header is not None:
        lines = path.read_text().splitlines(keepends=True)
        path.write_text(header + "\r\n" + "".join(lines[1:]))
    return path


def _folded_round(rows: list[dict[str, Any]], paid: bool = False) -> list[dict[str, Any]]:
    """The log with its first round folded by every seat and no board dealt (as a game
    that stops there writes it); `paid`: one fold's ante handed back."""
    first = rows[0]["round"]
    out = []
    for r in rows:
        r = dict(r)
        if r["round"] == first:
            r.update(action="fold", call=0, call_returned=0, ante_returned=0,
                     turn=None, river=None, dealer=None)  # fmt: skip
            if r["aa_bonus"]:  # standard: a fold forfeits its AA Bonus
                r["aa_bonus_returned"] = 0
        out.append(r)
    if paid:
        out[0]["ante_returned"] = out[0]["ante"]
    return out


def test_logs_a_sound_game_may_write_are_clean(reference_log: Path, tmp_path: Path) -> None:
    """Seats beyond seven, a board never dealt when all fold (empty in CSV, null in JSON),
    hole cards written high card first, a header with spaces, rotated files: no finding."""
    rows = _rows(reference_log)
    seat8 = [dict(r, seat=8) if r["seat"] == 3 else r for r in rows]
    code, data = _audit(tmp_path, str(_write(tmp_path / "seat8.jsonl", seat8)))
    assert code == 0 and not data["findings"], data["findings"]
    folded = _folded_round(rows)
    for log in (_write(tmp_path / "fold.jsonl", folded), _csv(tmp_path / "fold.csv", folded)):
        code, data = _audit(tmp_path, str(log))
        assert not data["findings"], (log, data["findings"])
        # No dealer's cards where every seat folded: that round is left out of the leak
        # test, which leaving it out cannot bias (harness/audit/leak.py); still clean.
        assert code == 0 and data["verdict"] == "PASS"
        leak = next(c for c in data["checks"] if c["name"] == "leak")
        assert leak["reason"] == "3 seats' rounds show no dealer's cards: not read"
    high_first = [
        dict(r, hole=r["hole"][2:] + r["hole"][:2]) if r["seat"] == 1 else r for r in rows
    ]
    code, data = _audit(tmp_path, str(_write(tmp_path / "sorted.jsonl", high_first)))
    assert code == 0 and not data["findings"], data["findings"]
    spaced = _csv(tmp_path / "spaced.csv", rows, header=", ".join(rows[0]))
    assert _audit(tmp_path, str(spaced))[0] == 0
    rotated = tmp_path / "rotated"
    rotated.mkdir()
    for n, part in enumerate((rows[:600], rows[600:1200], rows[1200:]), start=1):
        _write(rotated / f"game-{[2, 9, 10][n - 1]}.jsonl", part)
    code, data = _audit(tmp_path, str(rotated))
    assert code == 0 and not data["findings"], data["findings"]


def test_what_a_log_gets_wrong_is_a_finding_never_a_crash(
    reference_log: Path, tmp_path: Path
) -> None:
    rows = _rows(reference_log)
    cases = {
        "paid-fold": (_folded_round(rows, paid=True), {("settlement", "fold", "s000-r5")}),
        "no-ante": ([dict(rows[0], ante=0, ante_returned=0), *rows[1:]],
                    {("integrity", "stake-outside-table", "s000-r2")}),
        "not-ascii": ([dict(rows[0], hole="Aé"), *rows[1:]],
                      {("integrity", "malformed-row", None)}),
        "long-id": ([*(dict(r, round="x" * 300) if r["round"] == "r7" else r for r in rows)],
                    {("integrity", "malformed-row", None)}),
    }  # fmt: skip
    for name, (mutated, finds) in cases.items():
        code, data = _audit(tmp_path, str(_write(tmp_path / f"{name}.jsonl", mutated)))
        assert code == 1 and _found(data) == finds, (name, data["findings"])
    lines = [json.dumps(r) for r in rows]
    lines[4] = "<not json>"
    broken = tmp_path / "broken.jsonl"  # a line that is not UTF-8, inside a round
    broken.write_bytes("\n".join(lines).encode("utf-8").replace(b"<not json>", b"\xff\xfe"))
    code, data = _audit(tmp_path, str(broken))
    assert code == 1 and _found(data) == {("integrity", "malformed-row", None)}
    assert data["findings"][0]["examples"][0]["row"] == 5
    extra = _csv(tmp_path / "extra.csv", rows)
    text = extra.read_text().splitlines()
    text[3] += ",surplus"
    extra.write_text("\n".join(text) + "\n")
    code, data = _audit(tmp_path, str(extra))
    assert code == 1 and [e["row"] for e in data["findings"][0]["examples"]] == [3]


def test_a_period_leaves_out_the_malformed_rows_outside_it(
    reference_log: Path, tmp_path: Path
) -> None:
    rows = _rows(reference_log)
    for n, r in enumerate(rows):
        r["time"] = f"2026-01-{1 if n < 1500 else 2:02d}T12:00:00Z"
    rows[3]["ante_returned"] = "1.5"  # on January 1st
    log = _write(tmp_path / "p.jsonl", rows)
    data = _audit(tmp_path, str(log), "--from", "2026-01-02")[1]
    assert not data["findings"] and data["rows"]["read"] == len(rows) - 1500


def test_other_files_are_not_round_logs(reference_log: Path, tmp_path: Path) -> None:
    rows = _rows(reference_log)
    as_jsonl = tmp_path / "csv.jsonl"
    as_jsonl.write_text(_csv(tmp_path / "x.csv", rows).read_text())
    assert main(["audit", str(as_jsonl), "--out", str(tmp_path / "o")]) == 4
    table = pa.table({"table": [["a"]], **{c: [str(rows[0][c])] for c in rows[0] if c != "table"}})
    pq.write_table(table, tmp_path / "list.parquet")
    assert main(["audit", str(tmp_path / "list.parquet"), "--out", str(tmp_path / "o")]) == 4


def test_parquet_nanoseconds_and_a_column_that_stops_are_read(
    reference_log: Path, tmp_path: Path
) -> None:
    rows = _rows(reference_log)
    table = pa.Table.from_pylist(rows)
    times = pa.array([r["time"] for r in rows]).cast(pa.timestamp("ns", tz="UTC"))
    pq.write_table(table.set_column(table.schema.get_field_index("time"), "time", times),
                   tmp_path / "ns.parquet")  # fmt: skip
    assert _audit(tmp_path, str(tmp_path / "ns.parquet"))[0] == 0
    with_player = [dict(r, player="p1") if n < 10 else r for n, r in enumerate(rows)]
    items = list(read_log(_write(tmp_path / "player.jsonl", with_player[:300]), batch_rows=7))
    assert sum(len(i) for i in items if isinstance(i, Rows)) == 300


def test_the_moments_are_cached_checked_and_worked_again_when_broken(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A process judging a piece reads the moments from their cache file: what it reads
    is what was worked, and a file whose tables do not match their sha256 is said so
    and worked again."""
    from harness.audit import returns

    profile = load_profile("standard")
    path = tmp_path / "moments-x-v1-y-z.npz"
    with mock.patch.object(returns, "_cache_path", lambda _: path):
        worked = returns.Moments._cached(profile, None)
        assert path.exists()
        read = returns.Moments._cached(profile, None)
        assert np.array_equal(read.per_call, worked.per_call)
        assert np.array_equal(read.square_low, worked.square_low)
        with np.load(path) as stored:
            arrays = dict(stored)
        arrays["per_call"][7, 1] += 1e-9
        np.savez(path, **arrays)
        again = returns.Moments._cached(profile, None)
    assert "do not match the sha256" in capsys.readouterr().err
    assert np.array_equal(again.per_call, worked.per_call)


def test_the_situation_of_a_row_is_the_census_s() -> None:
    from harness.audit.returns import Moments
    from harness.gamemath.census import symmetry

    moments = Moments.of(load_profile("standard"))
    draw = np.random.default_rng(3)
    cards = np.array([draw.permutation(52)[:5] for _ in range(500)], np.int16)
    got = moments.situations(cards[:, :2], cards[:, 2:])
    sym = symmetry()
    assert got.tolist() == [
        sym.situation((int(c[0]), int(c[1])), (int(c[2]), int(c[3]), int(c[4]))) for c in cards
    ]


def _completions(profile: str, hole: list[int], flop: list[int]) -> list[int]:
    """Every turn, river and dealer hand after `hole` and `flop`, settled as the sieve
    settles a call of one ante: the sums of the net returns and of their squares, and of
    the outcomes with the ante paid at 1 to 1 and of their squares."""
    from itertools import combinations

    from harness.rules.evaluator import CATEGORY_SHIFT, evaluate_batch

    rules = Payouts.of(load_profile(profile))
    m = rules.call_multiple
    rest = [c for c in range(52) if c not in hole + flop]
    sums = [0, 0, 0, 0]
    for turn, river in combinations(rest, 2):
        board = [*flop, turn, river]
        dealers = np.array([d for d in combinations(rest, 2) if not {turn, river} & set(d)])
        n = len(dealers)
        player = int(evaluate_batch(np.array([[*hole, *board]], np.uint8))[0])
        dealer = evaluate_batch(np.hstack([dealers, np.tile(board, (n, 1))]).astype(np.uint8))
        odds = int(rules.ante_odds[player >> CATEGORY_SHIFT])
        qualifies, wins, ties = dealer >= rules.qualifying, player > dealer, player == dealer
        ante = np.where(qualifies, np.where(wins, odds, np.where(ties, 0, -1)), odds)
        if rules.even_unless_player_wins:
            ante = np.where(~qualifies & ~wins, 1, ante)
        call = np.where(qualifies, np.where(wins, m, np.where(ties, 0, -m)), 0)
        net = (ante + call).astype(np.int64)
        outcome = np.where(call != 0, call + np.sign(call), np.where(ante > 0, 1, 0))
        for k, values in enumerate((net, net * net, outcome, outcome * outcome)):
            sums[k] += int(values.sum())
    return sums


@pytest.mark.slow
@pytest.mark.parametrize("profile", ["standard", "source-003"])
def test_a_call_s_expected_return_is_every_completion_s(profile: str) -> None:
    """The census's expectation of a call equals the sum over all 1,070,190 completions of
    a situation, the true second moment lies within the bounds the census gives, and the
    outcome's two moments are exact."""
    from harness.audit.returns import Moments
    from harness.gamemath.kernel import COMPLETIONS

    moments = Moments.of(load_profile(profile))
    draw = random.Random(profile)
    for _ in range(2):
        cards = draw.sample(range(52), 5)
        hole, flop = cards[:2], cards[2:]
        s = int(moments.situations(np.array([hole], np.int16), np.array([flop], np.int16))[0])
        total, square, outcome, outcome_square = _completions(profile, hole, flop)
        value, square_high, *outcomes = moments.per_call[s]
        assert value == total / COMPLETIONS  # distinct sums, distinct quotients at this size
        assert moments.square_low[s] <= square and square / COMPLETIONS <= square_high
        assert outcomes == [outcome / COMPLETIONS, outcome_square / COMPLETIONS]


def test_a_strategy_reading_other_seats_cards_is_never_blamed_on_the_game(
    tmp_path: Path,
) -> None:
    """Hole cards face up (source-002): a seat that calls only when another seat holds a
    card of its own ranks decides on cards the census's expectation does not condition
    on. Those rounds are not read, so a sound game is never found dealing against it;
    a player with two seats (the `player` column) likewise."""
    path = tmp_path / "faceup.jsonl"
    log = RoundLog(path, build="reference")
    game = ReferenceGame("source-002", round_log=log)
    with _seeded_decks(11):
        for _ in range(300):
            dealt = game.round(seats=[{"seat": s, "ante": 100} for s in (1, 2, 3)])
            holes = {s["seat"]: s["hole"] for s in dealt["seats"]}
            ranks = {card[0] for card in holes[1]}
            seen = {card[0] for s in (2, 3) for card in holes[s]}
            game.act(round=dealt["round"], seat=1, action="call" if ranks & seen else "fold")
            for s in (2, 3):
                game.act(round=dealt["round"], seat=s, action="call")
    log.close()
    data = _audit(tmp_path, str(path), "--profile", "source-002")[1]
    returns = next(c for c in data["checks"] if c["name"] == "return")
    assert returns["status"] == "not_tested" and "hole cards face up" in returns["reason"]
    assert not {f["check"] for f in data["findings"]} & {"return", "drift"}, data["findings"]
    rows = [dict(r, player="p1" if r["seat"] < 3 else "p2") for r in _rows(path)]
    data = _audit(tmp_path, str(_write(tmp_path / "players.jsonl", rows)))[1]
    returns = next(c for c in data["checks"] if c["name"] == "return")
    assert returns["status"] == "not_tested" and "a player with two seats" in returns["reason"]


def test_a_group_column_is_a_band_only_as_far_as_it_is_a_group(
    reference_log: Path, tmp_path: Path
) -> None:
    """A channel longer than a group name is a malformed row; a column with a value a
    row (a session id) gives a hundred bands and pools the rest."""
    from harness.audit.returns import MOST_GROUPS, OTHER

    rows = [
        dict(r, channel=f"session-{n}", currency="EUR") for n, r in enumerate(_rows(reference_log))
    ]
    data = _audit(tmp_path, str(_write(tmp_path / "sessions.jsonl", rows)))[1]
    channels = [b for b in data["bands"] if b["group"] == "channel"]
    assert len(channels) == MOST_GROUPS + 1 and channels[-1]["value"] == OTHER
    assert sum(b["seats"] for b in channels) == len(rows)
    assert [b["value"] for b in data["bands"] if b["group"] == "currency"] == ["EUR"]
    rows[4]["channel"] = "x" * 201
    code, data = _audit(tmp_path, str(_write(tmp_path / "long.jsonl", rows)))
    assert code == 1 and _found(data) == {("integrity", "malformed-row", None)}


def _rounds_read(path: Path, batch_rows: int, step: int = 0) -> tuple[list[list[int]], list[int]]:
    """(each round's row numbers, the malformed rows' numbers) as read_log reads the
    file in batches of `batch_rows`, in pieces of `step` row groups where given."""
    groups = pq.ParquetFile(path).metadata.num_row_groups
    parts = [range(g, min(g + step, groups)) for g in range(0, groups, step)] if step else [None]
    rounds: list[list[int]] = []
    malformed: list[int] = []
    for part in parts:
        for item in read_log(path, batch_rows=batch_rows, groups=part):
            if isinstance(item, Malformed):
                malformed.append(item.row)
                continue
            cuts = np.flatnonzero(np.diff(item.round_no)) + 1
            rounds += [list(map(int, r)) for r in np.split(item.row, cuts)]
    return rounds, sorted(malformed)


def test_a_row_without_its_table_never_cuts_its_round_in_two(tmp_path: Path) -> None:
    """A malformed row with no table among a round's seat rows is found as malformed and
    leaves the round whole, wherever batches and pieces are cut: its other rows are one
    round, never two (which would be a round id met again)."""
    from harness.audit.generate import generate

    source = tmp_path / "source.parquet"
    generate(source, 600, seats=3, seed=2, days=1)
    table = pq.read_table(source)
    names = table["table"].to_pylist()
    middle = list(range(1, len(names), 9))  # a round's second row of every third round
    for i in middle:
        names[i] = None
    table = table.set_column(table.schema.get_field_index("table"), "table", pa.array(names))
    log = tmp_path / "log.parquet"
    pq.write_table(table, log, row_group_size=37)
    whole, malformed = _rounds_read(log, 65_536)
    assert malformed == [i + 1 for i in middle]
    assert sorted(len(r) for r in whole) == [2] * len(middle) + [3] * (200 - len(middle))
    for batch_rows, step in ((5, 0), (7, 0), (64, 0), (7, 1), (13, 2), (64, 3)):
        assert _rounds_read(log, batch_rows, step) == (whole, malformed), (batch_rows, step)


def test_each_row_reads_its_own_cards_whichever_dictionary_its_batch_carries(
    tmp_path: Path,
) -> None:
    """Card columns read through their row groups' dictionaries (each parsed once, and
    kept while the batches carry the same one) give every row the cards of its own text,
    and find malformed exactly the rows whose text is not cards: row groups of 37 rows,
    read 5, 64 and 65,536 rows a batch; two groups swap two flops (dictionaries of one
    length, other entries)."""
    from harness.audit.generate import generate

    source = tmp_path / "source.parquet"
    generate(source, 600, seats=3, seed=4, days=1)
    table = pq.read_table(source)
    flops = table["flop"].to_pylist()
    flops[40:43] = ["AsKdXx"] * 3  # a round's flop that is no cards, in the second group
    flops[300] = "AsKd"  # two cards where three belong
    flops[74:77], flops[111:114] = flops[111:114], flops[74:77]  # third and fourth groups
    table = table.set_column(table.schema.get_field_index("flop"), "flop", pa.array(flops))
    log = tmp_path / "log.parquet"
    pq.write_table(table, log, row_group_size=37)

    def own(text: str) -> list[int]:
        if len(text) != 6 or "X" in text:
            return [-1, -1, -1]
        return [card.index for card in parse_cards(text)]

    for batch_rows in (5, 64, 65_536):
        cards: dict[int, list[int]] = {}
        malformed = []
        for item in read_log(log, batch_rows=batch_rows):
            if isinstance(item, Malformed):
                malformed.append((item.row, item.column))
            else:
                cards.update(zip(item.row.tolist(), item.cards["flop"].tolist(), strict=True))
        assert malformed == [(41, "flop"), (42, "flop"), (43, "flop"), (301, "flop")]
        assert all(cards[row] == own(flops[row - 1]) for row in cards), batch_rows
        assert len(cards) == 600 - 4


@pytest.mark.parametrize("statistics", [True, False])
@pytest.mark.parametrize("keyless", [(None, None), (None, "A"), ("", "")])
def test_a_row_group_of_rows_without_a_key_leaves_the_round_around_it_whole(
    tmp_path: Path, statistics: bool, keyless: tuple[str | None, str | None]
) -> None:
    """A round whose rows go on through a whole row group of malformed rows (no table,
    no round, or empty ones) into the next group is one round however the file is cut
    into pieces: the piece that begins after them looks back past that group for the
    key of the round going on."""
    from harness.audit.generate import generate

    source = tmp_path / "source.parquet"
    generate(source, 30, seats=3, seed=5, days=1)
    table = pq.read_table(source)
    a, b, c = ("T", "A"), ("T", "B"), ("T", "C")
    keys = [a, a, a, keyless, keyless, keyless, a, b, b, c, c, c]
    names = [k[0] for k in keys] + table["table"].to_pylist()[len(keys) :]
    rounds = [k[1] for k in keys] + table["round"].to_pylist()[len(keys) :]
    table = table.set_column(0, "table", pa.array(names, pa.string()))
    table = table.set_column(1, "round", pa.array(rounds, pa.string()))
    log = tmp_path / "log.parquet"
    pq.write_table(table, log, row_group_size=3, write_statistics=statistics)
    whole, malformed = _rounds_read(log, 64)
    assert whole[0] == [1, 2, 3, 7] and malformed == [4, 5, 6]
    for batch_rows, step in ((64, 1), (2, 1), (64, 2)):
        assert _rounds_read(log, batch_rows, step) == (whole, malformed), (batch_rows, step)


@pytest.mark.parametrize("statistics", [True, False])
@pytest.mark.parametrize("ids", ["rising", "scattered"])
def test_a_piece_reads_the_rounds_that_begin_in_it_with_or_without_statistics(
    tmp_path: Path, statistics: bool, ids: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pieces of row groups that cut rounds read every round once and whole, whether the
    file's statistics bound its round ids or not; a piece reads the row group before it
    only where they cannot show that its first round began in it."""
    from harness.audit.generate import generate

    source = tmp_path / "source.parquet"
    generate(source, 600, seats=3, seed=3, days=1)
    table = pq.read_table(source)
    number = [int(r) for r in table["round"].to_pylist()]
    named = {  # rising: in the order Parquet compares text; scattered: in none
        "rising": [f"{n:06d}" for n in number],
        "scattered": [hashlib.sha256(str(n).encode()).hexdigest()[:12] for n in number],
    }
    table = table.set_column(table.schema.get_field_index("round"), "round", pa.array(named[ids]))
    log = tmp_path / "log.parquet"
    pq.write_table(table, log, row_group_size=37, write_statistics=statistics)
    whole, _ = _rounds_read(log, 65_536)
    assert sorted(len(r) for r in whole) == [3] * 200
    looked: list[int] = []
    read = pq.ParquetFile.read_row_group
    monkeypatch.setattr(pq.ParquetFile, "read_row_group",
                        lambda self, i, **kw: looked.append(i) or read(self, i, **kw))  # fmt: skip
    starts = []  # the first row group of each piece after a file's first
    for batch_rows, step in ((7, 1), (64, 1), (13, 2)):
        assert _rounds_read(log, batch_rows, step) == (whole, []), (batch_rows, step)
        starts += range(step, 17, step)
    cut = [g for g in starts if 37 * g % 3]  # a round of 3 rows going on across the start
    if ids == "rising" and statistics:
        assert sorted(looked) == sorted(g - 1 for g in cut)
    elif not statistics:
        assert sorted(looked) == sorted(g - 1 for g in starts)
    else:  # scattered ids: a group before a cut is always read, only such groups ever
        assert {g - 1 for g in cut} <= set(looked) <= {g - 1 for g in starts}
