"""PDF: the text layer of each page, after a `--- page N ---` marker; pages without one (scans)
recognised by OCR.

pypdf can be driven into huge memory use or very long runs by a crafted file, so this runs
only in the isolated worker. Only pages without a text layer are rendered (by PDFium, one page
at a time, at about 300 dpi) and recognised; the others keep their own text.
"""

from __future__ import annotations

import io
import time

from tools.extract.formats.base import Budget, FormatError
from tools.extract.formats.ocr import MAX_PIXELS, Tesseract, check_pixels
from tools.extract.formats.ocrnote import NEEDS_OCR, NO_TEXT_RECOGNISED
from tools.extract.formats.scans import Recognition

MAX_PDF_PAGES = 3_000
DPI = 300
_POINTS_PER_INCH = 72


def _text_layer(data: bytes, budget: Budget) -> tuple[list[str | None], bool]:
    """Each page's text (None for a page without a text layer), and whether it was cut."""
    from pypdf import PdfReader  # noqa: PLC0415  (imported only in the worker)
    from pypdf.errors import PdfReadError  # noqa: PLC0415

    pages: list[str | None] = []
    size = 0
    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted and not reader.decrypt(""):
            raise FormatError("the PDF is password-protected")
        for number, page in enumerate(reader.pages, start=1):
            if number > MAX_PDF_PAGES or size > budget.max_chars:
                return pages, True
            text = (page.extract_text() or "").strip()
            pages.append(text or None)
            size += len(text)
    except (PdfReadError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise FormatError(f"the PDF is damaged ({type(exc).__name__})") from None
    return pages, False


def _recognise(
    data: bytes, pages: list[str | None], work: Recognition
) -> tuple[dict[int, str], str | None]:
    """OCR of the pages without a text layer (0-based index → text), and a cut note."""
    import pypdfium2 as pdfium  # noqa: PLC0415

    found: dict[int, str] = {}
    try:
        document = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        raise FormatError(f"the PDF cannot be rendered ({exc})") from None
    try:
        for index, text in enumerate(pages):
            if text is not None:
                continue
            stop = work.stop_before(index + 1)
            if stop is not None:
                return found, stop
            page = document[index]
            try:
                width, height = page.get_size()
                area = max(width * height, 1.0)  # a huge page is rendered smaller, not refused
                scale = min(DPI / _POINTS_PER_INCH, (MAX_PIXELS / area) ** 0.5)
                check_pixels(int(width * scale), int(height * scale))
                image = page.render(scale=scale, grayscale=True).to_pil()
            finally:
                page.close()
            found[index] = work.page(image)
            del image
    finally:
        document.close()
    return found, None


def pdf_text(data: bytes, budget: Budget, engine: Tesseract | None = None) -> str:
    """Every page's text, each after a `--- page N ---` marker; scanned pages recognised."""
    started = time.monotonic()
    pages, cut = _text_layer(data, budget)
    if not pages:
        raise FormatError("the PDF has no pages")
    blank = sum(1 for text in pages if text is None)
    recognised: dict[int, str] = {}
    stop: str | None = None
    work = Recognition(budget, engine, started)
    ocr = blank > 0 and work.engine.available()
    if blank and blank == len(pages) and not ocr:
        raise FormatError(NEEDS_OCR)
    if ocr:
        recognised, stop = _recognise(data, pages, work)
        legible = any(text.strip() for text in recognised.values())
        if blank == len(pages) and not legible and stop is None:
            raise FormatError(NO_TEXT_RECOGNISED)
    parts = [work.note()] if ocr else []
    for index, layer in enumerate(pages):
        text = layer
        if text is None:
            text = recognised.get(index, "") if ocr else f"[{NEEDS_OCR}]"
        parts.append(f"--- page {index + 1} ---\n{text}")
    if stop is not None:
        parts.append(stop)
    if cut:
        parts.append(f"--- text cut after page {len(pages)} ---")
    return "\n".join(parts)
