"""Images (png, jpeg, tiff, webp): their text recognised by OCR, frame by frame.

The size is read from the header before anything is decoded, so a pixel bomb is refused
cheaply; a multi-page TIFF is recognised one frame at a time.
"""

from __future__ import annotations

import io

from tools.extract.formats.base import Budget, FormatError
from tools.extract.formats.ocr import Tesseract, check_pixels
from tools.extract.formats.ocrnote import NO_TEXT_RECOGNISED
from tools.extract.formats.scans import Recognition


def image_text(data: bytes, budget: Budget, engine: Tesseract | None = None) -> str:
    """Every frame's recognised text, each after a `--- page N ---` marker."""
    from PIL import Image, ImageSequence, UnidentifiedImageError  # noqa: PLC0415

    work = Recognition(budget, engine)
    try:
        image = Image.open(io.BytesIO(data))
    except Image.DecompressionBombError:
        raise FormatError("the image is too large to recognise (a pixel bomb)") from None
    except (UnidentifiedImageError, OSError, ValueError) as exc:
        raise FormatError(f"the image is damaged ({type(exc).__name__})") from None
    parts: list[str] = []
    found = False
    with image:
        check_pixels(*image.size)
        work.require()
        try:
            for number, frame in enumerate(ImageSequence.Iterator(image), start=1):
                stop = work.stop_before(number)
                if stop is not None:
                    parts.append(stop)
                    break
                check_pixels(*frame.size)
                text = work.page(frame.convert("L"))
                found = found or bool(text.strip())
                parts.append(f"--- page {number} ---\n{text}")
        except (OSError, ValueError, EOFError) as exc:
            if not parts:
                raise FormatError(f"the image is damaged ({type(exc).__name__})") from None
    if not found:
        raise FormatError(NO_TEXT_RECOGNISED)
    return "\n".join([work.note(), *parts])
