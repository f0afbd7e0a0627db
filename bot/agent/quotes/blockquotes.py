"""The blockquotes of a model's Markdown answer, with where each stands in it.

A blockquote is a run of consecutive lines that start with `>` (up to three spaces before it);
nested markers (`>>`, `> >`) belong to the same quote and are removed with the outer one. A
line without `>` ends the quote: the lazy continuation Markdown allows is not taken, since a
model writes the line after a quote as its own text. Lines inside code fences (``` or ~~~) are
code, never quotes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_MARKERS = re.compile(r"(?: {0,3}> ?)+")
_FENCE = re.compile(r" {0,3}(?P<fence>`{3,}|~{3,})")


@dataclass(frozen=True, slots=True)
class Blockquote:
    """One quote: its text with the `>` markers removed (lines kept, a blank line between
    paragraphs), and its span in the answer, from its first `>` line's start to its last
    line's end (without the line break)."""

    text: str
    start: int
    end: int


def find_blockquotes(answer: str) -> list[Blockquote]:
    """Every blockquote outside code fences, in the order they appear."""
    found: list[Blockquote] = []
    lines: list[str] = []
    start = end = 0
    fence: str | None = None
    at = 0
    for raw in answer.splitlines(keepends=True):
        line = raw.rstrip("\r\n")
        line_start, at = at, at + len(raw)
        opened = _FENCE.match(line)
        markers = _MARKERS.match(line) if fence is None and opened is None else None
        if markers is not None:
            if not lines:
                start = line_start
            lines.append(line[markers.end() :].rstrip())
            end = line_start + len(line)
            continue
        if lines:
            found.append(Blockquote("\n".join(lines).strip("\n"), start, end))
            lines = []
        if fence is None and opened is not None:
            fence = opened["fence"]
        elif fence is not None and opened is not None and _closes(opened["fence"], fence):
            fence = None
    if lines:
        found.append(Blockquote("\n".join(lines).strip("\n"), start, end))
    return found


def _closes(candidate: str, fence: str) -> bool:
    """Whether a fence line closes the open fence (same character, at least as long)."""
    return candidate[0] == fence[0] and len(candidate) >= len(fence)
