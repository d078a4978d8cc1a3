"""The report's pages: a running header and footer, a contents page, PDF bookmarks.

An auditor files the PDF and cites it by page: every page says which report it
belongs to (its id) and what it concluded (the verdict), and "page N of M"; the
contents page and the PDF outline are built from the same headings, so they cannot
disagree. reportlab lays the story out twice (`multiBuild`): the first pass learns
the page of each heading, the second draws the contents with it.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import BaseDocTemplate, CondPageBreak, Frame, PageTemplate, Paragraph
from reportlab.platypus.flowables import Flowable
from reportlab.platypus.tableofcontents import TableOfContents

from harness.report.style import BODY, H2, H3, esc, text_shown

MARGIN = 20 * mm
ROOM_UNDER_A_HEADING = 35 * mm  # less than this left on a page: the heading starts the next
HEADER_GAP = 10 * mm  # between the running header and the text


class Heading(Paragraph):  # type: ignore[misc]
    """A section title that is also a contents entry and a PDF bookmark."""

    def __init__(self, text: str, level: int, key: str) -> None:
        super().__init__(esc(text, 200), H2 if level == 0 else H3)
        self.plain = text_shown(text, 200)
        self.level = level
        self.key = key


_keys = itertools.count(1)


def heading(text: str, level: int = 0) -> Heading:
    """A heading of level 0 (a section) or 1 (under the section before it), with a key
    no other heading has (bookmarks are named by key)."""
    return Heading(text, level, f"h{next(_keys)}")


def contents() -> TableOfContents:
    toc = TableOfContents()
    toc.levelStyles = [
        ParagraphStyle("toc0", parent=BODY, fontSize=10, leading=14, leftIndent=0),
        ParagraphStyle("toc1", parent=BODY, fontSize=8.5, leading=11, leftIndent=8 * mm),
    ]
    toc.dotsMinLevel = 0
    return toc


class _NumberedCanvas(Canvas):  # type: ignore[misc]
    """A canvas that knows the page count when it draws each footer ("page N of M")."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._pages: list[dict[str, Any]] = []

    def showPage(self) -> None:
        self._pages.append(dict(self.__dict__))
        self._startPage()

    def save(self) -> None:
        total = len(self._pages)
        for state in self._pages:
            self.__dict__.update(state)
            self.setFont("Helvetica", 7.5)
            self.setFillColor(colors.HexColor("#555555"))
            self.drawRightString(A4[0] - MARGIN, 10 * mm, f"Page {self._pageNumber} of {total}")
            super().showPage()
        super().save()


class ReportDocument(BaseDocTemplate):  # type: ignore[misc]
    """A4 pages, each headed with the report id and verdict; headings fill the contents
    page and the PDF outline as they are laid out."""

    def __init__(self, path: Path, header: str, verdict: str, colour: Any, **info: Any) -> None:
        super().__init__(
            str(path),
            pagesize=A4,
            leftMargin=MARGIN,
            rightMargin=MARGIN,
            topMargin=MARGIN + HEADER_GAP / 2,
            bottomMargin=18 * mm,
            **info,
        )
        self.header, self.verdict, self.colour = header, verdict, colour
        frame = Frame(self.leftMargin, self.bottomMargin, self.width, self.height, id="text")
        self.addPageTemplates([PageTemplate(id="page", frames=[frame], onPage=self._decorate)])

    def _decorate(self, canvas: Canvas, doc: BaseDocTemplate) -> None:
        top = A4[1] - MARGIN + 4 * mm
        canvas.saveState()
        canvas.setFont("Helvetica", 7.5)
        canvas.setFillColor(colors.HexColor("#555555"))
        canvas.drawString(MARGIN, top, self.header)
        canvas.setFont("Helvetica-Bold", 7.5)
        canvas.setFillColor(self.colour)
        canvas.drawRightString(A4[0] - MARGIN, top, self.verdict)
        canvas.setStrokeColor(colors.HexColor("#999999"))
        canvas.setLineWidth(0.4)
        canvas.line(MARGIN, top - 2 * mm, A4[0] - MARGIN, top - 2 * mm)
        canvas.restoreState()

    def afterFlowable(self, flowable: Flowable) -> None:
        if isinstance(flowable, Heading):
            self.canv.bookmarkPage(flowable.key)
            self.canv.addOutlineEntry(
                flowable.plain, flowable.key, level=flowable.level, closed=True
            )
            self.notify("TOCEntry", (flowable.level, flowable.plain, self.page, flowable.key))


def build(doc: ReportDocument, story: list[Flowable]) -> None:
    """Lay the story out until the contents page's page numbers settle. A heading never
    ends a page alone: too near the foot, it starts the next page (a long table under it
    still begins on the heading's page, rather than leaving a page half empty)."""
    spaced: list[Flowable] = []
    for flowable in story:
        if isinstance(flowable, Heading):
            spaced.append(CondPageBreak(ROOM_UNDER_A_HEADING))
        spaced.append(flowable)
    doc.multiBuild(spaced, canvasmaker=_NumberedCanvas, maxPasses=4)
