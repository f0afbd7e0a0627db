"""docx: paragraphs and tables in document order, table cells joined with ` | `; headings as
Markdown `#` lines, so a Word document has places (`tools.extract.places`) like a Markdown one.

python-docx opens the whole package, so the zip is checked for bombs first.
"""

from __future__ import annotations

import io
import re
import zipfile
from typing import Any

from tools.extract.formats.archive import check_zip
from tools.extract.formats.base import Budget, FormatError, Lines, plain

_HEADING_STYLE = re.compile(r"(?:heading|заголовок)\s*(?P<level>[1-9])", re.IGNORECASE)


def heading_level(paragraph: Any) -> int | None:
    """The level of a heading paragraph (its style "Heading N", or a localized "Заголовок N"),
    None for any other paragraph."""
    try:
        name = paragraph.style.name if paragraph.style is not None else None
    except (KeyError, ValueError):  # a style the package names but does not define
        return None
    found = _HEADING_STYLE.fullmatch(name.strip()) if isinstance(name, str) else None
    return min(int(found["level"]), 6) if found else None


def docx_text(data: bytes, budget: Budget) -> str:
    """Paragraphs and tables in document order; table cells joined with ` | `."""
    check_zip(data, "docx")
    import docx  # noqa: PLC0415  (imported only in the worker)
    from docx.table import Table  # noqa: PLC0415

    lines = Lines(budget.max_chars)
    try:
        document = docx.Document(io.BytesIO(data))
        for block in document.iter_inner_content():
            if isinstance(block, Table):
                for row in block.rows:
                    cells: list[str] = []
                    previous = None
                    for cell in row.cells:
                        if previous is None or cell._tc is not previous._tc:
                            cells.append(plain(cell.text))  # merged cells repeat
                        previous = cell
                    lines.add(" | ".join(cells))
            else:
                level = heading_level(block)
                text = block.text
                lines.add(f"{'#' * level} {plain(text)}" if level and text.strip() else text)
            if lines.full:
                break
    except (KeyError, ValueError, zipfile.BadZipFile) as exc:
        raise FormatError(f"the docx file is damaged ({type(exc).__name__})") from None
    return lines.text()
