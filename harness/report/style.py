"""The report's type styles and the helpers that make any string safe to print.

Every string a results file holds may come from the game under test: it is escaped,
its control and direction characters shown as `\\xNN`, and cut to a stated length with
its full size said (docs/robustness.md).
"""

from __future__ import annotations

import math
import re
from typing import Any

from reportlab.lib import colors
from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
from reportlab.lib.units import mm
from reportlab.platypus import (
    Paragraph,
    Table,
    TableStyle,
)

VERDICT_COLOURS = {
    "PASS": colors.HexColor("#1b7f3b"),
    "FAIL": colors.HexColor("#b3261e"),
    "INCOMPLETE": colors.HexColor("#b26a00"),
}
NOT_VALID = "NOT VALID"  # the banner of a results file whose verdict cannot stand
TEXT_LIMIT = 2_000  # characters of one string the report shows; results.json holds all
CELL_LIMIT = 300  # the same in a table cell (a table row cannot break across pages)
STATUS_COLOURS = {
    "pass": colors.HexColor("#d8f0de"),
    "fail": colors.HexColor("#f6d5d3"),
    "not_tested": colors.HexColor("#eeeeee"),
    "attested": colors.HexColor("#d6e8f7"),
    "error": colors.HexColor("#fbe3c2"),
}
SELECTION_COLOUR = colors.HexColor("#fff1d6")
MAX_LEFT_OUT_SHOWN = 8  # a selection's left-out items named on the first page; all in the JSON
STDERR_LINES = 10
WIDTH = 170 * mm  # A4 less the margins

STYLES = getSampleStyleSheet()
BODY = ParagraphStyle("body", parent=STYLES["BodyText"], fontSize=8.5, leading=10.5)
SMALL = ParagraphStyle("small", parent=BODY, fontSize=7.5, leading=9)
MONO = ParagraphStyle("mono", parent=BODY, fontName="Courier", fontSize=7, leading=8.5)
LEAD = ParagraphStyle("lead", parent=BODY, fontSize=10, leading=13, spaceAfter=1)
H1 = STYLES["Heading1"]
H2 = STYLES["Heading2"]
H3 = ParagraphStyle("h3", parent=STYLES["Heading3"], fontSize=10, spaceBefore=6, spaceAfter=2)
MONO_LINE = 112  # Courier 7 pt characters that fit WIDTH


CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def text_shown(text: Any, limit: int = TEXT_LIMIT) -> str:
    """A string as the report may print it: cut to `limit` characters, its size said, and
    control and direction characters written as escapes (they must not act on the page)."""
    text = str(text)
    if len(text) > limit:
        text = f"{text[:limit]} [... cut: {len(text):,} characters in all, see results.json]"
    return CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def esc(text: Any, limit: int = TEXT_LIMIT) -> str:
    shown = text_shown(text, limit)
    return shown.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def para(text: Any, style: ParagraphStyle = BODY) -> Paragraph:
    # SMALL is the table cells' style: a cell's text is cut shorter.
    return Paragraph(esc(text, CELL_LIMIT if style is SMALL else TEXT_LIMIT), style)


def status_label(status: Any) -> str:
    """A status as the report prints it: `not_tested` reads `not tested`."""
    return str(status).replace("_", " ")


def pct(value: Any) -> str:
    """A figure (a fraction) as a percentage; '-' when nothing was computed."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "-" if value is None else str(value)
    return f"{100 * value:.4f}%"


def number(value: Any, digits: int = 4) -> str:
    """A statistic to a meaningful precision: `digits` significant figures, thousands
    grouped, scientific notation for the very large and very small (never "0.00" for a
    small non-zero value); '-' when nothing was computed."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "-" if value is None else str(value)
    magnitude = abs(value)
    if value == 0:
        return "0"
    if not math.isfinite(value):
        return str(value)
    if magnitude >= 1e6 or magnitude < 1e-4:
        return f"{value:.{digits - 1}e}"
    if magnitude >= 1000:
        return f"{value:,.1f}"
    return f"{value:.{digits}g}"


def claimed_pct(value: Any) -> str:
    """A claimed figure as its source printed it: 0.9875 reads 98.75%, not 98.7500%."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "-" if value is None else str(value)
    return f"{100 * value:.6g}%"


def grid(rows: list[list[Any]], widths: list[float], header: bool = True) -> Table:
    table = Table(rows, colWidths=widths, repeatRows=1 if header else 0)
    style = [
        ("GRID", (0, 0), (-1, -1), 0.25, colors.grey),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("LEFTPADDING", (0, 0), (-1, -1), 3),
        ("RIGHTPADDING", (0, 0), (-1, -1), 3),
    ]
    if header:
        style.append(("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#dde3ea")))
    table.setStyle(TableStyle(style))
    return table


def colour_status(table: Table, column: int, statuses: list[Any]) -> Table:
    """Colour a table's status column, one row per status (the header is row 0)."""
    table.setStyle(
        TableStyle(
            [
                ("BACKGROUND", (column, i), (column, i), STATUS_COLOURS.get(s, colors.white))
                for i, s in enumerate(statuses, start=1)
            ]
        )
    )
    return table
