"""Text folded for comparing a quote with a document: differences a reader would not call a
misquote are folded away on both sides, so "verbatim" means the same words in the same order.

Folded: letter case, ё/е, composed and decomposed letters, every run of white space (line
breaks too) to one space, table cell separators (` | `) to a space, every quote mark to `"`,
every dash to `-` with no space around it, and Markdown's marks (`*`, `_`, backticks, a
backslash escape) and invisible characters dropped. Kept: letters, digits, other punctuation,
and "…"/"...", which join the fragments of a quote (`bot.agent.quotes.verify`).

A folded text keeps the folded offset each of its lines starts at (`FoldedLines`), so a match
found in the folded text leads back to the line it came from.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

_QUOTES = "«»„“”‟\"'’‘‚‹›″′"
_DASHES = "‐‑‒–—―−"
_DROPPED = "*_`\\\u00ad\u200b\u200c\u200d\u2060\ufeff"
_REPLACED = (
    *((mark, '"') for mark in _QUOTES),
    *((dash, "-") for dash in _DASHES),
    *((mark, "") for mark in _DROPPED),
    ("ё", "е"),
    ("|", " "),
)
"""Each character and what it folds to. `str.replace` in turn is many times faster than
`str.translate` on Cyrillic text, and folding runs on every answer."""
_LINE_NUMBER = re.compile(r"^[ \t]*\d+\| ", re.MULTILINE)
"""The prefix `read_file` numbers each line with (`  12| `)."""


def fold(text: str) -> str:
    """`text` folded for comparison (see the module's docstring); one line of it or many."""
    return _spaces(_characters(text))


def _characters(text: str) -> str:
    """Case, composed letters, quote marks, dashes and dropped marks folded; spaces kept."""
    if not text.isascii() and not unicodedata.is_normalized("NFC", text):
        text = unicodedata.normalize("NFC", text)
    text = text.lower()
    for mark, folded in _REPLACED:
        if mark in text:
            text = text.replace(mark, folded)
    return text


def _spaces(text: str) -> str:
    """Every run of white space as one space, none at the ends or around a dash."""
    folded = " ".join(text.split())
    if "-" in folded:
        folded = folded.replace(" -", "-").replace("- ", "-")
    return folded


def without_line_numbers(text: str) -> str:
    """`text` without the line-number prefixes a model may have copied from `read_file`."""
    return _LINE_NUMBER.sub("", text)


@dataclass(frozen=True, slots=True)
class FoldedLines:
    """Lines folded and joined by a space, and where each line starts in the folded text.

    A line that folds to nothing (blank, or marks only) takes no room and has no start.
    """

    text: str
    starts: tuple[int, ...]
    """The folded offset each kept line starts at, in order."""
    kept: tuple[int, ...]
    """The index (in the lines given) of each kept line."""

    @classmethod
    def of(cls, lines: Sequence[str]) -> FoldedLines:
        parts: list[str] = []
        starts: list[int] = []
        kept: list[int] = []
        at = 0
        whole = _characters("\n".join(lines)).split("\n")  # folded at once: far faster
        for index, line in enumerate(whole):
            folded = _spaces(line)
            if not folded:
                continue
            if parts:
                at += 1  # the space joining it to the line before
            starts.append(at)
            kept.append(index)
            parts.append(folded)
            at += len(folded)
        return cls(" ".join(parts), tuple(starts), tuple(kept))

    def line_at(self, offset: int) -> int | None:
        """The index (in the lines given) of the line a folded offset lies in."""
        slot = bisect_right(self.starts, offset) - 1
        return self.kept[slot] if slot >= 0 else None
