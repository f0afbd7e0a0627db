"""Places in a document's text: the page, sheet, slide, chapter or heading a line lies in.

Extraction writes place markers as lines of their own (`--- page 12 ---`, `--- sheet «Budget»
---`, `--- slide 4 ---`, `--- chapter 3: Title ---`); Markdown and Word documents have `#`
headings. This module is the one grammar for both: reading a marker or heading line, the place
of any line (the nearest marker at or above it, else the nearest heading), and the short text
form the model sees in tool results ("page 12", "sheet «Budget»", "heading: Отпуска") with its
parser, so the bot reads back exactly what the tools wrote.

A marker outranks a heading: a `#` line inside a PDF page is text of that page, not a place.
Headings inside fenced code blocks are not told apart (a rare `# comment` line may name a
place); the place is a pointer for the reader, never a claim the answer rests on.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

PlaceKind = Literal["page", "sheet", "slide", "chapter", "heading"]
NAME_CHARS = 80
"""A sheet name, chapter title or heading is cut to this many characters in the text form."""

_MARKER = re.compile(
    r"--- (?:(?P<kind>page|slide) (?P<number>\d+)"
    r"|sheet «(?P<sheet>.*)»"
    r"|chapter (?P<chapter>\d+)(?:: (?P<title>.*?))?) ---"
)
_HEADING = re.compile(r" {0,3}#{1,6}[ \t]+(?P<text>.*?)(?:[ \t]+#+)?[ \t]*")
_TEXT = re.compile(
    r"(?P<kind>page|slide) (?P<number>\d+)"
    r"|sheet «(?P<sheet>.*)»"
    r"|chapter (?P<chapter>\d+)(?:: (?P<title>.*))?"
    r"|heading: (?P<heading>.+)"
)


@dataclass(frozen=True, slots=True)
class Place:
    """Where in a document: its kind, and the number (page, slide, chapter) or name (sheet,
    chapter title, heading) that names it."""

    kind: PlaceKind
    number: int | None = None
    name: str = ""

    @property
    def page(self) -> int | None:
        """The page number of a page (of a PDF or scan), None for any other kind."""
        return self.number if self.kind == "page" else None

    @property
    def text(self) -> str:
        """The compact form tool results carry: "page 12", "sheet «Budget»", "slide 4",
        "chapter 3: Title", "heading: Отпуска"."""
        name = self.name if len(self.name) <= NAME_CHARS else self.name[: NAME_CHARS - 1] + "…"
        if self.kind == "sheet":
            return f"sheet «{name}»"
        if self.kind == "heading":
            return f"heading: {name}"
        if self.kind == "chapter" and name:
            return f"chapter {self.number}: {name}"
        return f"{self.kind} {self.number}"

    def __str__(self) -> str:
        return self.text


def parse_place(text: str) -> Place | None:
    """The place a text form names (the inverse of `Place.text`), None for anything else."""
    found = _TEXT.fullmatch(text.strip())
    if found is None:
        return None
    if found["kind"]:
        kind: PlaceKind = "page" if found["kind"] == "page" else "slide"
        return Place(kind, int(found["number"]))
    if found["sheet"] is not None:
        return Place("sheet", name=found["sheet"])
    if found["chapter"]:
        return Place("chapter", int(found["chapter"]), found["title"] or "")
    return Place("heading", name=found["heading"].strip())


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


def heading_place(line: str) -> Place | None:
    """The heading a Markdown heading line (`## Отпуска`) opens, None for any other line."""
    if "#" not in line[:4]:
        return None
    found = _HEADING.fullmatch(line)
    if found is None or not found["text"].strip():
        return None
    return Place("heading", name=found["text"].strip())


def place_at(lines: Sequence[str], line_number: int) -> Place | None:
    """The place of a 1-based line: the nearest marker at or above it, else the nearest
    Markdown heading at or above it; None when there is neither (or the line is not there).

    Walks up from the line, so a place near it costs little.
    """
    heading: Place | None = None
    for index in range(min(line_number, len(lines)) - 1, -1, -1):
        line = lines[index]
        if line.startswith("--- "):
            marker = marker_place(line)
            if marker is not None:
                return marker
        elif heading is None and line.lstrip(" ").startswith("#"):
            heading = heading_place(line)
    return heading
