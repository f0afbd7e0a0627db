"""PDF: the text layer of each page, after a `--- page N ---` marker.

pypdf can be driven into huge memory use or very long runs by a crafted file, so this runs
only in the isolated worker. A PDF without a text layer (a scan) is an error for now: OCR
would slot in here as another parser for the same kind.
"""

from __future__ import annotations

import io

from tools.formats.base import Budget, FormatError

MAX_PDF_PAGES = 3_000


def pdf_text(data: bytes, budget: Budget) -> str:
    """Every page's text, each after a `--- page N ---` marker."""
    from pypdf import PdfReader  # noqa: PLC0415  (imported only in the worker)
    from pypdf.errors import PdfReadError  # noqa: PLC0415

    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted and not reader.decrypt(""):
            raise FormatError("the PDF is password-protected")
        parts: list[str] = []
        size = 0
        for number, page in enumerate(reader.pages, start=1):
            if number > MAX_PDF_PAGES or size > budget.max_chars:
                parts.append(f"--- text cut after page {number - 1} ---")
                break
            text = page.extract_text() or ""
            parts.append(f"--- page {number} ---\n{text.strip()}")
            size += len(text)
    except (PdfReadError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise FormatError(f"the PDF is damaged ({type(exc).__name__})") from None
    text = "\n".join(parts)
    if not text.replace("--- page", "").strip(" -0123456789\n"):
        raise FormatError("the PDF has no text layer (scanned images only)")
    return text
