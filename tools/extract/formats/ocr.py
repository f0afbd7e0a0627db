"""Tesseract, run as a program on one page image at a time, in Russian and English.

The `tesseract` command is used through a subprocess with a timeout per page (no Python
wrapper: the program's TSV output is all that is needed): a page that hangs costs its own
seconds, never the worker. Runs only inside the isolated worker, whose
memory cap the child inherits. Whether Tesseract is usable (the program and its Russian data)
is asked once per document, so installing it later needs no code change.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
from typing import TYPE_CHECKING

from tools.extract.formats.base import FormatError

if TYPE_CHECKING:
    from PIL.Image import Image

LANGUAGES = "rus+eng"
MAX_PIXELS = 50_000_000
"""Images over this many pixels are refused before they are decoded (pixel bombs)."""
PAGE_SECONDS = 60.0
"""The longest one page may take to recognise."""
MIN_CONFIDENCE = 30.0
"""Words Tesseract is less sure of than this (0-100) are left out as noise."""
_LIST_SECONDS = 10.0
_TSV_COLUMNS = 12


def check_pixels(width: int, height: int) -> None:
    """Refuse an image too large to decode safely, from the size in its header."""
    if width * height > MAX_PIXELS:
        raise FormatError(
            f"the image is too large to recognise ({width}×{height} pixels, over "
            f"{MAX_PIXELS // 1_000_000} megapixels)"
        )


class Tesseract:
    """The OCR program; `command` names it (tests point it at a missing one)."""

    def __init__(self, command: str = "tesseract") -> None:
        self.command = command
        self._path: str | None = None
        self._known = False

    def _env(self) -> dict[str, str]:
        env = dict(os.environ)
        env["OMP_THREAD_LIMIT"] = "1"  # one page, one core: other users' reads keep theirs
        return env

    def available(self) -> bool:
        """Whether the program is installed with Russian and English language data."""
        if self._known:
            return self._path is not None
        self._known = True
        path = shutil.which(self.command)
        if path is None:
            return False
        try:
            listed = subprocess.run(
                [path, "--list-langs"],
                capture_output=True,
                timeout=_LIST_SECONDS,
                check=False,
                env=self._env(),
            )
        except (OSError, subprocess.TimeoutExpired):
            return False
        langs = set(listed.stdout.decode("utf-8", "replace").split())
        if {"rus", "eng"} <= langs:
            self._path = path
        return self._path is not None

    def recognise(self, page: Image, seconds: float) -> str:
        """The text on one page image, within `seconds` (at most PAGE_SECONDS)."""
        if not self.available() or self._path is None:
            raise FormatError("OCR is not available")
        buffer = io.BytesIO()
        page.save(buffer, format="PNG")
        try:
            done = subprocess.run(
                [self._path, "stdin", "stdout", "-l", LANGUAGES, "--psm", "3", "tsv"],
                input=buffer.getvalue(),
                capture_output=True,
                timeout=max(1.0, min(seconds, PAGE_SECONDS)),
                check=False,
                env=self._env(),
            )
        except subprocess.TimeoutExpired:
            return ""  # an illegible page: its neighbours still count
        except OSError as exc:
            raise FormatError(f"OCR could not run ({exc.strerror})") from None
        if done.returncode != 0:
            return ""
        return words_to_text(done.stdout.decode("utf-8", "replace"))


def words_to_text(tsv: str) -> str:
    """Lines of the words Tesseract is fairly sure of, from its TSV output; paragraphs apart.

    Specks and hairlines come back as confident-looking letters with near-zero confidence:
    dropping those keeps noise out of the index (a page of 1-pixel text reads as nothing).
    """
    lines: dict[tuple[str, str, str], list[str]] = {}
    for row in tsv.split("\n")[1:]:
        cells = row.split("\t")
        if len(cells) < _TSV_COLUMNS or not cells[11].strip():
            continue
        try:
            confidence = float(cells[10])
        except ValueError:
            continue
        if confidence >= MIN_CONFIDENCE:
            lines.setdefault((cells[2], cells[3], cells[4]), []).append(cells[11].strip())
    out: list[str] = []
    last: tuple[str, str] | None = None
    for (block, paragraph, _), words in lines.items():
        if last is not None and last != (block, paragraph):
            out.append("")
        out.append(" ".join(words))
        last = (block, paragraph)
    return "\n".join(out)
