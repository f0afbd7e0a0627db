"""How many cells each sheet of a workbook spans, found before the spreadsheet reader runs.

The reader holds a sheet as a dense grid from its first to its last filled cell, so two cells
at opposite corners cost seventeen billion slots: it would exhaust the worker's memory and
die. A cheap pass over the sheet's XML (a regex over the xlsx part, SAX over the ods part)
finds that span first, so an oversized sheet can be skipped with a note instead.
"""

from __future__ import annotations

import posixpath
import re
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from typing import IO, Any
from xml.sax import SAXException
from xml.sax.handler import ContentHandler, feature_namespaces

from defusedxml import DefusedXmlException
from defusedxml.sax import make_parser

from tools.extract.formats.archive import read_member
from tools.extract.formats.base import FormatError
from tools.extract.formats.safexml import local, parse

_CHUNK = 1024 * 1024
_LONGEST_TAG = 64 * 1024
_TAG = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?(row|c)\b([^>]*)>")
_REF = re.compile(rb"""\br=["']([A-Z]*)([0-9]*)["']""")
_WORKBOOK_PART_LIMIT = 16 * 1024 * 1024
_TABLE = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"
_OFFICE = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"


@dataclass
class Span:
    """The rows and columns from a sheet's first filled cell to its last."""

    rows: int = 0
    columns: int = 0

    @property
    def cells(self) -> int:
        return self.rows * self.columns


class _Box:
    """The bounding box of the filled cells seen so far."""

    def __init__(self) -> None:
        self.top = self.left = 1 << 40
        self.bottom = self.right = 0
        self.row = 0
        self.column = 0

    def new_row(self, number: int | None) -> None:
        self.row = number if number is not None else self.row + 1
        self.column = 0

    def cell(self, column: int | None, filled: bool) -> None:
        self.column = column if column is not None else self.column + 1
        if filled:
            self.top, self.bottom = min(self.top, self.row), max(self.bottom, self.row)
            self.left, self.right = min(self.left, self.column), max(self.right, self.column)

    def span(self) -> Span:
        if not self.bottom:
            return Span()
        return Span(self.bottom - self.top + 1, self.right - self.left + 1)


def _column_number(letters: bytes) -> int:
    number = 0
    for letter in letters:
        number = number * 26 + letter - 64
    return number


def xlsx_spans(archive: zipfile.ZipFile) -> dict[str, Span]:
    """Sheet name → span, for every worksheet the workbook lists."""
    spans: dict[str, Span] = {}
    for name, part in _xlsx_sheet_parts(archive).items():
        try:
            with archive.open(part) as stream:
                spans[name] = _scan_xlsx_part(stream)
        except KeyError:
            continue  # a sheet without its part: the reader reports it
    return spans


def _xlsx_sheet_parts(archive: zipfile.ZipFile) -> dict[str, str]:
    """Sheet name → the part holding its cells, found the way the reader finds them: the
    package's relationships name the workbook, the workbook's name each sheet's part."""
    try:
        package = _targets(archive, "_rels/.rels", "")
    except KeyError:
        package = {}  # the reader looks in the usual place then; so do we
    try:
        book_path = next(
            (path for kind, path in package.values() if kind.endswith("/officeDocument")),
            "xl/workbook.xml",
        )
        folder, name = posixpath.split(book_path)
        book = parse(read_member(archive, book_path, _WORKBOOK_PART_LIMIT), "xlsx")
        sheets = _targets(archive, posixpath.join(folder, "_rels", f"{name}.rels"), folder)
    except KeyError:
        raise FormatError("the xlsx file is damaged (no workbook part)") from None
    parts: dict[str, str] = {}
    for sheet in book.iter():
        if local(sheet.tag) == "sheet":
            rid = next((v for k, v in sheet.attrib.items() if local(k) == "id"), "")
            if rid in sheets:
                parts[sheet.get("name", "")] = sheets[rid][1]
    return parts


def _targets(archive: zipfile.ZipFile, rels_path: str, folder: str) -> dict[str, tuple[str, str]]:
    """Relationship id → (type, the part it points to), from one relationships part."""
    rels = parse(read_member(archive, rels_path, _WORKBOOK_PART_LIMIT), "xlsx")
    found: dict[str, tuple[str, str]] = {}
    for rel in rels:
        target = rel.get("Target", "")
        path = target[1:] if target.startswith("/") else posixpath.join(folder, target)
        found[rel.get("Id", "")] = (rel.get("Type", ""), posixpath.normpath(path))
    return found


def _scan_xlsx_part(stream: IO[bytes]) -> Span:
    box = _Box()
    carry = b""
    while chunk := stream.read(_CHUNK):
        buffer = carry + chunk
        end = buffer.rfind(b"<")
        if end < 0 or len(buffer) - end > _LONGEST_TAG:
            end = len(buffer)
        for match in _TAG.finditer(buffer, 0, end):
            ref = _REF.search(match.group(2))
            letters, digits = (ref.group(1), ref.group(2)) if ref else (b"", b"")
            if match.group(1) == b"row":
                box.new_row(int(digits) if digits else None)
                continue
            if digits:
                box.row = int(digits)
            column = _column_number(letters) if letters else None
            box.cell(column, filled=not match.group(2).endswith(b"/"))
        carry = buffer[end:]
    return box.span()


class _OdsHandler(ContentHandler):
    """Follows tables, rows and cells of an ods content part, with their repeat counts."""

    def __init__(self) -> None:
        super().__init__()
        self.spans: dict[str, Span] = {}
        self._name = ""
        self._box = _Box()
        self._row_repeat = 1
        self._row_filled = False
        self._row_cells: list[tuple[int, bool]] = []
        self._cell_depth = 0

    def startElementNS(self, name: tuple[str | None, str], qname: Any, attrs: Any) -> None:
        uri, tag = name
        if self._cell_depth:
            self._cell_depth += 1
            self._row_cells[-1] = (self._row_cells[-1][0], True)
            return
        if uri != _TABLE:
            return
        if tag == "table":
            self._name = attrs.get((_TABLE, "name"), "")
            self._box = _Box()
        elif tag == "table-row":
            self._row_repeat = _count(attrs.get((_TABLE, "number-rows-repeated")))
            self._row_cells = []
        elif tag in ("table-cell", "covered-table-cell"):
            repeat = _count(attrs.get((_TABLE, "number-columns-repeated")))
            self._row_cells.append((repeat, (_OFFICE, "value-type") in attrs))
            self._cell_depth = 1

    def endElementNS(self, name: tuple[str | None, str], qname: Any) -> None:
        if self._cell_depth:
            self._cell_depth -= 1
            return
        uri, tag = name
        if uri != _TABLE:
            return
        if tag == "table-row":
            self._end_row()
        elif tag == "table":
            self.spans[self._name] = self._box.span()

    def _end_row(self) -> None:
        box = self._box
        first_row = box.row + 1
        box.new_row(None)
        for repeat, filled in self._row_cells:
            if filled:
                box.cell(box.column + 1, filled=True)
                box.cell(box.column + repeat - 1, filled=True)
            else:
                box.column += repeat
        if self._row_repeat > 1 and box.bottom == box.row:
            box.bottom = first_row + self._row_repeat - 1
        box.row = first_row + self._row_repeat - 1


def _count(value: str | None) -> int:
    try:
        return max(1, int(value)) if value else 1
    except ValueError:
        return 1


def ods_spans(archive: zipfile.ZipFile) -> Mapping[str, Span]:
    """Sheet name → span, for every table of an ods workbook."""
    handler = _OdsHandler()
    parser = make_parser()
    parser.setFeature(feature_namespaces, True)
    parser.setContentHandler(handler)
    try:
        with archive.open("content.xml") as stream:
            parser.parse(stream)
    except KeyError:
        raise FormatError("the ods file is damaged (no content part)") from None
    except DefusedXmlException:
        raise FormatError("the ods file declares XML entities (refused)") from None
    except SAXException:
        raise FormatError("the ods file is damaged (broken XML)") from None
    return handler.spans
