"""Documents cut into passages for embedding: pieces that respect the document's structure.

A passage never crosses a place marker (`--- page 3 ---`, a sheet, a slide, a chapter) or a
heading, so each one has a single place to cite and to read on from. Inside a section,
paragraphs (runs of lines between blank lines) are packed up to `TARGET_CHARS`; a paragraph
longer than `MAX_CHARS` is cut at sentence ends. A table (lines holding ` | `) is packed apart
from the prose around it, and every passage of it after the first starts with the table's
header row, so a row is never embedded without the names of its columns. A section's heading
opens each of its passages for the same reason (its lines stay the passage's own).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass

from tools.extract.places import Place, Sections

CUT_VERSION = "3"
"""How passages are cut and placed; the vector index starts over when it changes (2: a place
names the path of headings, "§ 4.2 Отпуск, page 12"; 3: odt headings are read as headings, so
an odt's passages, cut from the same file as before, are placed again)."""
TARGET_CHARS = 1000
"""A passage is closed once it reaches this size (see bench/bench_vectors.py)."""
MAX_CHARS = 1400
"""No passage's own text is longer (a sentence longer still is cut where it must be)."""
_SENTENCE_END = re.compile(r"(?<=[.!?…;])\s+")
_TABLE_CELL = " | "


@dataclass(frozen=True, slots=True)
class Passage:
    """One piece of a document as it is embedded: its lines (1-based, as read_file counts
    them), its place and its text (the heading or table header it carries included)."""

    path: str
    first: int
    last: int
    place: Place | None
    text: str

    @property
    def digest(self) -> str:
        """The key its embedding is cached under: the same text is never embedded twice."""
        return hashlib.blake2b(self.text.encode("utf-8", "replace"), digest_size=16).hexdigest()


@dataclass(frozen=True, slots=True)
class _Unit:
    first: int
    last: int
    text: str


def cut_passages(path: str, text: str) -> list[Passage]:
    """The passages of one document's extracted text."""
    return list(_passages(path, text.split("\n")))


def _passages(path: str, lines: list[str]) -> Iterator[Passage]:
    sections = Sections()
    place: Place | None = None
    title = ""
    block: list[tuple[int, str]] = []

    def flush() -> Iterator[Passage]:
        for unit in _pack(block, title):
            yield Passage(path, unit.first, unit.last, place, unit.text)
        block.clear()

    for number, line in enumerate(lines, 1):
        kind = sections.read(line)
        if kind is None:
            block.append((number, line))
            continue
        yield from flush()
        place = sections.place
        title = place.section[-1] if kind == "heading" and place is not None else ""
        if kind == "heading":
            block.append((number, line.strip()))
    yield from flush()


def _paragraphs(block: list[tuple[int, str]]) -> Iterator[tuple[bool, list[tuple[int, str]]]]:
    """Runs of non-blank lines, each told apart as a table or prose (a table and the prose
    that touches it without a blank line are two runs)."""
    run: list[tuple[int, str]] = []
    table = False
    for number, line in block:
        if not line.strip():
            if run:
                yield table, run
            run = []
            continue
        is_row = _TABLE_CELL in line
        if run and is_row != table:
            yield table, run
            run = []
        table = is_row
        run.append((number, line.strip()))
    if run:
        yield table, run


def _pack(block: list[tuple[int, str]], title: str) -> Iterator[_Unit]:
    """The section's passages: prose packed to size, tables apart with their header."""
    pending: list[_Unit] = []
    for table, run in _paragraphs(block):
        if table:
            yield from _joined(pending, title)
            pending = []
            yield from _table(run, title)
            continue
        for unit in _prose_units(run):
            if pending and _size(pending) + len(unit.text) > TARGET_CHARS:
                yield from _joined(pending, title)
                pending = []
            pending.append(unit)
    yield from _joined(pending, title)


def _size(units: list[_Unit]) -> int:
    return sum(len(u.text) + 1 for u in units)


def _joined(units: list[_Unit], title: str) -> Iterator[_Unit]:
    if not units:
        return
    text = "\n".join(u.text for u in units)
    if title and not text.lstrip("# ").startswith(title):
        text = f"{title}\n{text}"
    if text.strip() and text.strip() != title:
        yield _Unit(units[0].first, units[-1].last, text)


def _prose_units(run: list[tuple[int, str]]) -> Iterator[_Unit]:
    """A paragraph as one unit, or cut at sentence ends when it is too long."""
    text = " ".join(line for _, line in run)
    if len(text) <= MAX_CHARS:
        yield _Unit(run[0][0], run[-1][0], text)
        return
    # Where each line starts in the joined text, to give each piece its lines.
    starts: list[tuple[int, int]] = []
    at = 0
    for number, line in run:
        starts.append((at, number))
        at += len(line) + 1
    piece_start = 0
    piece: list[str] = []
    for sentence, begin in _sentences(text):
        if piece and sum(len(s) + 1 for s in piece) + len(sentence) > TARGET_CHARS:
            yield _located(" ".join(piece), piece_start, starts)
            piece, piece_start = [], begin
        piece.append(sentence)
    if piece:
        yield _located(" ".join(piece), piece_start, starts)


def _sentences(text: str) -> Iterator[tuple[str, int]]:
    """Sentences and where each begins; one longer than `MAX_CHARS` in pieces of that size."""
    at = 0
    for part in _SENTENCE_END.split(text):
        begin = text.find(part, at)
        for offset in range(0, max(len(part), 1), MAX_CHARS):
            yield part[offset : offset + MAX_CHARS], begin + offset
        at = begin + len(part)


def _located(text: str, begin: int, starts: list[tuple[int, int]]) -> _Unit:
    first = last = starts[0][1]
    for start, number in starts:
        if start <= begin:
            first = number
        if start < begin + len(text):
            last = number
    return _Unit(first, last, text)


def _table(run: list[tuple[int, str]], title: str) -> Iterator[_Unit]:
    """A table's rows packed to size, each passage after the first led by the header row."""
    header = run[0][1]
    rows: list[_Unit] = []
    for number, line in run:
        row = _Unit(number, number, line[:MAX_CHARS])
        if rows and _size(rows) + len(row.text) > TARGET_CHARS:
            yield from _with_header(rows, header, title)
            rows = []
        rows.append(row)
    yield from _with_header(rows, header, title)


def _with_header(rows: list[_Unit], header: str, title: str) -> Iterator[_Unit]:
    if rows and rows[0].text != header:
        rows = [_Unit(rows[0].first, rows[0].first, header), *rows]
        text = "\n".join(u.text for u in rows)
        head = f"{title}\n" if title else ""
        yield _Unit(rows[1].first, rows[-1].last, head + text)
        return
    yield from _joined(rows, title)
