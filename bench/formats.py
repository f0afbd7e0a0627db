"""Writers for the binary formats of the corpora: PDF (reportlab) and DOCX (python-docx)."""

from __future__ import annotations

import datetime as dt
import textwrap
from collections.abc import Iterable
from pathlib import Path

from docx import Document
from reportlab.lib.pagesizes import A4
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen import canvas

_FONT_FILES = (
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
)
_LINES_PER_PAGE = 48
_FIXED_DATE = dt.datetime(2025, 1, 1, tzinfo=dt.UTC)


def _font() -> str:
    """A font with Cyrillic glyphs when the system has one; Helvetica (Latin only) otherwise."""
    if "BenchSans" in pdfmetrics.getRegisteredFontNames():
        return "BenchSans"
    for candidate in _FONT_FILES:
        if Path(candidate).exists():
            pdfmetrics.registerFont(TTFont("BenchSans", candidate))
            return "BenchSans"
    return "Helvetica"


def has_cyrillic_font() -> bool:
    """Whether generated PDFs can carry Russian text."""
    return _font() != "Helvetica"


def write_pdf(path: Path, paragraphs: Iterable[str], *, pages: int | None = None) -> int:
    """Lay the paragraphs out on A4 pages (exactly `pages` if given); returns the page count."""
    font = _font()
    pdf = canvas.Canvas(str(path), pagesize=A4, invariant=True)
    width, height = A4
    lines: list[str] = []
    for paragraph in paragraphs:
        lines.extend(textwrap.wrap(paragraph, 95) or [""])
        lines.append("")
    if pages is not None:
        lines = (lines + [""] * (pages * _LINES_PER_PAGE))[: pages * _LINES_PER_PAGE]
    count = 0
    for start in range(0, len(lines), _LINES_PER_PAGE):
        pdf.setFont(font, 9)
        y = height - 50
        for line in lines[start : start + _LINES_PER_PAGE]:
            pdf.drawString(40, y, line)
            y -= 15
        pdf.showPage()
        count += 1
    pdf.save()
    return count


def write_docx(path: Path, title: str, paragraphs: Iterable[str], table: bool = False) -> None:
    """A document with a heading, paragraphs and, optionally, a small table."""
    document = Document()
    document.add_heading(title, level=1)
    for paragraph in paragraphs:
        document.add_paragraph(paragraph)
    if table:
        grid = document.add_table(rows=3, cols=3)
        for row_index, row in enumerate(grid.rows):
            for col_index, cell in enumerate(row.cells):
                cell.text = f"{title.split(maxsplit=1)[0]} {row_index}.{col_index}"
    document.core_properties.created = _FIXED_DATE  # the same bytes on every run
    document.save(str(path))
