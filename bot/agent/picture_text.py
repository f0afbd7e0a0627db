"""The text in pictures, read by Tesseract: what a model that takes no images is sent.

It uses the same OCR as scanned documents (`tools.extract.formats.images`), on a worker thread,
one picture at a time; a picture with no legible text, or a machine without Tesseract, gives a
line that says so instead of failing the question.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

from bot.agent.pictures import Picture

logger = logging.getLogger(__name__)

_MAX_CHARS = 6_000
"""Text kept from one picture: a page of a contract fits, a poster of fine print is cut."""
_SECONDS = 60.0

NOTHING_LEGIBLE = "[no legible text in the picture]"
NO_OCR = "[the picture could not be read: OCR (Tesseract) is not installed]"


async def read_pictures(pictures: Sequence[Picture]) -> list[str]:
    """Each picture's text as OCR reads it, in order (off the event loop)."""
    return await asyncio.to_thread(lambda: [_read(p) for p in pictures])


def _read(picture: Picture) -> str:
    from tools.extract.formats.base import Budget, FormatError  # noqa: PLC0415 - Pillow
    from tools.extract.formats.images import image_text  # noqa: PLC0415
    from tools.extract.formats.ocrnote import NEEDS_OCR, ocr_pages  # noqa: PLC0415
    from tools.extract.places import marker_place  # noqa: PLC0415

    try:
        text = image_text(picture.data, Budget(max_chars=_MAX_CHARS, seconds=_SECONDS))
    except FormatError as exc:
        if NEEDS_OCR in str(exc):
            logger.warning("a picture could not be read as text: Tesseract is not installed")
            return NO_OCR
        return NOTHING_LEGIBLE
    lines = [  # the words alone: no page markers, no "recognised by OCR" note
        line
        for line in text.splitlines()
        if marker_place(line) is None and ocr_pages(line) is None
    ]
    return "\n".join(lines).strip()[:_MAX_CHARS] or NOTHING_LEGIBLE
