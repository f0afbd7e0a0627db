"""docx: paragraphs and tables in document order, table cells joined with ` | `.

python-docx opens the whole package, so the zip is checked for bombs first.
"""

from __future__ import annotations

import io
import zipfile

from tools.extract.formats.archive import check_zip
from tools.extract.formats.base import Budget, FormatError, Lines, plain


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
                lines.add(block.text)
            if lines.full:
                break
    except (KeyError, ValueError, zipfile.BadZipFile) as exc:
        raise FormatError(f"the docx file is damaged ({type(exc).__name__})") from None
    return lines.text()
