"""Checking an answer's quotes against the documents the tools showed in the conversation.

A blockquote is found when its text, folded (`bot.agent.quotes.folding`), occurs in the folded text
of one document the tools showed (`bot.agent.quotes.evidence`). Allowed, because a careful reader
would not call them misquotes:

- "…" or "..." joining fragments that each occur verbatim, in the same order, in the same
  document (each fragment at least `MIN_FRAGMENT` letters or digits, so a scrap such as "и"
  cannot stitch a sentence together); a blank line inside the quote joins fragments the same
  way;
- a quote running across a line break or a page break (the marker between pages is not text);
- quote marks around the whole quote, and after them a short attribution (`«…» — file.pdf`);
  without quote marks, a dash or bracket followed by a document's name to the end of the
  quote (`… (file.pdf, p. 2)`); a last line that begins with a dash or "Source:": each is an
  attribution, not quoted text;
- the edges of a fragment need not match their punctuation (a quote ending in "." where the
  sentence goes on).

A fragment must start and end at word boundaries where its first or last character is a letter
or digit: "8 дней" is not found in "28 дней".

Not checked, and so not returned: a blockquote with no letters or digits, and one that holds
nothing but a file name or path (a model naming its source in a quote).

The evidence is folded and indexed once per call, as one text with a separator between runs of
lines; each fragment is then looked up with `str.find` bounded by its document, so the cost is
one pass over the evidence plus a few lookups per quote.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.agent.quotes.blockquotes import find_blockquotes
from bot.agent.quotes.evidence import Evidence, EvidenceLine, ReadResult, read_results
from bot.agent.quotes.folding import FoldedLines, fold, without_line_numbers
from tools.extract.places import Place

MIN_FRAGMENT = 4
"""Letters and digits a fragment joined by "…" needs at least."""
MAX_TRIES = 200
"""Occurrences of a quote's first fragment tried before giving up on it."""
_SEPARATOR = "\x00"
_ELLIPSIS = re.compile(r"…|\.{3,}")
_EDGES = " \"'.,;:!?()[]-"
_ATTRIBUTION_LINE = re.compile(r"(?:[—–―]|--|(?:источник|source)\s*:)", re.IGNORECASE)
_QUOTED_WITH_TAIL = re.compile(r'"(?P<inner>.+)"\s*(?:[-(,].{0,120})?')
_SOURCE_TAIL = re.compile(
    r"\s*[-(,][^-(]{0,120}\.(?:pdf|docx?|xlsx?|pptx?|odt|ods|odp|rtf|epub|md|txt|csv|html?|eml)"
    r"\b[^-(]{0,40}$"
)
"""A dash or bracket, then a document's name to the end: an attribution after the quote."""
_FILE_NAME = re.compile(r"[^\s/\\]*(?:[/\\][^/\\]+)*\.[a-zа-я0-9]{1,5}")
_WORD = re.compile(r"\w", re.UNICODE)


@dataclass(frozen=True, slots=True)
class QuoteCheck:
    """One blockquote of an answer and what the check found.

    `text`: the quote as written (`>` markers removed); `start`/`end`: its span in the answer,
    its `>` lines included; `found`: whether the documents hold it; when found, the document
    (`path`), the line it starts on and that line's `place` (None in a document without
    places).
    """

    text: str
    start: int
    end: int
    found: bool
    path: str | None = None
    line: int | None = None
    place: Place | None = None


@dataclass(frozen=True, slots=True)
class _Match:
    path: str
    line: EvidenceLine


class _Index:
    """The folded evidence as one text: runs of lines joined by spaces, a separator between
    runs, each document's runs side by side."""

    def __init__(self, evidence: Evidence) -> None:
        parts: list[str] = []
        self.bases: list[int] = []
        self.runs: list[tuple[FoldedLines, list[EvidenceLine], int]] = []
        self.document_ends: list[int] = []
        self.paths: list[str] = []
        at = 0
        for number, doc in enumerate(evidence.documents.values()):
            for run in doc.runs():
                folded = FoldedLines.of([line.text for line in run])
                if not folded.text:
                    continue
                self.bases.append(at)
                self.runs.append((folded, run, number))
                parts.append(folded.text)
                at += len(folded.text) + 1
            self.document_ends.append(at)
            self.paths.append(doc.path)
        self.text = _SEPARATOR.join(parts)
        self.names = frozenset(
            fold(name) for path in evidence.paths for name in (path, path.rsplit("/", 1)[-1])
        )

    def find(self, fragments: Sequence[str]) -> _Match | None:
        """Where the fragments occur in order within one document, the first such place."""
        first, rest = fragments[0], fragments[1:]
        at = 0
        for _ in range(MAX_TRIES):
            start = self._word_find(first, at, len(self.text))
            if start < 0:
                return None
            slot = bisect_right(self.bases, start) - 1
            folded, run, document = self.runs[slot]
            end = self.document_ends[document]
            if self._in_order(rest, start + len(first), end):
                index = folded.line_at(start - self.bases[slot])
                return _Match(self.paths[document], run[index or 0])
            # A later start in this document leaves the rest less room: try the next one.
            at = end
        return None

    def _in_order(self, fragments: Sequence[str], at: int, end: int) -> bool:
        for fragment in fragments:
            found = self._word_find(fragment, at, end)
            if found < 0:
                return False
            at = found + len(fragment)
        return True

    def _word_find(self, fragment: str, at: int, end: int) -> int:
        """The first occurrence in [at, end) that starts and ends on word boundaries."""
        text = self.text
        while True:
            found = text.find(fragment, at, end)
            if found < 0:
                return -1
            after = found + len(fragment)
            if not (
                (found > 0 and _joins(text[found - 1], fragment[0]))
                or (after < len(text) and _joins(fragment[-1], text[after]))
            ):
                return found
            at = found + 1


def _joins(left: str, right: str) -> bool:
    """Whether two neighbouring characters belong to one word."""
    return left.isalnum() and right.isalnum()


def check_quotes(
    answer: str, messages: Sequence[Mapping[str, Any]], *, read: Sequence[ReadResult] = ()
) -> list[QuoteCheck]:
    """Every blockquote of `answer` worth checking, and whether the tool results of
    `messages`, then those already `read`, hold it (see the module's docstring for what counts
    as found). `messages` are parsed only when the answer quotes something."""
    quotes = find_blockquotes(answer)
    if not quotes:
        return []
    index = _Index(Evidence.from_results([*read_results(messages), *read]))
    checks: list[QuoteCheck] = []
    for quote in quotes:
        fragments = quote_fragments(quote.text)
        if not fragments or _names_a_file(fragments, index.names):
            continue
        match = None
        if len(fragments) == 1 or all(_letters(f) >= MIN_FRAGMENT for f in fragments):
            match = index.find(fragments)
        checks.append(
            QuoteCheck(
                quote.text,
                quote.start,
                quote.end,
                found=match is not None,
                path=match.path if match else None,
                line=match.line.number if match else None,
                place=match.line.place if match else None,
            )
        )
    return checks


def quote_fragments(text: str) -> list[str]:
    """The folded fragments a quote's text must match, in order (empty: nothing to check)."""
    lines = without_line_numbers(text).split("\n")
    filled = [i for i, line in enumerate(lines) if line.strip()]
    if len(filled) > 1 and _ATTRIBUTION_LINE.match(lines[filled[-1]].strip()):
        lines = lines[: filled[-1]]
    fragments: list[str] = []
    for paragraph in re.split(r"\n\s*\n", "\n".join(lines)):
        folded = fold(paragraph)
        quoted = _QUOTED_WITH_TAIL.fullmatch(folded)
        folded = quoted["inner"] if quoted is not None else _SOURCE_TAIL.sub("", folded)
        for piece in _ELLIPSIS.split(folded):
            fragment = piece.strip(_EDGES)
            if _WORD.search(fragment):
                fragments.append(fragment)
    return fragments


def _names_a_file(fragments: Sequence[str], names: frozenset[str]) -> bool:
    """Whether a quote is only a file's name or path (one the tools showed, or any)."""
    if len(fragments) != 1:
        return False
    only = fragments[0]
    return only in names or _FILE_NAME.fullmatch(only) is not None


def _letters(fragment: str) -> int:
    return sum(1 for ch in fragment if ch.isalnum())
