"""IMAP FETCH replies read as values: atoms, quoted strings, literals, NIL and nested lists.

aioimaplib splits a reply into text lines and literals but leaves the data unread, and a
BODYSTRUCTURE is a nested s-expression (RFC 3501 section 4) whose strings may come as quoted
strings or as `{n}` literals (`~{n}` for RFC 3516's binary ones). The reply is rejoined as it
came over the wire and read by the grammar: an atom is a `str` (a section like
`BODY[HEADER.FIELDS (SUBJECT)]` is one atom, brackets and all), a string is `bytes`, NIL is
None, a parenthesised list is a `list`. Untagged replies other than FETCH (EXISTS, EXPUNGE,
OK with a text) are skipped, since their free text need not follow the grammar.
"""

from __future__ import annotations

import re
from typing import Any, TypeAlias

Value: TypeAlias = "str | bytes | None | list[Value]"

MAX_DEPTH = 64
"""Lists nested deeper than this are refused: a reply is read recursively."""
_FETCH = re.compile(rb"(?:\* )?\d+ FETCH \(", re.IGNORECASE)
_LITERAL = re.compile(rb"~?\{(\d+)\+?\}\r\n")
_ATOM_END = frozenset(b' ()"\r\n')


class WireError(ValueError):
    """The reply does not follow the grammar (or is cut short)."""


def rejoined(lines: list[Any]) -> bytes:
    """aioimaplib's lines as the server sent them: each text line ended by CRLF, each literal
    (a `bytearray`, after the line announcing it) as it is."""
    return b"".join(
        bytes(line) if isinstance(line, bytearray) else bytes(line) + b"\r\n" for line in lines
    )


def fetched(lines: list[Any]) -> list[dict[str, Value]]:
    """Every FETCH reply among `lines`, as its items by upper-cased name (`UID`,
    `BODYSTRUCTURE`, `BODY[HEADER.FIELDS (SUBJECT)]`).

    Raises:
        WireError: a FETCH reply that cannot be read.
    """
    reader = _Reader(rejoined(lines))
    found: list[dict[str, Value]] = []
    while not reader.done():
        if not _FETCH.match(reader.data, reader.pos):
            reader.skip_line()
            continue
        reader.pos = reader.data.index(b"(", reader.pos)
        items = reader.value(0)
        reader.end_of_line()
        if not isinstance(items, list) or len(items) % 2:
            raise WireError("a FETCH reply is not a list of names and values")
        record: dict[str, Value] = {}
        for name, value in zip(items[::2], items[1::2], strict=True):
            if not isinstance(name, str):
                raise WireError("a FETCH item has no name")
            record[name.upper()] = value
        found.append(record)
    return found


def parse(data: bytes) -> Value:
    """One value, the whole of `data` (for tests and for a value kept as text).

    Raises:
        WireError: `data` is not one value.
    """
    reader = _Reader(data)
    value = reader.value(0)
    if not reader.done():
        raise WireError("more follows the value")
    return value


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def done(self) -> bool:
        return self.pos >= len(self.data)

    def skip_line(self) -> None:
        end = self.data.find(b"\r\n", self.pos)
        self.pos = len(self.data) if end < 0 else end + 2

    def end_of_line(self) -> None:
        if self.data.startswith(b"\r\n", self.pos):
            self.pos += 2
        elif not self.done():
            raise WireError("a FETCH reply goes on after its list")

    def value(self, depth: int) -> Value:
        if self.done():
            raise WireError("the reply is cut short")
        char = self.data[self.pos]
        if char == ord("("):
            return self._list(depth + 1)
        if char == ord('"'):
            return self._quoted()
        literal = _LITERAL.match(self.data, self.pos)
        if literal is not None:
            start = literal.end()
            end = start + int(literal.group(1))
            if end > len(self.data):
                raise WireError("a literal is cut short")
            self.pos = end
            return self.data[start:end]
        return self._atom()

    def _list(self, depth: int) -> list[Value]:
        if depth > MAX_DEPTH:
            raise WireError("lists nested too deep")
        self.pos += 1
        items: list[Value] = []
        while True:
            if self.done():
                raise WireError("a list is cut short")
            char = self.data[self.pos]
            if char == ord(")"):
                self.pos += 1
                return items
            if char == ord(" "):
                self.pos += 1
                continue
            items.append(self.value(depth))

    def _quoted(self) -> bytes:
        out = bytearray()
        pos = self.pos + 1
        data = self.data
        while pos < len(data):
            char = data[pos]
            if char == ord("\\") and pos + 1 < len(data):
                out.append(data[pos + 1])
                pos += 2
                continue
            if char == ord('"'):
                self.pos = pos + 1
                return bytes(out)
            if char in (ord("\r"), ord("\n")):
                break
            out.append(char)
            pos += 1
        raise WireError("a quoted string is cut short")

    def _atom(self) -> str | None:
        """An atom up to a space, a paren or a line's end; `[...]` (a section) is read whole."""
        start = pos = self.pos
        data = self.data
        while pos < len(data) and data[pos] not in _ATOM_END:
            if data[pos] == ord("["):
                close = data.find(b"]", pos)
                if close < 0:
                    raise WireError("a section is cut short")
                pos = close
            pos += 1
        if pos == start:
            raise WireError(f"unexpected {data[pos : pos + 1]!r}")
        self.pos = pos
        atom = data[start:pos].decode("latin-1")
        return None if atom.upper() == "NIL" else atom
