"""Documents whose sections nest: a Word file and an OpenDocument text with numbered headings,
an HTML page with `<h1>` and `<h2>`, a PDF with a heading inside a page. Tests of section places
(the tools, the passages, the quotes in Telegram) read the same files."""

from __future__ import annotations

import io
from pathlib import Path

from tests.fakes.sandbox_fixtures import write_files
from tests.tools.docgen import text_pdf
from tests.tools.placed_docs import word_file

LEAVE_DOCX = "положения/отпуска.docx"
LEAVE_PARAGRAPHS: list[tuple[str | None, str]] = [
    ("Heading 1", "4 Отпуск"),
    (None, "Раздел о видах отпуска."),
    ("Heading 2", "4.2 Ежегодный отпуск"),
    (None, "Ежегодный отпуск предоставляется продолжительностью 28 календарных дней."),
    ("Heading 2", "Порядок оформления"),
    (None, "Заявление подаётся через кадровый портал."),
]
SAFETY_ODT = "положения/охрана.odt"
SAFETY_PARAGRAPHS: list[tuple[int | None, str]] = [
    (1, "5 Охрана труда"),
    (None, "Раздел о безопасной работе."),
    (2, "5.1 Инструктаж"),
    (None, "Вводный инструктаж проводится в первый день работы."),
    (3, "5.1.1 Повторный инструктаж"),
    (None, "Повторный инструктаж проходят раз в полгода."),
]
TRIPS_HTML = "портал/командировки.html"
TRIPS_PAGE = (
    "<html><head><title>Портал</title></head><body>"
    "<h1>Командировки</h1><p>Поездки согласует руководитель.</p>"
    "<h2>Суточные</h2><p>Суточные выплачиваются за каждый день поездки.</p>"
    "</body></html>"
)
ACCESS_PDF = "регламент.pdf"
ACCESS_PAGES = [
    ["Регламент доступа", "Общие положения о доступе в здание."],
    ["## 2.3 Пропуска", "Постоянный пропуск выдаётся сроком на один год."],
]


def sectioned_files() -> dict[str, bytes]:
    """The files by relative path."""
    return {
        LEAVE_DOCX: word_file(LEAVE_PARAGRAPHS),
        SAFETY_ODT: outline_odt(SAFETY_PARAGRAPHS),
        TRIPS_HTML: TRIPS_PAGE.encode(),
        ACCESS_PDF: text_pdf(ACCESS_PAGES),
    }


def write_sectioned(root: Path) -> Path:
    """The folder written under `root`; returns `root`."""
    return write_files(root, sectioned_files())


def outline_odt(paragraphs: list[tuple[int | None, str]]) -> bytes:
    """An odt of paragraphs, each a heading of its outline level (`text:h`) or, with None, a
    plain paragraph, as LibreOffice writes them."""
    from odf.opendocument import OpenDocumentText  # noqa: PLC0415
    from odf.text import H, P  # noqa: PLC0415

    document = OpenDocumentText()
    for level, text in paragraphs:
        paragraph = P(text=text) if level is None else H(outlinelevel=level, text=text)
        document.text.addElement(paragraph)
    buffer = io.BytesIO()
    document.write(buffer)
    return buffer.getvalue()
