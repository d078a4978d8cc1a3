"""The report's charts (harness/report/charts.py): drawn from results.json values alone,
None (never an exception) when the values are absent or malformed, small in the PDF,
and visible once rasterized.

The data is built here, shaped like a PASS run's results.json (docs/results.md) and
read as the report reads it (`Results.from_json`, harness/results/model.py): the card x
position table of decks shuffled by numpy's generator, and figures copied from a run
of `chcert certify --seed 7`. A value of the wrong type never reaches a chart (the
model refuses it); one of the right type that is no figure (NaN, an interval upside
down) gives no chart.
"""

from __future__ import annotations

import math
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import msgspec
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image
from reportlab.graphics.shapes import Drawing, Group, String
from reportlab.graphics.shapes import Path as PathShape
from reportlab.lib.pagesizes import A4
from reportlab.lib.units import mm
from reportlab.platypus import PageBreak, SimpleDocTemplate, Spacer

from harness.gamemath.rng import position_counts, position_p_values
from harness.report import charts
from harness.results.model import AnteRow, Results, Simulation
from tests.pdftext import pdf_text
from tests.tools import need

DECKS = 3_000
T = TypeVar("T")

SIMULATION_JSON: dict[str, Any] = {
    "status": "pass",
    "rounds": 1000,
    "seats": 7,
    "hands": 7000,
    "observed_return_per_ante": 0.039285714285714396,
    "confidence": 0.99,
    "interval": [-0.09133753552376775, 0.16990896409519654],
    "exact_return_per_ante": -0.021576458362308686,
    "interval_contains_exact": True,
    "interval_judged": False,
    "passed": True,
}

ROWS_JSON: list[dict[str, Any]] = [
    {
        "row": "royal_flush",
        "odds": 100,
        "probability": 3.0781543386585404e-05,
        "contribution": 0.0030781543386585405,
    },
    {
        "row": "straight_flush",
        "odds": 20,
        "probability": 0.0002549379285283638,
        "contribution": 0.005098758570567276,
    },
    {
        "row": "four_of_a_kind",
        "odds": 10,
        "probability": 0.0015218836957423235,
        "contribution": 0.015218836957423234,
    },
    {
        "row": "full_house",
        "odds": 3,
        "probability": 0.02207919138104774,
        "contribution": 0.06623757414314321,
    },
    {
        "row": "flush",
        "odds": 2,
        "probability": 0.024233104182073778,
        "contribution": 0.048466208364147556,
    },
    {
        "row": "any other hand",
        "odds": 1,
        "probability": 0.4295718849444314,
        "contribution": 0.4295718849444314,
    },
]


def read(kind: type[T], value: Any) -> T | None:
    """A value as the report reads it (as `Results.from_json` does), or None when the
    model refuses it: a file holding it is never drawn, but said to be unreadable."""
    try:
        return msgspec.convert(value, kind, strict=False)
    except msgspec.ValidationError:
        return None


SIMULATION = msgspec.convert(SIMULATION_JSON, Simulation)
ROWS = msgspec.convert(ROWS_JSON, list[AnteRow])


def fair_decks(count: int = DECKS, seed: int = 11) -> np.ndarray[Any, np.dtype[np.uint8]]:
    ordered = np.tile(np.arange(52, dtype=np.uint8), (count, 1))
    return np.random.default_rng(seed).permuted(ordered, axis=1)


@pytest.fixture(scope="module")
def rng_section() -> dict[str, Any]:
    """The new fields of results.json `rng`, as Battery.to_json writes them."""
    counts = position_counts(fair_decks())
    return {
        "decks": DECKS,
        "position_counts": counts.tolist(),
        "position_p_values": [float(p) for p in position_p_values(counts)],
    }


@pytest.fixture(scope="module")
def results(rng_section: dict[str, Any]) -> Results:
    maths = {"optimal": {"rows": ROWS_JSON}, "simulation": SIMULATION_JSON}
    return Results.from_json(
        {
            "verdict": "PASS",
            "rng": {"status": "pass", "tests": [], **rng_section},
            "math": {"status": "pass", "claims": [], **maths},
        }
    )


def strings(drawing: Drawing) -> list[str]:
    """Every text drawn in a drawing, in drawing order."""
    return [n.text for n in nodes(drawing) if isinstance(n, String)]


def nodes(node: Any) -> list[Any]:
    """Every shape of a drawing, groups opened."""
    if isinstance(node, Group):  # a Drawing is a Group
        return [n for child in node.contents for n in nodes(child)]
    return [node]


def paths(drawing: Drawing) -> list[PathShape]:
    return [n for n in nodes(drawing) if isinstance(n, PathShape)]


def drawings_from_results(results: Results) -> dict[str, Drawing | None]:
    """Every chart, each from its part of a whole results.json, as the report draws them."""
    rng, maths = results.rng, results.math
    optimal = maths.optimal if maths is not None else None
    return {
        "position_heatmap": (
            charts.position_heatmap(rng.position_counts, rng.decks) if rng else None
        ),
        "p_value_histogram": charts.p_value_histogram(rng.position_p_values) if rng else None,
        "rtp_interval": charts.rtp_interval(maths.simulation) if maths else None,
        "ante_return_distribution": (
            charts.ante_return_distribution(optimal.rows) if optimal else None
        ),
    }


def text_of(drawing: Drawing | None) -> str:
    assert drawing is not None
    return "\n".join(strings(drawing))


# ---------------------------------------------------------------- drawn from data


def test_every_chart_draws_from_a_pass_runs_values(results: Results) -> None:
    drawn = drawings_from_results(results)
    assert set(drawn) == {
        "position_heatmap",
        "p_value_histogram",
        "rtp_interval",
        "ante_return_distribution",
    }
    for name, drawing in drawn.items():
        assert isinstance(drawing, Drawing), name
        assert drawing.width == pytest.approx(170 * mm), name  # the report's text column
        assert 0 < drawing.height < 200 * mm, name


def test_the_heatmap_counts_cells_beyond_three_sd_and_shows_the_expectation(
    rng_section: dict[str, Any],
) -> None:
    counts = np.array(rng_section["position_counts"], dtype=float)
    expected = DECKS / 52
    sd = math.sqrt(DECKS / 52 * 51 / 52)
    beyond = int((np.abs(counts - expected) > 3 * sd).sum())
    text = text_of(charts.position_heatmap(rng_section["position_counts"], DECKS))
    assert f"cells beyond 3 sd: {beyond} " in text
    assert "expected 57.7 per cell" in text
    assert {"clubs", "diamonds", "hearts", "spades", "2", "A", "1", "52"} <= set(text.split("\n"))


def test_a_card_stuck_at_one_position_is_the_darkest_cell_where_it_belongs() -> None:
    """Rows are card indices (harness/rules/cards.py: As = 51), drawn suit by suit with the
    ace last; columns are positions: As over-represented at the last position is the bottom-right
    cell, in the palette's darkest red (clipped at +4 sd)."""
    counts = np.full((52, 52), DECKS // 52)
    counts[51, 51] += 40 * round(math.sqrt(DECKS / 52))  # about 40 sd
    drawing = charts.position_heatmap(counts.tolist(), DECKS - DECKS % 52)
    assert drawing is not None
    hot = [p for p in paths(drawing) if p.fillColor == charts.MORE]
    assert len(hot) == 1
    x0, y0, x1, y1 = hot[0].getBounds()
    assert (x1 - x0, y1 - y0) == (6, 6)  # one cell ...
    labels = [n for n in nodes(drawing) if isinstance(n, String)]
    last_position = next(n for n in labels if n.text == "52")
    last_ace = [n for n in labels if n.text == "A"][-1]  # the spades' ace, lowest row
    assert last_position.x == (x0 + x1) / 2  # ... in the last position's column
    assert y0 < last_ace.y < y1  # ... and the ace of spades' row
    assert len(paths(drawing)) == 1  # every other cell is as expected: white, not drawn
    assert "cells beyond 3 sd: 1 " in text_of(drawing)


def test_the_heatmap_is_one_path_per_colour(rng_section: dict[str, Any]) -> None:
    drawing = charts.position_heatmap(rng_section["position_counts"], DECKS)
    assert drawing is not None
    assert len(paths(drawing)) <= 2 * round(charts.CLIP_SD / charts.STEP_SD)


def test_the_histogram_counts_every_value_once_with_one_in_the_last_bin() -> None:
    drawing = charts.p_value_histogram([0.0, 0.05, 0.1, 0.55, 1.0], bins=10)
    text = text_of(drawing)
    assert "5 values in 10 bins" in text
    assert "0.5 per bin if uniform" in text
    drawing = charts.p_value_histogram([0.5] * 52, bins=4, title="p")
    assert "52 values in 4 bins" in text_of(drawing)


def test_the_rtp_interval_labels_its_figures_to_five_decimals() -> None:
    text = text_of(charts.rtp_interval(SIMULATION, SIMULATION.exact_return_per_ante))
    for label in ("low -0.09134", "high +0.16991", "observed +0.03929", "exact -0.02158"):
        assert label in text
    assert "99% confidence interval over 1,000 rounds" in text
    assert "the interval contains the exact" in text
    assert "Information only" in text  # interval_judged is false: stacked rounds


def test_a_judged_interval_has_no_caption_and_a_miss_is_said() -> None:
    judged = msgspec.structs.replace(SIMULATION, interval_judged=True, interval=[0.001, 0.002])
    text = text_of(charts.rtp_interval(judged))  # the exact figure from the simulation
    assert "Information only" not in text
    assert "does NOT contain" in text
    assert "exact -0.02158" in text


def test_the_ante_rows_show_names_odds_and_figures() -> None:
    text = text_of(charts.ante_return_distribution(ROWS))
    for label in ("royal flush", "pays 100:1", "0.00308% (1 in 32,487)", "43.0%", "+0.42957"):
        assert label in text
    assert "contributions sum to +0.56767 per ante" in text


def test_a_stub_or_older_results_file_draws_nothing_and_does_not_raise() -> None:
    not_run = {"status": "not_tested", "reason": "did not run"}
    stub: list[Any] = [
        {"verdict": "INCOMPLETE"},
        {"verdict": "INCOMPLETE", "rng": {"status": "not_tested", "decks": 0, "tests": []}},
        {"verdict": "INCOMPLETE", "math": {**not_run, "claims": [], "simulation": not_run}},
        {},
        None,
        [],
    ]
    for document in stub:
        records = read(Results, document)
        assert records is None or set(drawings_from_results(records).values()) == {None}
    assert read(Results, {}) is None and read(Results, None) is None  # not results.json


# ------------------------------------------------------------------ malformed input

NAN = float("nan")
ROW = ROWS_JSON[0]
GOOD_COUNTS = [[57] * 52 for _ in range(52)]

MALFORMED: dict[str, tuple[Any, ...]] = {
    "heatmap": (
        (None, 3000),
        ("counts", 3000),
        ([], 3000),
        (GOOD_COUNTS[:51], 3000),
        ([*GOOD_COUNTS[:51], [57] * 51], 3000),
        ([*GOOD_COUNTS[:51], [57] * 51 + ["57"]], 3000),
        ([*GOOD_COUNTS[:51], [57] * 51 + [NAN]], 3000),
        ([*GOOD_COUNTS[:51], [57] * 51 + [-1]], 3000),
        ([*GOOD_COUNTS[:51], [57] * 51 + [True]], 3000),
        ([*GOOD_COUNTS[:51], [57] * 51 + [10**400]], 3000),
        ({"0": [57] * 52}, 3000),
        (GOOD_COUNTS, None),
        (GOOD_COUNTS, 0),
        (GOOD_COUNTS, -3000),
        (GOOD_COUNTS, "3000"),
        (GOOD_COUNTS, NAN),
        (GOOD_COUNTS, math.inf),
    ),
    "histogram": (
        (None, 10),
        ("0.5", 10),
        ([], 10),
        ([0.5, NAN], 10),
        ([0.5, 1.5], 10),
        ([0.5, -0.1], 10),
        ([0.5, "0.2"], 10),
        ([0.5, None], 10),
        ({"p": 0.5}, 10),
        ([0.5], 0),
        ([0.5], "10"),
        ([0.5], True),
        ([0.5], 2.5),
        ([0.5], 10_000),
    ),
    "rtp": (
        (None, None),
        ("simulation", None),
        ({}, None),
        ({"status": "not_tested", "reason": "did not run"}, None),
        ({**SIMULATION_JSON, "interval": [0.1]}, None),
        ({**SIMULATION_JSON, "interval": [-1e308, 1e308]}, None),
        ({**SIMULATION_JSON, "interval": [0.1, 0.2, 0.3]}, None),
        ({**SIMULATION_JSON, "interval": [0.2, 0.1]}, None),
        ({**SIMULATION_JSON, "interval": [NAN, 0.1]}, None),
        ({**SIMULATION_JSON, "interval": "[-0.1, 0.1]"}, None),
        ({**SIMULATION_JSON, "observed_return_per_ante": NAN}, None),
        ({**SIMULATION_JSON, "observed_return_per_ante": "0.04 antes"}, None),
        ({**SIMULATION_JSON, "exact_return_per_ante": None}, None),
        (SIMULATION_JSON, NAN),
        (SIMULATION_JSON, "-0.02"),
        (SIMULATION_JSON, [-0.02]),
    ),
    "ante": (
        (None,),
        ("rows",),
        ([],),
        ({"row": "flush"},),
        ([{**ROW, "probability": NAN}],),
        ([{**ROW, "probability": 1.5}],),
        ([{**ROW, "probability": -0.1}],),
        ([{**ROW, "probability": "one in ten"}],),
        ([{**ROW, "contribution": math.inf}],),
        ([{**ROW, "contribution": 1e308}, {**ROW, "contribution": -1e308}],),
        ([{**ROW, "row": 5}],),
        ([{k: v for k, v in ROW.items() if k != "probability"}],),
        ([ROW, "flush"],),
        ([ROW] * 41,),
    ),
}

CHARTS: dict[str, Callable[..., Drawing | None]] = {
    "heatmap": charts.position_heatmap,
    "histogram": charts.p_value_histogram,
    "rtp": charts.rtp_interval,
    "ante": charts.ante_return_distribution,
}


# What each chart takes, read from results.json's values: the model's records for the
# RTP simulation and the ante rows, the RNG's tables as results.json holds them.
READ: dict[str, Callable[[tuple[Any, ...]], tuple[Any, ...] | None]] = {
    "heatmap": lambda values: values,
    "histogram": lambda values: values,
    "rtp": lambda values: (
        None if (simulation := read(Simulation, values[0])) is None else (simulation, values[1])
    ),
    "ante": lambda values: None if (rows := read(list[AnteRow], values[0])) is None else (rows,),
}


@pytest.mark.parametrize(
    ("chart", "values"),
    [(chart, values) for chart, cases in MALFORMED.items() for values in cases],
    ids=[f"{chart}-{i}" for chart, cases in MALFORMED.items() for i in range(len(cases))],
)
def test_malformed_input_gives_none(chart: str, values: tuple[Any, ...]) -> None:
    """Refused by the model, or read and then not drawn."""
    arguments = READ[chart](values)
    assert arguments is None or CHARTS[chart](*arguments) is None


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=20,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    first=JSON,
    second=JSON,
    field=st.sampled_from(sorted(SIMULATION_JSON)),
    row_field=st.sampled_from(sorted(ROW)),
)
def test_no_json_value_makes_a_chart_raise(
    first: Any, second: Any, field: str, row_field: str
) -> None:
    """Any JSON value in place of one of the simulation's or a row's, as the model reads it,
    and any in place of the RNG's tables."""
    simulation = read(Simulation, {**SIMULATION_JSON, field: first})
    rows = read(list[AnteRow], [{**ROW, row_field: first}, *ROWS_JSON[1:]])
    records = read(Results, {"verdict": "PASS", "rng": first, "math": second})
    drawn = [
        charts.position_heatmap(first, second),
        charts.p_value_histogram(first, second),
        *([charts.rtp_interval(simulation, second)] if simulation else []),
        *([charts.ante_return_distribution(rows)] if rows else []),
        *(drawings_from_results(records).values() if records else []),
    ]
    assert all(d is None or isinstance(d, Drawing) for d in drawn)


# ----------------------------------------------------------------------- the PDF


def _build(path: Path, story: list[Any]) -> None:
    # 17 mm margins leave the 170 mm column the charts are drawn for (the frame pads 6 pt).
    SimpleDocTemplate(str(path), pagesize=A4, leftMargin=17 * mm, rightMargin=17 * mm).build(story)


def test_the_heatmap_adds_little_to_the_pdf(tmp_path: Path, rng_section: dict[str, Any]) -> None:
    _build(tmp_path / "empty.pdf", [Spacer(1, 1)])
    _build(
        tmp_path / "heatmap.pdf",
        [charts.position_heatmap(rng_section["position_counts"], DECKS)],
    )
    added = (tmp_path / "heatmap.pdf").stat().st_size - (tmp_path / "empty.pdf").stat().st_size
    assert added < 100_000, added


def test_a_pdf_of_the_four_charts_renders_and_rasterizes(tmp_path: Path, results: Results) -> None:
    need("pdftoppm", "Debian poppler-utils")
    drawn = drawings_from_results(results)
    story: list[Any] = []
    for drawing in drawn.values():
        story += [drawing, PageBreak()]
    pdf = tmp_path / "charts.pdf"
    _build(pdf, story[:-1])
    text = pdf_text(pdf)
    for title in ("Card x position", "Per-position p-values", "RTP simulation", "Ante pay table"):
        assert title in text
    subprocess.run(["pdftoppm", "-r", "50", "-png", str(pdf), str(tmp_path / "page")], check=True)
    pages = sorted(tmp_path.glob("page*.png"))
    assert len(pages) == 4
    for page in pages:
        pixels = np.asarray(Image.open(page).convert("RGB"), dtype=np.int16)
        inked = (pixels < 200).any(axis=2)
        assert inked.mean() > 0.002, page.name  # more than a blank page's nothing
    heatmap = np.asarray(Image.open(pages[0]).convert("RGB"), dtype=np.int16)
    red, blue = heatmap[..., 0], heatmap[..., 2]
    assert ((red - blue) > 40).any() and ((blue - red) > 40).any()  # both ends of the palette
