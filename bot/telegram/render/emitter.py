"""A writer of styled spans that knows about blocks, line prefixes and block spacing.

Block containers (quotes, code blocks) push tags that wrap everything written inside them,
newlines and indentation included, so a code block stays one `<pre>` however it is indented.
List items push a line prefix: the bullet on their first line, matching indentation after.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from bot.telegram.render.markup import Span, Tag, merge_neighbours


@dataclass(slots=True)
class _Prefix:
    indent: str
    marker: str | None


class Emitter:
    """Collects spans; blank lines between blocks are requested, then written lazily.

    Lazy spacing means no leading or doubled blank lines, and a separator requested before a
    quote or code block is written outside of it.
    """

    def __init__(self) -> None:
        self._spans: list[Span] = []
        self._block: list[Tag] = []
        self._prefixes: list[_Prefix] = []
        self._pending_newlines = 0
        self._trailing_newlines = 0
        self._line_open = False

    @property
    def block_tags(self) -> tuple[Tag, ...]:
        return tuple(self._block)

    def write(self, spans: Iterable[Span]) -> None:
        """Write inline spans; newlines in them start new (prefixed) lines."""
        for span in spans:
            pieces = span.text.split("\n")
            for index, piece in enumerate(pieces):
                if index:
                    self._newline()
                if piece:
                    self._begin_line()
                    note = span.note if index == len(pieces) - 1 else ""
                    self._append(Span(piece, (*self._block, *span.tags), note))

    def request_break(self, newlines: int) -> None:
        """Ask for the next block to start after `newlines` line breaks (1 or 2)."""
        self._pending_newlines = max(self._pending_newlines, newlines)

    def push_tag(self, tag: Tag) -> None:
        self._flush_break()
        self._block.append(tag)

    def pop_tag(self) -> None:
        self._block.pop()

    def push_prefix(self, marker: str | None = None, indent: str | None = None) -> None:
        """Prefix the following lines: `marker` once, then `indent` (spaces as wide by default)."""
        if indent is None:
            indent = " " * len(marker or "")
        self._prefixes.append(_Prefix(indent, marker))

    def pop_prefix(self) -> None:
        if self._prefixes[-1].marker is not None:
            self._begin_line()
        self._prefixes.pop()

    def spans(self) -> list[Span]:
        """The written spans, merged, without leading blank lines or trailing blank space."""
        spans = merge_neighbours(self._spans)
        while spans and not spans[0].text.strip("\n"):
            spans.pop(0)
        while spans and not spans[-1].text.strip():
            spans.pop()
        if spans:
            last = spans[-1]
            spans[-1] = Span(last.text.rstrip(), last.tags, last.note)
        return spans

    def _begin_line(self) -> None:
        self._flush_break()
        if self._line_open:
            return
        self._line_open = True
        prefix = "".join(self._take(prefix) for prefix in self._prefixes)
        if prefix:
            self._append(Span(prefix, tuple(self._block)))

    def _flush_break(self) -> None:
        if self._spans:
            for _ in range(self._pending_newlines - self._trailing_newlines):
                self._newline()
        self._pending_newlines = 0

    def _newline(self) -> None:
        self._append(Span("\n", tuple(self._block)))
        self._line_open = False

    def _append(self, span: Span) -> None:
        if span.text == "\n":
            self._trailing_newlines += 1
        else:
            self._trailing_newlines = 0
        self._spans.append(span)

    @staticmethod
    def _take(prefix: _Prefix) -> str:
        if prefix.marker is None:
            return prefix.indent
        marker, prefix.marker = prefix.marker, None
        return marker
