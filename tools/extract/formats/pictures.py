"""One page of a PDF, or one frame of a scan, as a JPEG a phone shows as a photo.

Runs only inside the isolated worker, like the parsers: a crafted PDF that makes PDFium loop or
allocate costs the worker, never the bot. The picture is bounded before anything is drawn: the
longest side is `max_side` pixels (a PDF page is drawn at that size, a scan is shrunk to it),
and a scan's size is checked from its header first (pixel bombs). Telegram takes a photo of at
most 10 MB, width plus height at most 10,000 and sides at most 20 to 1: a strip narrower
than that is padded with white, and an image that will not fit the byte cap is refused.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

from tools.extract.formats.base import FormatError
from tools.extract.formats.ocr import check_pixels

if TYPE_CHECKING:
    from PIL.Image import Image

LARGEST_SIDE = 2000
"""The most pixels on the longest side a request may ask for (Telegram shows photos at up to
2560 pixels, and a phone's screen is narrower)."""
MAX_RATIO = 20
MAX_PHOTO_BYTES = 5 * 1024 * 1024
"""Half of Telegram's 10 MB for photos: a page over it is noise, not text."""
_QUALITIES = (85, 60)


class NoPage(FormatError):
    """The document has fewer pages than asked for."""

    def __init__(self, pages: int) -> None:
        super().__init__(f"the document has {pages} page(s)")
        self.pages = pages


def page_picture(kind: str, data: bytes, page: int, max_side: int) -> bytes:
    """Page `page` (from 1) of a PDF or a scan, as JPEG bytes.

    Raises:
        NoPage: there is no such page.
        FormatError: the document is broken, protected, too large, or not paged.
    """
    if kind == "pdf":
        picture = _pdf_page(data, page, max_side)
    elif kind == "image":
        picture = _scan_frame(data, page, max_side)
    else:
        raise FormatError(f"a {kind} file has no pages to show")
    return _jpeg(_photo_shape(picture))


def _pdf_page(data: bytes, page: int, max_side: int) -> Image:
    import pypdfium2 as pdfium  # noqa: PLC0415  (imported only in the worker)

    try:
        document = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        raise FormatError(f"the PDF cannot be rendered ({exc})") from None
    try:
        pages = len(document)
        if not 1 <= page <= pages:
            raise NoPage(pages)
        try:
            drawn = document[page - 1]
        except pdfium.PdfiumError as exc:
            raise FormatError(f"the PDF's page {page} is damaged ({exc})") from None
        try:
            width, height = drawn.get_size()
            scale = max_side / max(width, height, 1.0)
            picture: Image = drawn.render(scale=scale, may_draw_forms=True).to_pil()
            return picture
        except pdfium.PdfiumError as exc:
            raise FormatError(f"the PDF's page {page} cannot be drawn ({exc})") from None
        finally:
            drawn.close()
    finally:
        document.close()


def _scan_frame(data: bytes, page: int, max_side: int) -> Image:
    from PIL import Image, UnidentifiedImageError  # noqa: PLC0415

    try:
        image = Image.open(io.BytesIO(data))
    except Image.DecompressionBombError:
        raise FormatError("the image is too large to show (a pixel bomb)") from None
    except (UnidentifiedImageError, OSError, ValueError) as exc:
        raise FormatError(f"the image is damaged ({type(exc).__name__})") from None
    with image:
        check_pixels(*image.size)
        frames = int(getattr(image, "n_frames", 1))
        if not 1 <= page <= frames:
            raise NoPage(frames)
        try:
            image.seek(page - 1)
            check_pixels(*image.size)
            frame = _flat(image)
        except (OSError, ValueError, EOFError) as exc:
            raise FormatError(f"the image is damaged ({type(exc).__name__})") from None
    frame.thumbnail((max_side, max_side))
    return frame


def _flat(frame: Image) -> Image:
    """Grey or colour without transparency (JPEG has none): see-through parts turn white."""
    from PIL import Image  # noqa: PLC0415

    if frame.mode in ("1", "L"):
        return frame.convert("L")
    if frame.mode in ("RGBA", "LA", "PA", "RGBa", "La") or "transparency" in frame.info:
        coloured = frame.convert("RGBA")
        white = Image.new("RGBA", coloured.size, "white")
        return Image.alpha_composite(white, coloured).convert("RGB")
    return frame.convert("RGB")


def _photo_shape(picture: Image) -> Image:
    """The picture padded with white to sides of at most 20 to 1, as Telegram requires."""
    from PIL import Image  # noqa: PLC0415

    picture = picture if picture.mode in ("L", "RGB") else _flat(picture)
    width, height = picture.size
    wide = max(width, -(-height // MAX_RATIO), 1)
    tall = max(height, -(-width // MAX_RATIO), 1)
    if (wide, tall) == (width, height):
        return picture
    canvas = Image.new(picture.mode, (wide, tall), "white")
    canvas.paste(picture, ((wide - width) // 2, (tall - height) // 2))
    return canvas


def _jpeg(picture: Image) -> bytes:
    for quality in _QUALITIES:
        out = io.BytesIO()
        picture.save(out, format="JPEG", quality=quality)
        if out.tell() <= MAX_PHOTO_BYTES:
            return out.getvalue()
    raise FormatError("the page is too detailed to send as a photo")
