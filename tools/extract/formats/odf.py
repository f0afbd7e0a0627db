"""OpenDocument text (odt) and presentations (odp), read straight from their XML.

Only `content.xml` is read, streamed block by block through defusedxml (no entity expansion),
so a long document never sits whole in memory and embedded pictures are never touched.
odt: headings, paragraphs, lists and tables (rows of cells joined with ` | `) in order; a
heading (`text:h`) comes out as a Markdown `#` line of its outline level, as docx headings do, so
its sections have paths. A heading inside a table cell or a slide stays a plain line.
odp: each slide after a `--- slide N ---` marker, its title first, then its text and tables,
then its speaker notes after "Notes:"; at most `MAX_SLIDES` slides, the cut said.
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO
from xml.etree.ElementTree import Element

from tools.extract.formats.archive import open_zip
from tools.extract.formats.base import Budget, FormatError, Lines, cut_note, plain
from tools.extract.formats.safexml import blocks
from tools.extract.formats.slides import MAX_SLIDES

_OFFICE = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
_TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
_TABLE = "{urn:oasis:names:tc:opendocument:xmlns:table:1.0}"
_DRAW = "{urn:oasis:names:tc:opendocument:xmlns:drawing:1.0}"
_PRESENTATION = "{urn:oasis:names:tc:opendocument:xmlns:presentation:1.0}"
_HEADING = f"{_TEXT}h"
_PARAGRAPHS = frozenset({f"{_TEXT}p", _HEADING})
_DEEPEST = 6
"""Deeper outline levels (ODF allows 10) are read as this one: Markdown headings stop at 6."""
_NO_TEXT = frozenset(
    {
        f"{_TEXT}table-of-content",  # repeats the headings
        f"{_TEXT}tracked-changes",  # deleted text
        f"{_OFFICE}annotation",  # comments
        f"{_DRAW}page-thumbnail",
        f"{_TEXT}sequence-decls",
        f"{_TEXT}variable-decls",
    }
)
_ROWS = frozenset({f"{_TABLE}table-row"})
_ROW_GROUPS = frozenset(
    {
        f"{_TABLE}table-header-rows",
        f"{_TABLE}table-rows",
        f"{_TABLE}table-row-group",
    }
)


def odt_text(data: bytes, budget: Budget) -> str:
    """Headings, paragraphs, lists and tables of a text document, in order."""
    lines = Lines(budget.max_chars)
    with open_zip(data, "odt") as archive, _content(archive, "odt") as stream:
        for block in blocks(stream, f"{_OFFICE}text", "odt"):
            for line in lines_of(block, headings=True):
                lines.add(line)
            if lines.full:
                break
    return lines.text()


def odp_text(data: bytes, budget: Budget) -> str:
    """Every slide's title, text, tables and notes, after its marker."""
    lines = Lines(budget.max_chars)
    number = 0
    with open_zip(data, "odp") as archive, _content(archive, "odp") as stream:
        for page in blocks(stream, f"{_OFFICE}presentation", "odp"):
            if page.tag != f"{_DRAW}page":
                continue
            number += 1
            if number > MAX_SLIDES:
                lines.add(cut_note(f"only the first {MAX_SLIDES:,} slides are read"))
                break
            lines.add(f"--- slide {number} ---")
            for line in _page_lines(page):
                lines.add(line)
            if lines.full:
                break
    return lines.text()


@contextmanager
def _content(archive: zipfile.ZipFile, kind: str) -> Iterator[IO[bytes]]:
    """The document's content part, streamed."""
    try:
        stream = archive.open("content.xml")
    except KeyError:
        raise FormatError(f"the {kind} file is damaged (no content part)") from None
    with stream:
        yield stream


def _page_lines(page: Element) -> Iterator[str]:
    title: list[str] = []
    body: list[str] = []
    notes: list[str] = []
    for child in page:
        if child.tag == f"{_PRESENTATION}notes":
            notes.extend(lines_of(child))
        elif child.get(f"{_PRESENTATION}class") == "title":
            title.extend(lines_of(child))
        else:
            body.extend(lines_of(child))
    yield from title
    yield from body
    if notes:
        yield f"Notes: {notes[0]}"
        yield from notes[1:]


def lines_of(element: Element, *, headings: bool = False) -> Iterator[str]:
    """The lines of any part of a document body: paragraphs, headings and table rows; with
    `headings`, a heading is a `#` line of its level (a table's cells never have them)."""
    if element.tag in _PARAGRAPHS:
        text = plain(_inline(element))
        if text and headings and element.tag == _HEADING:
            yield f"{'#' * _level(element)} {text}"
        elif text:
            yield text
    elif element.tag == f"{_TABLE}table":
        yield from _table_rows(element)
    elif element.tag not in _NO_TEXT:
        for child in element:
            yield from lines_of(child, headings=headings)


def _level(heading: Element) -> int:
    """A heading's outline level, 1 when it names none (as the format reads it), at most
    `_DEEPEST`."""
    return min(_count(heading.get(f"{_TEXT}outline-level")), _DEEPEST)


def _inline(element: Element) -> str:
    """The text of a paragraph: spans, links and fields, with `text:s` spaces and tabs."""
    parts = [element.text or ""]
    for child in element:
        if child.tag == f"{_TEXT}s":
            parts.append(" " * min(_count(child.get(f"{_TEXT}c")), 100))
        elif child.tag in (f"{_TEXT}tab", f"{_TEXT}line-break"):
            parts.append(" ")
        elif child.tag not in _NO_TEXT:
            parts.append(_inline(child))
        parts.append(child.tail or "")
    return "".join(parts)


def _table_rows(table: Element) -> Iterator[str]:
    for row in table:
        if row.tag in _ROW_GROUPS:
            yield from _table_rows(row)
        elif row.tag in _ROWS:
            cells = [
                plain(" ".join(lines_of(cell)))
                for cell in row
                if cell.tag == f"{_TABLE}table-cell"
            ]
            while cells and not cells[-1]:
                cells.pop()
            if cells:
                yield " | ".join(cells)


def _count(value: str | None) -> int:
    try:
        return max(1, int(value)) if value else 1
    except ValueError:
        return 1
