"""Sections: Word, OpenDocument and HTML documents extracted for real have `#` headings, their
passages and search snippets name the path of headings they lie under, and a heading inside a PDF
page is named with its page."""

from __future__ import annotations

import io
import zipfile
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.fakes.sandbox_fixtures import started_toolbox, tool_json
from tests.tools.placed_docs import word_file
from tests.tools.sectioned_docs import (
    LEAVE_PARAGRAPHS,
    SAFETY_PARAGRAPHS,
    TRIPS_PAGE,
    outline_odt,
    sectioned_files,
    write_sectioned,
)
from tools import Toolbox
from tools.extract.formats.base import Budget
from tools.extract.formats.odf import odt_text
from tools.extract.formats.word import docx_text
from tools.extract.htmltext import html_text
from tools.extract.places import Place
from tools.vectors.passages import cut_passages


class TestExtracted:
    def test_word_headings_keep_their_levels(self) -> None:
        text = docx_text(word_file(LEAVE_PARAGRAPHS), Budget(10_000))
        assert [line for line in text.split("\n") if line.startswith("#")] == [
            "# 4 Отпуск",
            "## 4.2 Ежегодный отпуск",
            "## Порядок оформления",
        ]

    def test_opendocument_headings_keep_their_outline_levels(self) -> None:
        text = odt_text(outline_odt(SAFETY_PARAGRAPHS), Budget(10_000))
        assert text.split("\n") == [
            "# 5 Охрана труда",
            "Раздел о безопасной работе.",
            "## 5.1 Инструктаж",
            "Вводный инструктаж проводится в первый день работы.",
            "### 5.1.1 Повторный инструктаж",
            "Повторный инструктаж проходят раз в полгода.",
        ]

    def test_an_opendocument_heading_without_a_level_or_too_deep_still_heads(self) -> None:
        text = odt_text(outline_odt([(12, "Глубоко"), (None, "Текст")]), Budget(10_000))
        assert text.split("\n") == ["###### Глубоко", "Текст"]
        bare = _odt_content("<text:h>Без уровня</text:h><text:p>Текст</text:p>")
        assert odt_text(bare, Budget(10_000)).split("\n") == ["# Без уровня", "Текст"]

    def test_a_heading_in_an_opendocument_table_cell_stays_a_cell(self) -> None:
        table = _odt_content(
            "<table:table><table:table-row><table:table-cell>"
            '<text:h text:outline-level="2">Срок</text:h></table:table-cell>'
            "<table:table-cell><text:p>год</text:p></table:table-cell>"
            "</table:table-row></table:table>"
        )
        assert odt_text(table, Budget(10_000)) == "Срок | год"

    def test_html_headings_become_markdown_headings(self) -> None:
        assert html_text(TRIPS_PAGE).split("\n") == [
            "Портал",
            "# Командировки",
            "Поездки согласует руководитель.",
            "## Суточные",
            "Суточные выплачиваются за каждый день поездки.",
        ]

    def test_an_empty_html_heading_adds_no_marks(self) -> None:
        assert html_text("<h2> </h2><p>Текст</p>") == "Текст"


class TestPassages:
    def test_word_passages_name_their_section_path(self) -> None:
        text = docx_text(word_file(LEAVE_PARAGRAPHS), Budget(10_000))
        places = {p.first: p.place for p in cut_passages("a.docx", text)}
        assert places == {
            1: Place("heading", section=("4 Отпуск",)),
            3: Place("heading", section=("4 Отпуск", "4.2 Ежегодный отпуск")),
            5: Place("heading", section=("4 Отпуск", "Порядок оформления")),
        }
        assert [str(place) for place in places.values()] == [
            "§ 4 Отпуск",
            "§ 4.2 Ежегодный отпуск",
            "§ 4 Отпуск > Порядок оформления",
        ]

    def test_opendocument_passages_name_their_section_path(self) -> None:
        text = odt_text(outline_odt(SAFETY_PARAGRAPHS), Budget(10_000))
        assert [str(p.place) for p in cut_passages("a.odt", text)] == [
            "§ 5 Охрана труда",
            "§ 5.1 Инструктаж",
            "§ 5.1.1 Повторный инструктаж",
        ]

    def test_html_passages_name_their_section_path(self) -> None:
        passages = cut_passages("a.html", html_text(TRIPS_PAGE))
        assert [(p.first, p.place) for p in passages] == [
            (1, None),
            (2, Place("heading", section=("Командировки",))),
            (4, Place("heading", section=("Командировки", "Суточные"))),
        ]
        assert passages[-1].text.startswith("## Суточные"), "the passage keeps its heading"


@pytest.fixture
async def sectioned_box(tmp_path: Path) -> AsyncIterator[Toolbox]:
    root = write_sectioned(tmp_path / "docs")
    async with started_toolbox(root, tmp_path / "data", within_s=60) as box:
        yield box


class TestSearchResults:
    @pytest.mark.parametrize(
        ("query", "path", "place"),
        [
            ("продолжительностью", "положения/отпуска.docx", "§ 4.2 Ежегодный отпуск"),
            ("кадровый портал", "положения/отпуска.docx", "§ 4 Отпуск > Порядок оформления"),
            ("выплачиваются", "портал/командировки.html", "§ Командировки > Суточные"),
            ("полгода", "положения/охрана.odt", "§ 5.1.1 Повторный инструктаж"),
            ("постоянный пропуск", "регламент.pdf", "§ 2.3 Пропуска, page 2"),
        ],
    )
    async def test_a_snippet_names_its_section(
        self, sectioned_box: Toolbox, query: str, path: str, place: str
    ) -> None:
        found = await tool_json(sectioned_box, "search_files", query=query)
        [hit] = [r for r in found["results"] if r["path"] == path]
        assert {s["place"] for s in hit["snippets"]} == {place}

    async def test_a_page_read_from_a_section_names_it(self, sectioned_box: Toolbox) -> None:
        page = await tool_json(sectioned_box, "read_file", path="регламент.pdf", offset=6)
        assert page["place"] == "§ 2.3 Пропуска, page 2"

    def test_the_files_are_the_ones_written(self) -> None:
        assert set(sectioned_files()) == {
            "положения/отпуска.docx",
            "положения/охрана.odt",
            "портал/командировки.html",
            "регламент.pdf",
        }


def _odt_content(body: str) -> bytes:
    """An odt whose text is `body`, its XML written by hand (what odfpy would not write)."""
    content = (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"'
        ' xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"'
        ' xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0">'
        f"<office:body><office:text>{body}</office:text></office:body>"
        "</office:document-content>"
    )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("mimetype", "application/vnd.oasis.opendocument.text")
        archive.writestr("content.xml", content)
    return buffer.getvalue()
