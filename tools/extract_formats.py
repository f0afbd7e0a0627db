"""Text from the risky formats (PDF, docx), run only inside the isolated worker process.

Both parsers can be driven into huge memory use or very long runs by a crafted file, so they
never run in the bot's own process; see `tools.extract_worker`.
"""

from __future__ import annotations

import io
import zipfile

MAX_PDF_PAGES = 3_000
MAX_DOCX_UNPACKED = 200 * 1024 * 1024
MAX_DOCX_RATIO = 200
MAX_DOCX_MEMBERS = 10_000


class FormatError(Exception):
    """The document is broken, protected or dangerous; the message is safe to show."""


def pdf_text(data: bytes, max_chars: int) -> str:
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
            if number > MAX_PDF_PAGES or size > max_chars:
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


def check_zip(data: bytes) -> None:
    """Refuse zip bombs before a parser inflates anything."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError):
        raise FormatError("the docx file is damaged (not a zip archive)") from None
    if len(members) > MAX_DOCX_MEMBERS:
        raise FormatError("the docx file has too many parts")
    total = 0
    for info in members:
        total += info.file_size
        ratio = info.file_size / max(info.compress_size, 1)
        if info.file_size > 1024 * 1024 and ratio > MAX_DOCX_RATIO:
            raise FormatError("the docx file unpacks to far more than its size (zip bomb)")
    if total > MAX_DOCX_UNPACKED:
        raise FormatError("the docx file unpacks to more than 200 MB")


def docx_text(data: bytes, max_chars: int) -> str:
    """Paragraphs and tables in document order; table cells joined with ` | `."""
    check_zip(data)
    import docx  # noqa: PLC0415  (imported only in the worker)
    from docx.table import Table  # noqa: PLC0415

    try:
        document = docx.Document(io.BytesIO(data))
        lines: list[str] = []
        size = 0
        for block in document.iter_inner_content():
            if isinstance(block, Table):
                for row in block.rows:
                    cells: list[str] = []
                    previous = None
                    for cell in row.cells:
                        if previous is None or cell._tc is not previous._tc:
                            cells.append(" ".join(cell.text.split()))  # merged cells repeat
                        previous = cell
                    lines.append(" | ".join(cells))
            else:
                lines.append(block.text)
            size += len(lines[-1])
            if size > max_chars:
                break
    except (KeyError, ValueError, zipfile.BadZipFile) as exc:
        raise FormatError(f"the docx file is damaged ({type(exc).__name__})") from None
    return "\n".join(lines)
