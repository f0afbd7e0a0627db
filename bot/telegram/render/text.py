"""Measures and escaping for text that goes to Telegram.

Telegram counts message length in UTF-16 code units and its HTML parse mode understands only
`&lt;`, `&gt;`, `&amp;` and `&quot;`, so these helpers are the single place that knows both.
"""

from __future__ import annotations

import unicodedata

_ZERO_WIDTH = frozenset("\u200b\u200c\u200d\u2060\ufe0e\ufe0f")


def utf16_len(text: str) -> int:
    """Length as Telegram counts it: UTF-16 code units (an emoji outside the BMP counts 2)."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def escape(text: str) -> str:
    """Escape plain text for Telegram's HTML parse mode."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def escape_attr(value: str) -> str:
    """Escape an attribute value that goes between double quotes."""
    return escape(value).replace('"', "&quot;")


def display_width(text: str) -> int:
    """Columns a string takes in a monospace grid: wide (CJK, most emoji) count 2, marks 0."""
    width = 0
    for char in text:
        if char in _ZERO_WIDTH or unicodedata.combining(char):
            continue
        width += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return width


def joins_previous(char: str) -> bool:
    """Whether a character belongs to the one before it, so a cut must not fall in between.

    Covers combining marks, zero-width joiners, variation selectors, skin-tone modifiers and
    emoji tag characters: cutting before any of them breaks a visible symbol in two.
    """
    return bool(
        unicodedata.combining(char)
        or char in _ZERO_WIDTH
        or "\U0001f3fb" <= char <= "\U0001f3ff"
        or "\U000e0020" <= char <= "\U000e007f"
        or "\ufe00" <= char <= "\ufe0f"
    )
