"""The line that marks text recognised from a scan, read back by the bot's own process.

A parser that ran OCR puts this line first, so the text carries its origin through the worker
reply, the cache and the index; `read_file` then tells the model the text may contain errors,
and an admin's upload reply says how many pages were recognised. Imported by both sides, so it
must stay free of parser libraries.
"""

from __future__ import annotations

import re

NEEDS_OCR = "this is a scan: its text needs OCR, which is not installed here"
"""The verdict on a scan where Tesseract (with Russian) is missing."""
NO_TEXT_RECOGNISED = "no text recognised in this scan (OCR found nothing legible)"
STILL_RECOGNISING = "this scan is still being recognised (OCR)"

_NOTE = "[text recognised from a scan (OCR) on {pages} {word}; it may contain errors]"
_NOTE_PATTERN = re.compile(
    r"^\[text recognised from a scan \(OCR\) on (\d+) pages?; it may contain errors\]$"
)


def ocr_note(pages: int) -> str:
    """The first line of a text that OCR produced, `pages` of it recognised."""
    return _NOTE.format(pages=pages, word="page" if pages == 1 else "pages")


def ocr_pages(first_line: str) -> int | None:
    """Pages recognised, from a document's first line; None when it was not OCR'd."""
    found = _NOTE_PATTERN.match(first_line)
    return int(found.group(1)) if found else None
