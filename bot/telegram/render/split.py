"""Cutting rendered spans into parts that fit one Telegram message.

Every part must fit twice: its visible text (what Telegram counts after parsing entities) and
its HTML source (what the API limit is applied to in practice), both in UTF-16 code units. It
also holds at most 100 formatting entities, since Telegram silently drops the ones after that.
The longest prefix that fits is found by bisection (all three measures only grow with the
prefix), then the cut moves back to the best boundary in the second half of that prefix: a
blank line, then a line end, then a space. A word is cut only when no whitespace is left.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Sequence
from functools import partial
from itertools import accumulate

from bot.telegram.render.markup import Span, count_entities, to_html, to_plain
from bot.telegram.render.text import escape, joins_previous, utf16_len

MAX_ENTITIES = 100
_SEPARATORS = ("\n\n", "\n", " ")
_ZWJ = "\u200d"
_Predicate = Callable[[int], bool]


class _Document:
    """The visible text of all spans with a way to take any slice of it as spans again."""

    def __init__(self, spans: Sequence[Span]) -> None:
        self.spans = [span for span in spans if span.text]
        self.text = "".join(span.text for span in self.spans)
        self.starts = [0, *accumulate(len(span.text) for span in self.spans)][:-1]

    def slice(self, start: int, end: int) -> list[Span]:
        """Spans covering text[start:end]; a link's plain-text note goes where the link ends."""
        out: list[Span] = []
        index = max(bisect_right(self.starts, start) - 1, 0)
        while index < len(self.spans) and self.starts[index] < end:
            span = self.spans[index]
            offset = self.starts[index]
            span_end = offset + len(span.text)
            if span_end > start:
                text = span.text[max(start, offset) - offset : min(end, span_end) - offset]
                out.append(Span(text, span.tags, span.note if span_end <= end else ""))
            index += 1
        return out

    def span_end(self, position: int) -> int:
        """Where the span containing `position` ends."""
        index = bisect_right(self.starts, position) - 1
        return self.starts[index] + len(self.spans[index].text)

    def fits(self, start: int, end: int, limit: int) -> bool:
        spans = self.slice(start, end)
        return (
            utf16_len(to_plain(spans)) <= limit
            and count_entities(spans) <= MAX_ENTITIES
            and utf16_len(to_html(spans)) <= limit
        )


def split_spans(spans: Sequence[Span], limit: int) -> list[tuple[str, str]]:
    """Cut spans into (html, plain) parts, each within `limit` UTF-16 units in both forms."""
    document = _Document(spans)
    text = document.text
    parts: list[tuple[str, str]] = []
    start = 0
    while start < len(text):
        longest = min(len(text), start + limit)
        end = _longest_fit(start, longest, partial(document.fits, start, limit=limit))
        if end == start:
            end, part = _bare_part(text, start, min(document.span_end(start), longest), limit)
            if part[1].strip():
                parts.append(part)
            start = end
            continue
        cut, resume = (end, end) if end == len(text) else _cut_point(text, start, end)
        piece = document.slice(start, cut)
        if "".join(span.text for span in piece).strip():
            parts.append((to_html(piece), to_plain(piece)))
        start = resume
    return parts


def _longest_fit(start: int, stop_max: int, fits: _Predicate) -> int:
    """The largest end in [start, stop_max] with `fits(end)`; fits(start) holds trivially."""
    low, high = start, stop_max
    if fits(high):
        return high
    while high - low > 1:
        middle = (low + high) // 2
        if fits(middle):
            low = middle
        else:
            high = middle
    return low


def _cut_point(text: str, start: int, end: int) -> tuple[int, int]:
    """Where this part ends and where the next one begins (separator whitespace dropped)."""
    floor = start + (end - start) // 2
    found: list[tuple[int, str]] = []
    for separator in _SEPARATORS:
        at = text.rfind(separator, start + 1, end + len(separator))
        if at >= floor:
            return _trim(text, start, at), _skip(text, at, separator[0])
        if at > start:
            found.append((at, separator))
    if found:
        at, separator = max(found)
        return _trim(text, start, at), _skip(text, at, separator[0])
    cut = end
    while cut > start + 1 and _inside_symbol(text, start, cut):
        cut -= 1
    if cut == start + 1 and end > cut:
        cut = end
    return cut, cut


def _inside_symbol(text: str, start: int, cut: int) -> bool:
    """Whether cutting before text[cut] would break one visible symbol (emoji, flag, accent)."""
    if joins_previous(text[cut]) or text[cut - 1] == _ZWJ:
        return True
    if not _is_regional(text[cut]):
        return False
    run = 0
    while cut - run - 1 >= start and _is_regional(text[cut - run - 1]):
        run += 1
    return run % 2 == 1


def _is_regional(char: str) -> bool:
    """Regional indicator letters: two of them make one flag."""
    return "\U0001f1e6" <= char <= "\U0001f1ff"


def _trim(text: str, start: int, cut: int) -> int:
    while cut > start + 1 and text[cut - 1] == "\n":
        cut -= 1
    return cut


def _skip(text: str, at: int, char: str) -> int:
    while at < len(text) and text[at] == char:
        at += 1
    return at


def _bare_part(text: str, start: int, stop: int, limit: int) -> tuple[int, tuple[str, str]]:
    """Text up to `stop` without markup: for a span whose tags alone exceed the limit."""

    def fits(end: int) -> bool:
        return utf16_len(escape(text[start:end])) <= limit

    end = max(_longest_fit(start, stop, fits), start + 1)
    return end, (escape(text[start:end]), text[start:end])
