"""Snippets: the lines of a document where the query words occur, with their numbers and, in a
document that has them, their places (page, sheet, slide, chapter, heading)."""

from __future__ import annotations

import re
from typing import Any

from tools.extract.places import place_at
from tools.index.terms import fold

SNIPPETS = 2
SNIPPET_CHARS = 160


Hits = dict[int, tuple[set[str], int]]


def _collect(text: str, pattern: re.Pattern[str], wanted: int, max_hits: int) -> tuple[Hits, bool]:
    """Lines with query words (the words found, the first column); and whether the scan
    stopped early (two lines hold every word, or enough hits were seen)."""
    folded = fold(text[:3_000_000])
    hits: Hits = {}
    line, last, full = 1, 0, 0
    for count, m in enumerate(pattern.finditer(folded)):
        if count >= max_hits:
            return hits, True
        line += folded.count("\n", last, m.start())
        last = m.start()
        found, _ = hits.setdefault(line, (set(), m.start() - folded.rfind("\n", 0, last) - 1))
        before = len(found)
        found.add(m.lastgroup or "")
        if len(found) == wanted and before < wanted:
            full += 1
            if full >= SNIPPETS:
                return hits, True
    return hits, False


def find_snippets(
    text: str, pattern: re.Pattern[str], wanted: int, max_hits: int = 60
) -> list[dict[str, Any]]:
    """Up to two lines where the query words occur, preferring lines with more of them.

    Stops early once two lines hold every word, so long documents cost little.
    """
    if not text:
        return []
    hits, _ = _collect(text, pattern, wanted, max_hits)
    return _render(text, hits)


def snippets_from_start(
    start: str, pattern: re.Pattern[str], wanted: int, max_hits: int = 60
) -> list[dict[str, Any]] | None:
    """The snippets `find_snippets` would give for the whole document, decided from its
    start alone, or None when the start is not enough (then scan the whole text)."""
    hits, stopped = _collect(start, pattern, wanted, max_hits)
    if not stopped or max(hits) >= start.count("\n") + 1:
        return None  # the words may lie further on, or the last line is cut
    return _render(start, hits)


def _render(text: str, hits: Hits) -> list[dict[str, Any]]:
    if not hits:
        return []
    best = sorted(hits.items(), key=lambda item: (-len(item[1][0]), item[0]))[:SNIPPETS]
    lines = text.split("\n", max(n for n, _ in best))
    snippets = []
    for number, (_, col) in sorted(best):
        source = lines[number - 1] if number - 1 < len(lines) else ""
        start = max(0, min(col - SNIPPET_CHARS // 3, len(source) - SNIPPET_CHARS))
        piece = source[start : start + SNIPPET_CHARS].strip()
        if start > 0:
            piece = "…" + piece
        if start + SNIPPET_CHARS < len(source):
            piece += "…"
        snippet: dict[str, Any] = {"line": number, "text": piece}
        place = place_at(lines, number)
        if place is not None:
            snippet["place"] = place.text
        snippets.append(snippet)
    return snippets
