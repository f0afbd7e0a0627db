"""Spreadsheets (xlsx, xls, ods) through one reader, python-calamine: a section per sheet.

Each sheet starts with a `--- sheet «Name» ---` marker (read_file pages by sheet as by PDF
page); each row is one line of cells joined with ` | `, so a row can be quoted and found.
Formulas give the values the file last saved for them. Fully empty rows and columns are left
out, trailing empty cells trimmed, whole numbers shown without `.0` and dates as dates.

Limits: a sheet whose filled cells span more than `MAX_SHEET_CELLS` is skipped with a note
(found before the reader runs, see `tools.extract.formats.sheet_extent`; an ods file, whose
sheets the reader loads all at once, is refused instead); at most `MAX_ROWS` rows of a sheet,
`MAX_CELLS` cells and `MAX_SHEETS` sheets of a workbook are read, each cut said.
"""

from __future__ import annotations

import datetime as dt
import io
import zipfile
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING

from tools.extract.formats.archive import open_zip
from tools.extract.formats.base import Budget, FormatError, Lines, cut_note, plain
from tools.extract.formats.sheet_extent import Span, ods_spans, xlsx_spans

if TYPE_CHECKING:
    from python_calamine import CalamineWorkbook

MAX_SHEET_CELLS = 4_000_000
MAX_BOOK_CELLS = 8_000_000
MAX_ROWS = 100_000
MAX_CELLS = 4_000_000
MAX_SHEETS = 1_000

Cell = int | float | str | bool | dt.time | dt.date | dt.datetime | dt.timedelta


def xlsx_text(data: bytes, budget: Budget) -> str:
    """An Excel 2007+ workbook (xlsx, xlsm)."""
    return _workbook_text(data, budget, "xlsx", xlsx_spans)


def ods_text(data: bytes, budget: Budget) -> str:
    """An OpenDocument spreadsheet. The reader loads all its sheets at once, so one sheet
    over the limit refuses the whole file."""
    return _workbook_text(data, budget, "ods", _all_within_limits)


def _all_within_limits(archive: zipfile.ZipFile) -> Mapping[str, Span]:
    spans = ods_spans(archive)
    name, span = max(spans.items(), key=lambda item: item[1].cells, default=("", Span()))
    if span.cells > MAX_SHEET_CELLS:
        raise FormatError(
            f"the ods file's sheet «{plain(name)}» spans {span.rows:,} rows × "
            f"{span.columns:,} columns, over the limit of {MAX_SHEET_CELLS:,} cells for one sheet"
        )
    if sum(span.cells for span in spans.values()) > MAX_BOOK_CELLS:
        raise FormatError(
            f"the ods file's sheets span over {MAX_BOOK_CELLS:,} cells in all, over the limit"
        )
    return spans


def xls_text(data: bytes, budget: Budget) -> str:
    """An Excel 97–2003 workbook: its grid is at most 65,536 × 256 cells by format, so it is
    read without a span check (the worker's memory cap still holds)."""
    return _workbook_text(data, budget, "xls", None)


def _workbook_text(
    data: bytes,
    budget: Budget,
    kind: str,
    spans_of: Callable[[zipfile.ZipFile], Mapping[str, Span]] | None,
) -> str:
    spans: Mapping[str, Span] = {}
    if spans_of is not None:
        with open_zip(data, kind) as archive:
            spans = spans_of(archive)
    from python_calamine import CalamineError, CalamineWorkbook  # noqa: PLC0415  (worker only)

    try:
        workbook = CalamineWorkbook.from_filelike(io.BytesIO(data))
    except CalamineError as exc:
        raise FormatError(_damaged(kind, exc)) from None
    with workbook:
        return _sheets(workbook, spans, budget)


def _damaged(kind: str, exc: Exception) -> str:
    if "password" in type(exc).__name__.lower() or "encrypt" in str(exc).lower():
        return f"the {kind} file is password-protected"
    return f"the {kind} file is damaged ({type(exc).__name__})"


def _sheets(workbook: CalamineWorkbook, spans: Mapping[str, Span], budget: Budget) -> str:
    from python_calamine import CalamineError  # noqa: PLC0415  (worker only)

    lines = Lines(budget.max_chars)
    cells_left = MAX_CELLS
    names = workbook.sheet_names
    for number, name in enumerate(names, start=1):
        if number > MAX_SHEETS:
            lines.add(cut_note(f"only the first {MAX_SHEETS:,} of {len(names):,} sheets are read"))
            break
        lines.add(f"--- sheet «{plain(name)}» ---")
        span = spans.get(name)
        if span is not None and span.cells > MAX_SHEET_CELLS:
            lines.add(
                f"[this sheet is not read: its filled cells span {span.rows:,} rows × "
                f"{span.columns:,} columns, over the limit of {MAX_SHEET_CELLS:,} cells "
                "for one sheet]"
            )
            continue
        try:
            sheet = workbook.get_sheet_by_name(name)
            rows = sheet.iter_rows()
            height = sheet.height
        except CalamineError as exc:
            lines.add(f"[this sheet cannot be read ({type(exc).__name__})]")
            continue
        cells_left = _add_sheet(lines, rows, height, cells_left)
        if lines.full or cells_left <= 0:
            if cells_left <= 0 and number < len(names):
                lines.add(cut_note(f"only the first {MAX_CELLS:,} cells of the workbook are read"))
            break
    return lines.text()


def _add_sheet(lines: Lines, rows: Iterable[list[Cell]], height: int, cells_left: int) -> int:
    """Add one sheet's rows (fully empty rows and columns left out); returns the cells left."""
    kept: list[list[str]] = []
    size = 0
    read = 0
    for row in rows:
        if read >= MAX_ROWS or cells_left <= 0 or size > lines.room:
            break
        read += 1
        cells_left -= len(row)
        shown = [_shown(value) for value in row]
        while shown and not shown[-1]:
            shown.pop()
        if shown:
            kept.append(shown)
            size += sum(len(value) + 3 for value in shown)
    used = sorted({i for shown in kept for i, value in enumerate(shown) if value})
    for shown in kept:
        lines.add(" | ".join(shown[i] for i in used if i < len(shown)))
    if read < height and not lines.full:
        lines.add(cut_note(f"this sheet is read up to row {read:,} of {height:,}"))
    return cells_left


def _shown(value: Cell) -> str:
    """A cell as the sheet shows it, plainly: whole numbers without `.0`, dates as dates."""
    if isinstance(value, str):
        return plain(value)
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        return _number(value)
    if isinstance(value, dt.datetime | dt.time):
        return _moment(value)
    return str(value)  # int, date (ISO), timedelta


def _number(value: float) -> str:
    if value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.15g}"


def _moment(value: dt.datetime | dt.time) -> str:
    """A date and time without a midnight time, and without zero seconds."""
    if isinstance(value, dt.datetime):
        if value.time() == dt.time():
            return value.date().isoformat()
        return value.isoformat(sep=" ", timespec="seconds" if value.second else "minutes")
    return value.isoformat(timespec="seconds" if value.second else "minutes")
