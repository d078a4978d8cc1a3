"""The text of a PDF's pages as pypdf extracts it: what a reader's copy and paste gets."""

from __future__ import annotations

from pathlib import Path

from pypdf import PdfReader


def pdf_pages(path: Path) -> list[str]:
    """Each page's text, in page order."""
    return [page.extract_text() or "" for page in PdfReader(path).pages]


def pdf_text(path: Path) -> str:
    """Every page's text, one after the other."""
    return "\n".join(pdf_pages(path))
