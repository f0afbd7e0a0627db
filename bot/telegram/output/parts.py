"""One message's worth of what the bot says: Telegram HTML and the same text without markup.

Every sender (the final delivery, the display of an answer being written, the source files)
takes parts in this shape, so a part Telegram cannot parse can be resent as plain text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html import unescape
from typing import Protocol


class Renderable(Protocol):
    """One message's worth of answer: Telegram HTML and the same text without markup."""

    @property
    def html(self) -> str: ...

    @property
    def plain(self) -> str: ...


@dataclass(frozen=True, slots=True)
class Chunk:
    """A part built from the bot's own texts (which are short and valid HTML)."""

    html: str
    plain: str

    @classmethod
    def from_html(cls, html: str) -> Chunk:
        """Derive the plain fallback by dropping tags from our own simple markup."""
        return cls(html=html, plain=unescape(re.sub(r"<[^>]+>", "", html)))
