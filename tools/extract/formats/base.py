"""What every parser shares: its error, its budget, and a collector of lines that stops early.

A parser turns a document's bytes into text within a budget of characters and seconds; a
broken, protected or dangerous document is a `FormatError` whose message is safe to show.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


class FormatError(Exception):
    """The document is broken, protected or dangerous; the message is safe to show."""


@dataclass(frozen=True)
class Budget:
    """How much one document may cost: characters of text kept, and seconds of work (the
    parent enforces the deadline; a parser that runs another program uses it as that
    program's time limit)."""

    max_chars: int
    seconds: float = 30.0
    extended: bool = False
    """The long deadline a scan gets for the index: a parser out of time stops and says where,
    instead of asking for it (`Unfinished`)."""


class Unfinished(FormatError):
    """The work needs longer than the usual deadline (a long scan): the index asks again with
    the extended one, so a reader asking later succeeds (not a verdict on the file)."""


Parser = Callable[[bytes, Budget], str]
"""Bytes of one document in, its text out (or a `FormatError`)."""


class Lines:
    """The lines of a document's text, gathered until a little past the character budget.

    Parsers stop as soon as `full` is true; the text then runs slightly over the budget and
    the parent's normalisation cuts it there and says so.
    """

    def __init__(self, max_chars: int) -> None:
        self.max_chars = max_chars
        self._lines: list[str] = []
        self._size = 0

    def add(self, line: str) -> None:
        self._lines.append(line)
        self._size += len(line) + 1

    @property
    def full(self) -> bool:
        return self._size > self.max_chars

    @property
    def room(self) -> int:
        """Characters left before the budget is reached."""
        return self.max_chars - self._size

    @property
    def count(self) -> int:
        return len(self._lines)

    def text(self) -> str:
        return "\n".join(self._lines)


def plain(value: str) -> str:
    """Text of one cell or field on one line: runs of white space (newlines too) as one space."""
    return " ".join(value.split())


def cut_note(what: str) -> str:
    """The line that says where and why a document's text stops early."""
    return f"--- text cut here: {what} ---"
