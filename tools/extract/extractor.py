"""Text from one document, by format, normalised into lines the tools can number and page.

Plain formats are handled here in the calling thread; PDF, office files, e-books and e-mails go
to the isolated worker (`tools.extract.formats` says which route a file name takes).
Every path out of here is bounded: file size, characters kept and line length.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import stat
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tools.errors import ContentError, ExtractionError
from tools.extract.encodings import decode_bytes
from tools.extract.formats.kinds import OCR_KINDS, SUPPORTED, in_worker, kind_of
from tools.extract.htmltext import html_text
from tools.extract.isolated import IsolatedExtractor, StillWorking

MAX_TEXT_CHARS = 10_000_000
OCR_DEADLINE = 900.0
"""Seconds the index's worker may spend on a scan that the usual deadline was too short for
(OCR runs about a page a second or two): other documents wait that long at most, and readers
never, having a worker of their own."""
WRAP_AT = 1_000
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")
_BLANK_RUNS = re.compile(r"\n{4,}")


@dataclass(frozen=True)
class Limits:
    """How much one document may cost to read."""

    max_file_bytes: int = 50 * 1024 * 1024
    max_chars: int = MAX_TEXT_CHARS
    timeout: float = 30.0


def _wrap(line: str) -> list[str]:
    """Split an over-long line near a space so a page never has to cut a line."""
    pieces: list[str] = []
    start, end = 0, len(line)
    while end - start > WRAP_AT:
        cut = line.rfind(" ", start + WRAP_AT // 2, start + WRAP_AT)
        cut = start + WRAP_AT if cut < 0 else cut + 1
        pieces.append(line[start:cut])
        start = cut
    pieces.append(line[start:])
    return pieces


def normalise(text: str, max_chars: int = MAX_TEXT_CHARS) -> str:
    """Composed Unicode, Unix newlines, no control characters, bounded lines and size."""
    cut = len(text) > max_chars
    text = text[:max_chars]
    if not unicodedata.is_normalized("NFC", text):
        text = unicodedata.normalize("NFC", text)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _CONTROL.sub("", text)
    text = _BLANK_RUNS.sub("\n\n\n", text).strip("\n")
    if any(len(line) > WRAP_AT for line in text.split("\n")):
        text = "\n".join(piece for line in text.split("\n") for piece in _wrap(line))
    if cut:
        text += f"\n[… the text is cut here: only the first {max_chars:,} characters are read]"
    return text


def json_text(raw: str) -> str:
    """Pretty-printed JSON (readable line by line); invalid JSON stays as it was written."""
    try:
        return json.dumps(json.loads(raw), ensure_ascii=False, indent=2)
    except (ValueError, RecursionError):
        return raw


def _opened_inside(fd: int, root: Path | None) -> bool:
    """Whether the open file really lies inside `root` (a folder swapped for a link between
    the jail's check and the open would lead elsewhere). Unknowable without /proc: True."""
    if root is None or not os.path.isdir("/proc/self/fd"):
        return True
    try:
        real = Path(os.path.realpath(f"/proc/self/fd/{fd}"))
    except OSError:
        return False
    return real == root or real.is_relative_to(root)


def read_bytes(path: Path, limits: Limits, root: Path | None = None) -> bytes:
    """The bytes of a regular file, refusing folders, devices, FIFOs and over-size files,
    and (given `root`) a file that turns out, once open, to lie outside it."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except IsADirectoryError:
        raise ExtractionError("this is a folder, not a file", "Use list_files on it.") from None
    except FileNotFoundError:
        raise ExtractionError("the file disappeared while being read") from None
    except PermissionError:
        raise ExtractionError("permission to read this file is denied") from None
    except OSError as exc:
        raise ExtractionError(f"the file cannot be opened ({exc.strerror})") from None
    with os.fdopen(fd, "rb") as handle:
        if not _opened_inside(handle.fileno(), root):
            raise ExtractionError("the file lies outside the documents folder")
        info = os.fstat(handle.fileno())
        if stat.S_ISDIR(info.st_mode):
            raise ExtractionError("this is a folder, not a file", "Use list_files on it.")
        if not stat.S_ISREG(info.st_mode):
            raise ExtractionError("this is not a regular file (a device, pipe or socket)")
        if info.st_size > limits.max_file_bytes:
            raise too_large(info.st_size, limits)
        try:
            data = handle.read(limits.max_file_bytes + 1)
        except OSError as exc:
            raise ExtractionError(f"the file cannot be read ({exc.strerror})") from None
    if len(data) > limits.max_file_bytes:
        raise too_large(len(data), limits)
    return data


def too_large(size: int, limits: Limits) -> ContentError:
    """The error for a file over MAX_FILE_MB."""
    return ContentError(
        f"the file is {size / 1048576:.1f} MB, over the {limits.max_file_bytes / 1048576:g} MB"
        " limit for reading",
        "Ask an admin to split it or to raise MAX_FILE_MB.",
    )


class Extractor:
    """Turns any supported document into normalised text."""

    def __init__(
        self, limits: Limits, worker: Sequence[str] | None = None, root: Path | None = None
    ) -> None:
        self.limits = limits
        self.root = root
        self.worker = None if worker is None else tuple(worker)
        """The parser process's argv after the interpreter (None: the usual worker)."""
        # Two workers: a document being indexed in the background never makes a reader wait.
        self._isolated = IsolatedExtractor(limits.timeout, worker)
        self._background = IsolatedExtractor(limits.timeout, worker)
        self._count = itertools.count()
        self.count = 0

    def _counted(self) -> None:
        self.count = next(self._count) + 1

    def extract(self, path: Path, *, background: bool = False) -> str:
        """Text of the document at a real path already checked by the jail (blocking).

        `background` marks work for the index, done by its own worker process. Every file
        gets the usual deadline first (a hostile file costs no more than before); a scan that
        needs longer then gets OCR_DEADLINE in the background, while a waiting reader is told
        to come back (`StillWorking`).
        """
        self._counted()
        kind = kind_of(path)
        if kind == "unsupported":
            raise ContentError(
                f"'{path.suffix.lower()}' files are not supported",
                f"Supported: {SUPPORTED}.",
            )
        data = read_bytes(path, self.limits, self.root)
        if in_worker(kind):
            worker = self._background if background else self._isolated
            try:
                text = worker.extract(kind, data, self.limits.max_chars, str(path))
            except StillWorking:
                if not (background and kind in OCR_KINDS):
                    raise
                seconds = max(self.limits.timeout, OCR_DEADLINE)
                text = worker.extract(
                    kind, data, self.limits.max_chars, str(path), seconds=seconds, extended=True
                )
        else:
            raw = decode_bytes(data)
            if kind == "html":
                text = html_text(raw)
            elif kind == "json":
                text = json_text(raw)
            else:
                text = raw
        return normalise(text, self.limits.max_chars)

    def close(self) -> None:
        """Stop the worker processes."""
        self._isolated.close()
        self._background.close()
