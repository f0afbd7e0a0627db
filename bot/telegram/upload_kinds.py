"""Which uploads the bot can read, decided the way the reader decides, before a file is kept.

A file the reader would refuse (an `.exe`, or bytes that are not text under a name the reader
takes for text) is searchable never, so an upload of one is refused instead of kept with "no
text could be extracted". The kinds named to the admin come from the formats' own table
(`tools.extract.formats.kinds`), so a new format shows up here by itself. An admin can still
put any file into the documents folder by hand.
"""

from __future__ import annotations

from pathlib import Path

from tools.errors import ContentError
from tools.extract.encodings import detect_encoding
from tools.extract.formats.kinds import HTML_SUFFIXES, WORKER_KINDS, kind_of

_SNIFF_BYTES = 64 * 1024


def readable_suffixes() -> list[str]:
    """The file name endings the reader has a format for (plain text aside), sorted."""
    return sorted({s.lstrip(".") for s in (*WORKER_KINDS, *HTML_SUFFIXES, ".json")})


def readable_by_name(name: str) -> bool:
    """Whether a file so named is of a kind the reader reads (its contents aside)."""
    return kind_of(Path(name)) != "unsupported"


def needs_text_check(name: str) -> bool:
    """Whether the reader takes a file so named for plain text, which its bytes must bear out."""
    return kind_of(Path(name)) == "text"


def reads_as_text(path: Path) -> bool:
    """Whether the head of the file decodes as the reader would decode it (blocking)."""
    with path.open("rb") as file:
        head = file.read(_SNIFF_BYTES)
    try:
        detect_encoding(head)
    except ContentError:
        return False
    return True
