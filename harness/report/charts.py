"""Charts for the certification report, drawn with reportlab's own graphics.

Each function is pure: it takes the records of a run (harness/results/model.py: the
RTP simulation, the ante pay table's rows) or the RNG's tables as results.json
holds them (docs/results.md), checks the numbers, and returns a `Drawing` as
wide as the report's A4 text column (170 mm), or None when the data is absent
or unusable. The report is written whatever results.json holds
(docs/robustness.md), and a value of the right type may still be no figure
(NaN, an interval upside down, a probability above 1), so nothing here raises
on malformed input: a chart that cannot be drawn is left out, for the report
to say it was not recorded.

The figures drawn are the ones results.json records; the charts compute only
what is needed to place them (deviations in standard deviations, bin counts,
the range a fair shuffle allows), never a verdict.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from reportlab.graphics.shapes import Drawing, Group, Line, Path, Polygon, Rect, String
from reportlab.lib import colors
from reportlab.lib.colors import Color
from reportlab.lib.units import mm
from reportlab.pdfbase.pdfmetrics import stringWidth

from harness.results.model import AABonusRow, AnteRow, Simulation

WIDTH: float = 170 * mm  # the report's text column: A4 less its margins
DECK = 52

FONT = "Helvetica"
BOLD = "Helvetica-Bold"
INK = colors.HexColor("#222222")
MUTED = colors.HexColor("#666666")
GRID = colors.HexColor("#d0d0d0")
BAR = colors.HexColor("#4a7ab5")
EXPECTED = colors.HexColor("#c0392b")
BAND = colors.HexColor("#e8e8e8")
MORE = colors.HexColor("#b2182b")  # diverging palette ends (ColorBrewer RdBu)
FEWER = colors.HexColor("#2166ac")

RANKS = "23456789TJQKA"
SUITS = ("clubs", "diamonds", "hearts", "spades")  # rules/cards.py order: index = 4*rank + suit

CLIP_SD = 4.0  # the heatmap's colour saturates at +/- 4 standard deviations ...
STEP_SD = 0.5  # ... in steps of half a standard deviation (17 colours)


# ---------------------------------------------------------------- validation


def _number(value: Any) -> float | None:
    """A finite JSON number as a float; None for anything else (bools, strings, NaN)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        x = float(value)
    except OverflowError:  # an int beyond float range
        return None
    return x if math.isfinite(x) else None


def _numbers(values: Any, low: float = -math.inf, high: float = math.inf) -> list[float] | None:
    """A JSON list of finite numbers within [low, high]; None if any entry is not."""
    if not isinstance(values, list | tuple):
        return None
    out = [_number(v) for v in values]
    if any(x is None or not low <= x <= high for x in out):
        return None
    return [x for x in out if x is not None]


def _count_table(counts: Any) -> list[list[float]] | None:
    """A 52 x 52 table of non-negative counts, or None."""
    if not isinstance(counts, list | tuple) or len(counts) != DECK:
        return None
    rows = [_numbers(row, 0.0) for row in counts]
    if any(row is None or len(row) != DECK for row in rows):
        return None
    return [row for row in rows if row is not None]


# ------------------------------------------------------------------- drawing


def _text(
    x: float,
    y: float,
    text: str,
    size: float = 7,
    anchor: str = "start",
    font: str = FONT,
    colour: Color = INK,
) -> String:
    return String(x, y, text, fontName=font, fontSize=size, fillColor=colour, textAnchor=anchor)


def _rotated(x: float, y: float, text: str, size: float = 7, colour: Color = INK) -> Group:
    """Text read bottom to top, centred on (x, y)."""
    return Group(_text(0, 0, text, size, "middle", colour=colour), transform=(0, 1, -1, 0, x, y))


def _width(text: str, size: float, font: str = FONT) -> float:
    return float(stringWidth(text, font, size))


def _blend(a: Color, b: Color, t: float) -> Color:
    """The colour a fraction t of the way from a to b."""
    return Color(
        a.red + (b.red - a.red) * t,
        a.green + (b.green - a.green) * t,
        a.blue + (b.blue - a.blue) * t,
    )


def _nice_ticks(low: float, high: float, count: int = 5, integer: bool = False) -> list[float]:
    """Round tick values within [low, high]: steps of 1, 2, 2.5 or 5 times a power of 10
    (whole steps only when `integer`, for counts)."""
    span = high - low
    if not (span > 0 and math.isfinite(span)):
        return [low]
    raw = span / max(count, 1)
    power = 10 ** math.floor(math.log10(raw))
    factors = (1, 2, 5, 10) if integer else (1, 2, 2.5, 5, 10)
    step = next(m * power for m in factors if m * power >= raw)
    if integer:
        step = max(1.0, round(step))
    first = math.ceil(low / step - 1e-9)
    last = math.floor(high / step + 1e-9)
    return [round(k * step, 12) for k in range(first, last + 1)]


def _tick_label(value: float, step: float) -> str:
    decimals = max(0, -math.floor(math.log10(step))) if step > 0 else 0
    if step > 0 and abs(step * 10**decimals - round(step * 10**decimals)) > 1e-9:
        decimals += 1  # a step of 2.5 x 10^k needs one digit more
    text = f"{value:.{decimals}f}"
    return "0" if float(text) == 0 else text


def _title(drawing: Drawing, height: float, title: str, subtitle: str = "") -> None:
    drawing.add(_text(0, height - 10, title, 9, font=BOLD))
    if subtitle:
        drawing.add(_text(0, height - 21, subtitle, 7, colour=MUTED))


# ----------------------------------------------------------- position heatmap


def _level(count: float, expected: float, sd: float) -> int:
    """The colour step of a cell: its deviation in sd, clipped, in half-sd steps."""
    z = max(-CLIP_SD, min(CLIP_SD, (count - expected) / sd))
    return round(z / STEP_SD)


def _level_colour(level: int) -> Color:
    """White at 0, deepening towards the palette's ends; the power 1.5 keeps the speckle of
    chance (mostly within 2 sd) pale so cells beyond 3 sd, and patterns, stand out."""
    top = round(CLIP_SD / STEP_SD)
    end = MORE if level > 0 else FEWER
    return end if abs(level) >= top else _blend(colors.white, end, (abs(level) / top) ** 1.5)


def _rect_path(colour: Color) -> Path:
    return Path(fillColor=colour, strokeColor=None, strokeWidth=0)


def _add_rect(path: Path, x: float, y: float, w: float, h: float) -> None:
    path.moveTo(x, y)
    path.lineTo(x + w, y)
    path.lineTo(x + w, y + h)
    path.lineTo(x, y + h)
    path.closePath()


def _display_order() -> list[int]:
    """Card indices from the top row down: suit by suit (clubs first), 2 up to ace in each."""
    return [4 * rank + suit for suit in range(4) for rank in range(13)]


def position_heatmap(counts: Any, decks: Any) -> Drawing | None:
    """The card x position table (rng.position_counts) as a 52 x 52 grid of colours.

    What an auditor reads: each cell is how far one card's count at one position is
    from the expected decks/52, in binomial standard deviations, red for more often
    and blue for less, white at the expected count, saturating at 4 sd. A fair
    shuffle gives faint speckle with no pattern, and about 0.27% of the cells
    (7 of 2,704) beyond 3 sd, which the subtitle counts. The classic shuffle bugs
    draw shapes (tests/test_rng.py names them): the naive swap-with-any shuffle
    leaves cards near where they started, a red staircase in each suit (the deck
    starts in index order, 2c 2d 2h 2s 3c ...); modulo bias shades whole regions
    of late positions; a card that can never land somewhere is a dark blue cell:
    a blue diagonal in each suit for Sattolo's shuffle (no card stays where it
    started), one cell for the off-by-one that keeps a card from the last position.
    The rows go suit by suit, 2 to ace; columns are dealing positions, 1 the first
    card dealt.

    Takes `rng.position_counts` (52 rows of 52 counts, row = card index 4*rank +
    suit as in harness/rules/cards.py, column = position) and `rng.decks`.
    """
    table = _count_table(counts)
    n = _number(decks)
    if table is None or n is None or n <= 0:
        return None
    expected = n / DECK
    sd = math.sqrt(n * (1 / DECK) * (1 - 1 / DECK))

    cell = 6.0  # whole points: every coordinate below is short in the PDF
    left, bottom = 62.0, 34.0
    grid = cell * DECK
    top = bottom + grid
    height = top + 30
    drawing = Drawing(WIDTH, height)

    # One filled path per colour, adjacent equal cells of a row merged into one rectangle:
    # 17 paths instead of 2,704 rectangles keeps the PDF small (white needs no drawing).
    paths: dict[int, Path] = {}
    beyond_3 = 0
    for r, card in enumerate(_display_order()):
        y = top - (r + 1) * cell
        levels = [_level(c, expected, sd) for c in table[card]]
        beyond_3 += sum(abs(c - expected) > 3 * sd for c in table[card])
        start = 0
        for p in range(1, DECK + 1):
            if p < DECK and levels[p] == levels[start]:
                continue
            if levels[start]:
                path = paths.setdefault(levels[start], _rect_path(_level_colour(levels[start])))
                _add_rect(path, left + start * cell, y, (p - start) * cell, cell)
            start = p
    for level in sorted(paths):
        drawing.add(paths[level])

    # Suit blocks: separators across the grid, suit names and sparse rank labels at the left.
    for s, suit in enumerate(SUITS):
        block_top = top - s * 13 * cell
        if s:
            drawing.add(
                Line(left, block_top, left + grid, block_top, strokeColor=MUTED, strokeWidth=0.5)
            )
        drawing.add(_rotated(left - 20, block_top - 6.5 * cell, suit, 6.5))
        drawing.add(
            Line(
                left - 14,
                block_top - 0.5,
                left - 14,
                block_top - 13 * cell + 0.5,
                strokeColor=MUTED,
                strokeWidth=0.5,
            )
        )
        for rank in range(0, 13, 2):  # 2, 4, 6, 8, T, Q, A
            y = block_top - (rank + 1) * cell + 1.6
            drawing.add(_text(left - 3, y, RANKS[rank], 5.5, "end"))
    drawing.add(Rect(left, bottom, grid, grid, fillColor=None, strokeColor=INK, strokeWidth=0.5))

    # Positions 1..52 along the bottom.
    for position in (1, *range(5, DECK, 5), DECK):
        x = left + (position - 0.5) * cell
        drawing.add(Line(x, bottom, x, bottom - 2.5, strokeColor=INK, strokeWidth=0.5))
        drawing.add(_text(x, bottom - 9, str(position), 5.5, "middle"))
    drawing.add(
        _text(
            left + grid / 2, bottom - 20, "position in the deck (1 = first card dealt)", 7, "middle"
        )
    )

    _heatmap_legend(drawing, left + grid + 22, bottom + grid / 2)
    fair = 2 * 0.5 * math.erfc(3 / math.sqrt(2)) * DECK * DECK
    _title(
        drawing,
        height,
        "Card x position: each card's count at each position, against the expected",
        f"{n:,.0f} decks; expected {expected:,.1f} per cell (sd {sd:.1f}); "
        f"cells beyond 3 sd: {beyond_3} (a fair shuffle: about {fair:.0f})",
    )
    return drawing


def _heatmap_legend(drawing: Drawing, x: float, middle: float) -> None:
    """A vertical colour bar from -4 sd (bottom) to +4 sd (top), one swatch per step."""
    top_level = round(CLIP_SD / STEP_SD)
    swatch = 8.0
    bottom = middle - (2 * top_level + 1) * swatch / 2
    for level in range(-top_level, top_level + 1):
        y = bottom + (level + top_level) * swatch
        drawing.add(Rect(x, y, 10, swatch, fillColor=_level_colour(level), strokeColor=None))
        if level % 4 == 0:
            sd = level * STEP_SD
            label = "0" if level == 0 else f"{sd:+.0f} sd"
            if abs(sd) == CLIP_SD:
                label = f"{'>=' if sd > 0 else '<='} {label}"
            drawing.add(_text(x + 13, y + swatch / 2 - 2, label, 6))
    height = (2 * top_level + 1) * swatch
    drawing.add(Rect(x, bottom, 10, height, fillColor=None, strokeColor=MUTED, strokeWidth=0.5))
    drawing.add(_text(x, bottom + height + 12, "more often", 6.5, colour=MORE))
    drawing.add(_text(x, bottom + height + 4, "than expected", 6.5, colour=MUTED))
    drawing.add(_text(x, bottom - 9, "less often", 6.5, colour=FEWER))
    drawing.add(_text(x, bottom - 17, "than expected", 6.5, colour=MUTED))


# ------------------------------------------------------------- p-value histogram


def _binomial_range(trials: int, p: float, coverage: float = 0.99) -> tuple[int, int]:
    """The central range holding a Binomial(trials, p) count with at least `coverage`."""
    tail = (1 - coverage) / 2
    pmf = [
        math.exp(
            math.lgamma(trials + 1)
            - math.lgamma(k + 1)
            - math.lgamma(trials - k + 1)
            + (k * math.log(p) if k else 0.0)
            + ((trials - k) * math.log1p(-p) if trials - k else 0.0)
        )
        for k in range(trials + 1)
    ]
    low, below = 0, 0.0
    while low < trials and below + pmf[low] <= tail:
        below += pmf[low]
        low += 1
    high, above = trials, 0.0
    while high > 0 and above + pmf[high] <= tail:
        above += pmf[high]
        high -= 1
    return low, high


def p_value_histogram(
    p_values: Any,
    bins: Any = 10,
    *,
    title: str = "Per-position p-values: each position's chi-square over the 52 cards",
) -> Drawing | None:
    """Counts of p-values in equal bins over [0, 1], against the uniform expectation.

    What an auditor reads: under a fair shuffle every p-value is uniform on [0, 1],
    so the bars should hover around the dashed line (values / bins), within the
    grey band where one bin's count falls 99% of the time. A tall first bar means
    many positions where the cards are not evenly spread (the bias the battery
    hunts); a tall last bar means counts too even to be random (a shuffle that
    balances rather than randomizes). With 52 values single bars wander a lot;
    only a clear pile-up reads as evidence, and the battery's Holm-corrected table
    is the judgement.

    Takes `rng.position_p_values` (52 numbers in [0, 1]); any list of p-values works.
    """
    values = _numbers(p_values, 0.0, 1.0)
    k = bins if isinstance(bins, int) and not isinstance(bins, bool) else 0
    if not values or not 1 <= k <= 50:
        return None
    counts = [0] * k
    for p in values:
        counts[min(int(p * k), k - 1)] += 1
    expected = len(values) / k
    band_low, band_high = _binomial_range(len(values), 1 / k)

    left, bottom, plot_w, plot_h = 46.0, 30.0, WIDTH - 60.0, 96.0
    height = bottom + plot_h + 34
    drawing = Drawing(WIDTH, height)
    peak = max(*counts, band_high, expected) * 1.08
    ticks = _nice_ticks(0, peak, 5, integer=True)
    step = ticks[1] - ticks[0] if len(ticks) > 1 else 1.0
    y_max = max(math.ceil(peak / step) * step, 1.0)
    ticks = [j * step for j in range(round(y_max / step) + 1)]

    def y_of(count: float) -> float:
        return bottom + plot_h * count / y_max

    drawing.add(
        Rect(
            left,
            y_of(band_low),
            plot_w,
            y_of(band_high) - y_of(band_low),
            fillColor=BAND,
            strokeColor=None,
        )
    )
    for t in ticks:
        drawing.add(Line(left, y_of(t), left + plot_w, y_of(t), strokeColor=GRID, strokeWidth=0.3))
        drawing.add(_text(left - 3, y_of(t) - 2, _tick_label(t, step), 6, "end"))
    bar_w = plot_w / k
    for i, c in enumerate(counts):
        x = left + i * bar_w
        drawing.add(
            Rect(x + 0.8, bottom, bar_w - 1.6, y_of(c) - bottom, fillColor=BAR, strokeColor=None)
        )
        if y_of(c) - bottom > 10:  # inside the bar's foot: never under the dashed line
            drawing.add(_text(x + bar_w / 2, bottom + 3, str(c), 6, "middle", BOLD, colors.white))
        else:
            drawing.add(_text(x + bar_w / 2, y_of(c) + 2, str(c), 6, "middle"))
    drawing.add(
        Line(
            left,
            y_of(expected),
            left + plot_w,
            y_of(expected),
            strokeColor=EXPECTED,
            strokeWidth=1,
            strokeDashArray=[3, 2],
        )
    )
    drawing.add(Line(left, bottom, left + plot_w, bottom, strokeColor=INK, strokeWidth=0.5))
    drawing.add(Line(left, bottom, left, bottom + plot_h, strokeColor=INK, strokeWidth=0.5))
    every = max(1, math.ceil(k / 10))
    for i in range(0, k + 1, every):
        x = left + i * bar_w
        drawing.add(Line(x, bottom, x, bottom - 2.5, strokeColor=INK, strokeWidth=0.5))
        drawing.add(_text(x, bottom - 9, f"{i / k:.2g}", 6, "middle"))
    drawing.add(_text(left + plot_w / 2, bottom - 20, "p-value", 7, "middle"))
    drawing.add(_rotated(left - 22, bottom + plot_h / 2, "count", 7))
    _title(
        drawing,
        height,
        title,
        f"{len(values)} values in {k} bins; dashed: {expected:.1f} per bin if uniform; "
        f"grey: where one bin falls 99% of the time ({band_low} to {band_high})",
    )
    return drawing


# ------------------------------------------------------------------ RTP interval


def _centred(x: float, text: str, size: float, font: str = FONT) -> float:
    """The centre that keeps a label of this text, centred near x, inside the drawing."""
    half = _width(text, size, font) / 2
    return min(max(x, half), WIDTH - half)


def rtp_interval(simulation: Simulation, exact: float | None = None) -> Drawing | None:
    """The RTP simulation's confidence interval on a number line, with the exact return.

    What an auditor reads: whether the exact return per ante (the red diamond, from the
    full enumeration) lies inside the simulation's interval (the bar; the square is its
    observed mean), and how wide the interval is, i.e. how small a shift in return the
    simulation could have seen. When the rounds were stacked from the seed
    (`interval_judged` false) the caption says the interval is information only: the
    game dealt the harness's own cards, so it judges only the harness's draw
    (docs/results.md `math.simulation`). Values are returns per ante (0 = RTP 100%).

    Takes `math.simulation` (its record: observed_return_per_ante, interval,
    confidence, rounds, interval_judged) and the exact return per ante; `exact` None
    uses the simulation's own `exact_return_per_ante`.
    """
    observed = _number(simulation.observed_return_per_ante)
    interval = _numbers(simulation.interval)
    truth = _number(simulation.exact_return_per_ante if exact is None else exact)
    if observed is None or truth is None or interval is None or len(interval) != 2:
        return None
    low, high = interval
    if not low <= high:
        return None
    confidence = _number(simulation.confidence)
    rounds = _number(simulation.rounds)
    caption = simulation.interval_judged is False

    lo, hi = min(low, observed, truth), max(high, observed, truth)
    if not math.isfinite(4 * (hi - lo)):  # no scale holds these: not a return per ante
        return None
    pad = (hi - lo) * 0.12 or max(abs(hi), 0.01) * 0.1
    ticks = _nice_ticks(lo - pad, hi + pad, 6)
    step = ticks[1] - ticks[0] if len(ticks) > 1 else pad
    axis_lo, axis_hi = min(ticks[0], lo - pad), max(ticks[-1], hi + pad)
    left, right = 24.0, WIDTH - 24.0
    line_y = 24.0 + (12 if caption else 0)
    height = line_y + 80
    drawing = Drawing(WIDTH, height)

    def x_of(v: float) -> float:
        return left + (right - left) * (v - axis_lo) / (axis_hi - axis_lo)

    # The axis: round ticks, 0 (break-even) dotted through the bar.
    drawing.add(Line(left, line_y, right, line_y, strokeColor=INK, strokeWidth=0.6))
    for t in ticks:
        label = "0 (RTP 100%)" if t == 0 else _tick_label(t, step)
        drawing.add(Line(x_of(t), line_y, x_of(t), line_y - 3, strokeColor=INK, strokeWidth=0.5))
        drawing.add(_text(x_of(t), line_y - 11, label, 6, "middle", colour=MUTED))
    if axis_lo < 0 < axis_hi:
        drawing.add(
            Line(
                x_of(0),
                line_y,
                x_of(0),
                line_y + 16,
                strokeColor=MUTED,
                strokeWidth=0.5,
                strokeDashArray=[1, 1.5],
            )
        )

    # The interval as a bar, its ends labelled above it (outward when the bar is narrow).
    bar_y, mid = line_y + 4, line_y + 8
    x_low, x_high = x_of(low), x_of(high)
    drawing.add(
        Rect(
            x_low,
            bar_y,
            max(x_high - x_low, 0.8),
            8,
            fillColor=BAR,
            strokeColor=None,
            fillOpacity=0.35,
        )
    )
    for x in (x_low, x_high):
        drawing.add(Line(x, bar_y - 2, x, bar_y + 10, strokeColor=BAR, strokeWidth=1.2))
    low_text, high_text = f"low {low:+.5f}", f"high {high:+.5f}"
    room = (_width(low_text, 6.5) + _width(high_text, 6.5)) / 2 + 6
    if x_high - x_low >= room:
        drawing.add(
            _text(_centred(x_low, low_text, 6.5), mid + 8, low_text, 6.5, "middle", colour=BAR)
        )
        drawing.add(
            _text(_centred(x_high, high_text, 6.5), mid + 8, high_text, 6.5, "middle", colour=BAR)
        )
    else:
        drawing.add(_text(x_low - 2, mid + 8, low_text, 6.5, "end", colour=BAR))
        drawing.add(_text(x_high + 2, mid + 8, high_text, 6.5, colour=BAR))

    # Observed (square) one row up, exact (diamond) two rows up, each on a leader line; the
    # observed label leans away from the exact leader when the two are close.
    ox, ex = x_of(observed), x_of(truth)
    obs_text = f"observed {observed:+.5f}"
    obs_w = _width(obs_text, 6.5, BOLD)
    drawing.add(Line(ox, mid, ox, mid + 19, strokeColor=MUTED, strokeWidth=0.4))
    if abs(ox - ex) < obs_w / 2 + 4:
        anchor_x, anchor = (ox + 2, "start") if ex <= ox else (ox - 2, "end")
        drawing.add(_text(anchor_x, mid + 20, obs_text, 6.5, anchor, font=BOLD))
    else:
        drawing.add(
            _text(_centred(ox, obs_text, 6.5, BOLD), mid + 20, obs_text, 6.5, "middle", font=BOLD)
        )
    drawing.add(
        Rect(
            ox - 2.2,
            mid - 2.2,
            4.4,
            4.4,
            fillColor=colors.HexColor("#1f4e79"),
            strokeColor=colors.white,
            strokeWidth=0.5,
        )
    )
    exact_text = f"exact {truth:+.5f}"
    drawing.add(Line(ex, mid, ex, mid + 31, strokeColor=EXPECTED, strokeWidth=0.5))
    drawing.add(
        _text(
            _centred(ex, exact_text, 6.5, BOLD), mid + 32, exact_text, 6.5, "middle", BOLD, EXPECTED
        )
    )
    drawing.add(
        Polygon(
            [ex, mid - 4.5, ex + 4.5, mid, ex, mid + 4.5, ex - 4.5, mid],
            fillColor=EXPECTED,
            strokeColor=colors.white,
            strokeWidth=0.5,
        )
    )

    level = f"{100 * confidence:g}% " if confidence is not None else ""
    over = f" over {rounds:,.0f} rounds" if rounds is not None else ""
    inside = "contains" if low <= truth <= high else "does NOT contain"
    _title(
        drawing,
        height,
        f"RTP simulation: return per ante, {level}confidence interval{over}",
        f"the interval {inside} the exact return per ante "
        "(bar: interval; square: observed mean; red diamond: exact)",
    )
    if caption:
        drawing.add(
            _text(
                0,
                2,
                "Information only: the rounds were stacked from the seed, so the "
                "interval judges only the harness's own draw, not the game.",
                6.5,
                colour=MUTED,
            )
        )
    return drawing


# -------------------------------------------------------- ante return by row


def _ante_rows(rows: Sequence[AnteRow | AABonusRow]) -> list[tuple[str, str, float, float]] | None:
    """(name, odds, probability, contribution) of each row, or None if any row is malformed."""
    if not rows or len(rows) > 40:
        return None
    out = []
    for row in rows:
        p, c = _number(row.probability), _number(row.contribution)
        if p is None or c is None or not 0 <= p <= 1:
            return None
        odds = row.odds if isinstance(row, AnteRow) else row.pays  # the AA Bonus says `pays`
        odds_text = f"{odds:g}:1" if _number(odds) is not None else ""
        out.append((row.row.replace("_", " "), odds_text, p, c))
    return out


def _percent(p: float) -> str:
    """A probability as a percentage to 3 significant figures (0.00308%, 2.21%, 43.0%)."""
    if p == 0:
        return "0%"
    v = 100 * p
    decimals = max(0, 2 - math.floor(math.log10(v)))
    return f"{v:.{decimals}f}%"


def _decade(power: int) -> str:
    """10^power as a percentage without trailing zeros: 0.001%, 0.1%, 10%."""
    return f"{100 * 10.0**power:.{max(0, -power - 2)}f}%"


def _one_in(p: float) -> str:
    return f" (1 in {1 / p:,.0f})" if 0 < p < 0.01 else ""


def _bar_label(
    drawing: Drawing, end: float, limit: float, y: float, text: str, inside_from: float
) -> None:
    """A bar's figure just past its end, or inside it (white) when it would leave the panel."""
    size = 6.0
    if end + 3 + _width(text, size) <= limit or end - inside_from < _width(text, size) + 6:
        drawing.add(_text(end + 3, y, text, size))
    else:
        drawing.add(_text(end - 3, y, text, size, "end", colour=colors.white))


def ante_return_distribution(
    rows: Sequence[AnteRow | AABonusRow],
    *,
    title: str = "Ante pay table: how often each row pays, and what it adds to the return",
) -> Drawing | None:
    """Each ante pay-table row's probability and its contribution to the return per ante.

    What an auditor reads: how rare each winning ante outcome is (left, log scale so
    the royal flush's 1 in 32,000 shows beside the common rows) and how much of the
    ante's return each row brings (right, linear: the bars add up to the total, and a
    pay-table change shows where the money moves). A row whose odds are large but
    whose probability is tiny contributes little; the contributions are odds x
    probability, so an error in either shows here as a bar out of proportion.

    Takes `math.optimal.rows` (or `math.always_call.rows`): AnteRow records {row, odds,
    probability, contribution}; `math.aa_bonus_rows` (AABonusRow: {row, pays, ...}) draws too.
    """
    data = _ante_rows(rows)
    if data is None:
        return None
    row_h, head = 15.0, 30.0
    label_w = 92.0
    p_left, p_w = label_w + 6, 170.0
    c_left = p_left + p_w + 24
    c_w = WIDTH - c_left - 8
    plot_h = row_h * len(data)
    bottom = 26.0
    height = bottom + plot_h + head
    top = bottom + plot_h
    drawing = Drawing(WIDTH, height)

    positive = [p for _, _, p, _ in data if p > 0]
    low_decade = math.floor(math.log10(min(positive))) if positive else -1
    low_decade = min(low_decade, -1)

    def px(p: float) -> float:
        if p <= 0:
            return p_left
        return p_left + p_w * (math.log10(p) - low_decade) / -low_decade

    contributions = [c for *_, c in data]
    if not math.isfinite(4 * (max(contributions) - min(contributions))):
        return None
    c_ticks = _nice_ticks(min(0.0, *contributions), max(0.0, *contributions), 4)
    c_lo, c_hi = min(c_ticks[0], *contributions, 0.0), max(c_ticks[-1], *contributions, 0.0)
    if c_hi == c_lo:
        c_hi = c_lo + 1

    def cx(c: float) -> float:
        return c_left + c_w * (c - c_lo) / (c_hi - c_lo)

    for decade in range(low_decade, 1):
        x = px(10.0**decade)
        drawing.add(Line(x, bottom, x, top, strokeColor=GRID, strokeWidth=0.3))
        drawing.add(_text(x, bottom - 9, _decade(decade), 5.5, "middle", colour=MUTED))
    step = c_ticks[1] - c_ticks[0] if len(c_ticks) > 1 else 1.0
    for t in c_ticks:
        drawing.add(Line(cx(t), bottom, cx(t), top, strokeColor=GRID, strokeWidth=0.3))
        drawing.add(_text(cx(t), bottom - 9, _tick_label(t, step), 5.5, "middle", colour=MUTED))

    for i, (name, odds, p, c) in enumerate(data):
        y = top - (i + 1) * row_h
        mid = y + row_h / 2 - 2
        drawing.add(_text(label_w, mid + 2.5, name, 7, "end"))
        if odds:
            drawing.add(_text(label_w, mid - 4.5, f"pays {odds}", 5.5, "end", colour=MUTED))
        drawing.add(Rect(p_left, y + 3, px(p) - p_left, row_h - 6, fillColor=BAR, strokeColor=None))
        _bar_label(drawing, px(p), p_left + p_w, mid, _percent(p) + _one_in(p), p_left)
        x0, x1 = sorted((cx(0), cx(c)))
        drawing.add(
            Rect(
                x0,
                y + 3,
                x1 - x0,
                row_h - 6,
                fillColor=colors.HexColor("#5b9a68"),
                strokeColor=None,
            )
        )
        _bar_label(drawing, x1, c_left + c_w + 8, mid, f"{c:+.5f}", x0)

    drawing.add(Line(p_left, bottom, p_left, top, strokeColor=INK, strokeWidth=0.5))
    drawing.add(Line(cx(0), bottom, cx(0), top, strokeColor=INK, strokeWidth=0.5))
    drawing.add(_text(p_left + p_w / 2, bottom - 19, "probability (log scale)", 7, "middle"))
    drawing.add(
        _text(c_left + c_w / 2, bottom - 19, "contribution to the return per ante", 7, "middle")
    )
    total = sum(contributions)
    _title(drawing, height, title, f"{len(data)} rows; contributions sum to {total:+.5f} per ante")
    return drawing


__all__: Sequence[str] = (
    "WIDTH",
    "ante_return_distribution",
    "p_value_histogram",
    "position_heatmap",
    "rtp_interval",
)
