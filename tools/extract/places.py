"""Places in a document's text: the page, sheet, slide or chapter a line lies in, and the
headings above it.

Extraction writes place markers as lines of their own (`--- page 12 ---`, `--- sheet «Budget»
---`, `--- slide 4 ---`, `--- chapter 3: Title ---`); Markdown, Word and HTML documents have `#`
headings. This module is the one grammar for both: reading a marker or heading line, the place
of any line (the nearest marker at or above it, and the path of headings it lies under), and
the short text form the model sees in tool results ("page 12", "sheet «Budget»", "§ 4.2 Отпуск,
page 12", "§ Отпуска > Ежегодный") with its parser, so the bot reads back exactly what the
tools wrote. Text written before sections had paths ("heading: Отпуска") still reads.

A marker ends the sections above it: a heading inside a PDF page or an e-book chapter names
the place with its page or chapter, and the next page starts without it (a place is found by
walking up to the nearest marker, never through a whole PDF). The lines of a sheet or a slide
are cells and bullets, so a `#` among them is no heading. Headings inside fenced code blocks
are not told apart (a rare `# comment` line may name a place); the place is a pointer for the
reader, never a claim the answer rests on.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

PlaceKind = Literal["page", "sheet", "slide", "chapter", "heading"]
LineKind = Literal["marker", "heading"]
NAME_CHARS = 80
"""A sheet name or chapter title is cut to this many characters in the text form."""
HEADING_CHARS = 50
"""Each heading of a section is cut to this many characters in the text form."""
SHOWN_LEVELS = 2
"""The innermost headings a section's text form shows (one, when it is numbered)."""
SECTION_MARK = "§ "
_LEVELS = " > "

_MARKER = re.compile(
    r"--- (?:(?P<kind>page|slide) (?P<number>\d+)"
    r"|sheet «(?P<sheet>.*)»"
    r"|chapter (?P<chapter>\d+)(?:: (?P<title>.*?))?) ---"
)
_HEADING = re.compile(r" {0,3}(?P<hashes>#{1,6})[ \t]+(?P<text>.*?)(?:[ \t]+#+)?[ \t]*")
_MARKER_TEXT = re.compile(
    r"(?P<kind>page|slide) (?P<number>\d+)"
    r"|sheet «(?P<sheet>.*)»"
    r"|chapter (?P<chapter>\d+)(?:: (?P<title>.*))?"
)
_SECTION_TEXT = re.compile(
    r"§ (?P<section>.+?)(?:, (?P<marker>(?:page|slide) \d+|sheet «.*»|chapter \d+(?:: .*)?))?"
)
_OLD_HEADING = "heading: "
"""How a section was written before it had a path (still in indexes and histories)."""
_NUMBER = re.compile(r"(?:§\s*)?\d+(?:\.\d+)*\.?(?=\s|$)")
_NO_SECTIONS = frozenset({"sheet", "slide"})
"""Markers whose lines are never headings (cells of a sheet, bullets of a slide)."""


def numbered(heading: str) -> bool:
    """Whether a heading carries its own number ("4.2 Отпуск", "3. Цели"): the number alone
    then says where it lies, so its parents need not be shown."""
    return _NUMBER.match(heading) is not None


@dataclass(frozen=True, slots=True)
class Place:
    """Where in a document: its kind, the number (page, slide, chapter) or name (sheet, chapter
    title) that names it, and the headings it lies under, outermost first (`section`).

    A place of kind "heading" is a section alone (a Markdown or Word document has no markers).
    """

    kind: PlaceKind
    number: int | None = None
    name: str = ""
    section: tuple[str, ...] = ()

    @property
    def page(self) -> int | None:
        """The page number of a page (of a PDF or scan), None for any other kind."""
        return self.number if self.kind == "page" else None

    @property
    def marker(self) -> Place | None:
        """The page, sheet, slide or chapter alone, without its section; None for a heading."""
        return None if self.kind == "heading" else Place(self.kind, self.number, self.name)

    @property
    def shown_section(self) -> tuple[str, ...]:
        """The headings the short forms name, each cut to `HEADING_CHARS`: the innermost alone
        when it is numbered, else the last `SHOWN_LEVELS`."""
        if self.section and numbered(self.section[-1]):
            shown = self.section[-1:]
        else:
            shown = self.section[-SHOWN_LEVELS:]
        return tuple(_cut(name, HEADING_CHARS) for name in shown)

    @property
    def text(self) -> str:
        """The compact form tool results carry: "page 12", "sheet «Budget»", "slide 4",
        "chapter 3: Title", "§ 4.2 Отпуск, page 12", "§ Отпуска > Ежегодный"."""
        marker = "" if self.kind == "heading" else _marker_text(self)
        if not self.section:
            return marker
        levels = _LEVELS.join(self.shown_section)
        section = levels if levels.startswith("§") else SECTION_MARK + levels
        return f"{section}, {marker}" if marker else section

    def __str__(self) -> str:
        return self.text


def _cut(name: str, limit: int) -> str:
    return name if len(name) <= limit else name[: limit - 1] + "…"


def _marker_text(place: Place) -> str:
    name = _cut(place.name, NAME_CHARS)
    if place.kind == "sheet":
        return f"sheet «{name}»"
    if place.kind == "chapter" and name:
        return f"chapter {place.number}: {name}"
    return f"{place.kind} {place.number}"


def section_place(section: Sequence[str], marker: Place | None = None) -> Place | None:
    """The place of a line under these headings (outermost first) and within `marker`; None
    when there is neither."""
    headings = tuple(section)
    if marker is None:
        return Place("heading", section=headings) if headings else None
    if marker.kind in _NO_SECTIONS or not headings:
        return marker
    return Place(marker.kind, marker.number, marker.name, headings)


def parse_place(text: str) -> Place | None:
    """The place a text form names (the inverse of `Place.text`), None for anything else."""
    text = text.strip()
    if text.startswith(_OLD_HEADING) and text[len(_OLD_HEADING) :].strip():
        return Place("heading", section=(text[len(_OLD_HEADING) :].strip(),))
    found = _SECTION_TEXT.fullmatch(text)
    if found is None:
        return _parse_marker(text)
    marker = _parse_marker(found["marker"]) if found["marker"] else None
    return section_place([level.strip() for level in found["section"].split(_LEVELS)], marker)


def _parse_marker(text: str) -> Place | None:
    found = _MARKER_TEXT.fullmatch(text)
    if found is None:
        return None
    if found["kind"]:
        kind: PlaceKind = "page" if found["kind"] == "page" else "slide"
        return Place(kind, int(found["number"]))
    if found["sheet"] is not None:
        return Place("sheet", name=found["sheet"])
    return Place("chapter", int(found["chapter"]), found["title"] or "")


def marker_place(line: str) -> Place | None:
    """The place a marker line opens (`--- page 3 ---`), None for any other line."""
    if not line.startswith("--- "):
        return None
    found = _MARKER.fullmatch(line)
    if found is None:
        return None
    if found["kind"]:
        kind: PlaceKind = "page" if found["kind"] == "page" else "slide"
        return Place(kind, int(found["number"]))
    if found["sheet"] is not None:
        return Place("sheet", name=found["sheet"])
    return Place("chapter", int(found["chapter"]), found["title"] or "")


def heading_of(line: str) -> tuple[int, str] | None:
    """The level and text of a Markdown heading line (`## Отпуска`: 2, "Отпуска"), None for any
    other line."""
    if "#" not in line[:4]:
        return None
    found = _HEADING.fullmatch(line)
    if found is None or not found["text"].strip():
        return None
    return len(found["hashes"]), found["text"].strip()


def heading_place(line: str) -> Place | None:
    """The section a Markdown heading line (`## Отпуска`) opens, by itself, None for any other
    line."""
    heading = heading_of(line)
    return None if heading is None else Place("heading", section=(heading[1],))


class Sections:
    """The place of each line while a document is read from the top: the last marker and the
    headings open under it. A place a tool named (read back from its text form) has lost its
    headings' levels: the next heading read replaces them."""

    def __init__(self) -> None:
        self.marker: Place | None = None
        self._open: list[tuple[int, str]] = []
        self._place: Place | None = None

    @property
    def place(self) -> Place | None:
        """The place of the line read last (one object until the next marker or heading)."""
        return self._place

    def read(self, line: str) -> LineKind | None:
        """Take in one line: "marker" for a marker line (no text of its own), "heading" for a
        heading that opens a section (`place` then names it), None for a line of text."""
        if line.startswith("--- "):
            opened = marker_place(line)
            if opened is None:
                return None
            self._open.clear()
            self.marker = self._place = opened
            return "marker"
        if self.marker is not None and self.marker.kind in _NO_SECTIONS:
            return None
        heading = heading_of(line) if line.lstrip(" ").startswith("#") else None
        if heading is None:
            return None
        level = heading[0]
        while self._open and (self._open[-1][0] >= level or self._open[-1][0] == 0):
            self._open.pop()
        self._open.append(heading)
        self._place = section_place([text for _, text in self._open], self.marker)
        return "heading"

    def name(self, place: Place) -> None:
        """Continue from a place a tool named (a page read from its middle)."""
        self.marker = place.marker
        self._open = [(0, text) for text in place.section]
        self._place = place


def place_at(lines: Sequence[str], line_number: int) -> Place | None:
    """The place of a 1-based line: the nearest marker at or above it and the headings between
    that marker and the line; None when there is neither (or the line is not there).

    Walks up from the line to the nearest marker, so a place near its page's start costs
    little.
    """
    section: list[str] = []
    below = 7  # a heading above counts when its level is below this one
    for index in range(min(line_number, len(lines)) - 1, -1, -1):
        line = lines[index]
        if line.startswith("--- "):
            marker = marker_place(line)
            if marker is not None:
                return section_place(section[::-1], marker)
        elif below > 1 and line.lstrip(" ").startswith("#"):
            heading = heading_of(line)
            if heading is not None and heading[0] < below:
                below = heading[0]
                section.append(heading[1])
    return section_place(section[::-1], None)
