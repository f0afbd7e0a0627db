"""Recognising a scan page by page within the worker's deadline, for images and PDFs alike.

Every document first gets the usual deadline: a scan too long for it is `Unfinished`. The
index then asks again with an extended (bounded) deadline, in the background, and caches the
text; a waiting reader is told to come back. Under the extended deadline the text stops at its
end or at MAX_OCR_PAGES, and says where it was cut.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from tools.extract.formats.base import Budget, FormatError, Unfinished, cut_note
from tools.extract.formats.ocr import Tesseract
from tools.extract.formats.ocrnote import NEEDS_OCR, STILL_RECOGNISING, ocr_note

if TYPE_CHECKING:
    from PIL.Image import Image

MAX_OCR_PAGES = 300
_SPARE_SHARE = 0.15
"""Part of the deadline kept back to send the reply before the parent gives up."""
_MIN_PAGE_SECONDS = 3.0


class Recognition:
    """The pages of one scan recognised so far, and the time left for more."""

    def __init__(
        self, budget: Budget, engine: Tesseract | None = None, started: float | None = None
    ) -> None:
        """`started` is when the document's deadline began (monotonic), if before now."""
        self.budget = budget
        self.engine = engine if engine is not None else Tesseract()
        begun = time.monotonic() if started is None else started
        self._deadline = begun + budget.seconds * (1 - _SPARE_SHARE)
        self.pages = 0
        self.chars = 0

    def require(self) -> None:
        """Raise the 'needs OCR' verdict unless Tesseract is usable."""
        if not self.engine.available():
            raise FormatError(NEEDS_OCR)

    def stop_before(self, number: int) -> str | None:
        """None to go on with page `number`; else the note where the text stops (or
        `Unfinished` when a reader is waiting and the scan needs longer)."""
        if self.pages >= MAX_OCR_PAGES:
            return cut_note(f"only the first {MAX_OCR_PAGES} scanned pages are recognised")
        if self.chars > self.budget.max_chars:
            return cut_note(f"the character limit was reached after page {number - 1}")
        if self._deadline - time.monotonic() >= _MIN_PAGE_SECONDS:
            return None
        if not self.budget.extended:
            raise Unfinished(STILL_RECOGNISING)
        return cut_note(f"the time for recognising ran out after page {number - 1}")

    def page(self, image: Image) -> str:
        """The text of one page image, counted."""
        text = self.engine.recognise(image, self._deadline - time.monotonic())
        self.pages += 1
        self.chars += len(text)
        return text

    def note(self) -> str:
        """The first line of the document's text: it was recognised, and on how many pages."""
        return ocr_note(self.pages)
