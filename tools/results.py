"""What a tool call gives back: the text the model reads, and what callers need to know of it.

Callers never parse the text to learn whether a call failed or which document it read: the
result says so. A page shown as a picture rides beside the text (`PagePicture`): a tool
message carries text only, so the caller shows the picture in a message of its own. The tool
that made a result also knows its shape, so the result itself knows how to shrink to a
character budget (a page loses lines from its end, a list loses items).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from tools.cutting import cut_longest_field, cut_result
from tools.jsontext import to_json

Cutter = Callable[[Mapping[str, Any], int], str]
"""Cuts a payload of one known shape to at most a number of characters, as JSON text."""


@dataclass(frozen=True, slots=True)
class PagePicture:
    """A page of a document drawn as a JPEG, for a model that takes pictures."""

    path: str
    page: int
    data: bytes = field(repr=False)
    width: int
    height: int
    mime: str = "image/jpeg"


@dataclass(frozen=True, slots=True)
class ToolResult:
    """One call's outcome.

    `text`: the JSON text the model reads. `error`: the message it got, when the call failed.
    `source`: the document a successful read read (an answer's sources are these).
    `hits`: how many documents a search found; None for anything but a search.
    `picture`: the page a read showed as a picture besides its text (read_file's `picture`).
    """

    text: str
    error: str | None = None
    source: str | None = None
    hits: int | None = None
    picture: PagePicture | None = None
    cut: Callable[[int], str] | None = field(default=None, repr=False, compare=False)

    def shrink(self, cap: int) -> str:
        """The text itself within `cap` characters, else a shorter valid-JSON version of it.

        May still exceed `cap` when not even the frame of the result fits; callers measure.
        """
        if len(self.text) <= cap:
            return self.text
        return self.cut(cap) if self.cut is not None else cut_result(self.text, cap)

    @classmethod
    def of(
        cls,
        payload: Mapping[str, Any],
        cutter: Cutter,
        *,
        source: str | None = None,
        hits: int | None = None,
        picture: PagePicture | None = None,
    ) -> ToolResult:
        """A successful result of a known shape."""
        text = to_json(payload)
        return cls(text, source=source, hits=hits, picture=picture, cut=_reading(cutter, text))

    @classmethod
    def failed(cls, message: str, hint: str) -> ToolResult:
        """A result that tells the model what went wrong and what to do instead."""
        text = to_json({"error": message, "hint": hint})
        return cls(text, error=message, cut=_reading(cut_longest_field, text))


def _reading(cutter: Cutter, text: str) -> Callable[[int], str]:
    """`cutter` on the payload `text` was written from, read back from the text when a cut is
    asked for. A result lives as long as its turn and most are never cut: holding the payload
    beside its text would keep a page's document twice for every chat that waits."""
    return partial(_cut_read, cutter, text)


def _cut_read(cutter: Cutter, text: str, cap: int) -> str:
    return cutter(json.loads(text), cap)
