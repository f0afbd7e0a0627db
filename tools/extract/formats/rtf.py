"""RTF documents, through striprtf: the text without control words, pictures or fonts.

RTF is 7-bit text whose non-ASCII letters are escapes decoded by the document's own code page
(`\\ansicpg1251` for Russian); the rare raw 8-bit byte is read in that code page too.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable

from tools.extract.formats.base import Budget, FormatError, Lines

_CODE_PAGE = re.compile(rb"\\ansicpg(\d{3,5})")
_HEADER_WITHIN = 64


def rtf_text(data: bytes, budget: Budget) -> str:
    """The document's text, one paragraph a line."""
    if b"{\\rtf" not in data[:_HEADER_WITHIN]:
        raise FormatError("the rtf file is damaged (no RTF header)")
    from striprtf.striprtf import rtf_to_text  # noqa: PLC0415  (imported only in the worker)

    convert: Callable[..., str] = rtf_to_text  # the library's function has no annotations
    encoding = _encoding(data)
    text = convert(data.decode(encoding, errors="replace"), encoding, errors="replace")
    lines = Lines(budget.max_chars)
    for line in text.splitlines():
        lines.add(line.rstrip())
        if lines.full:
            break
    return lines.text()


def _encoding(data: bytes) -> str:
    """The code page the header names, where Python knows it; Windows Latin otherwise."""
    found = _CODE_PAGE.search(data[:4096])
    if found is not None:
        name = f"cp{found.group(1).decode('ascii')}"
        try:
            codecs.lookup(name)
        except LookupError:
            return "cp1252"
        return name
    return "cp1252"
