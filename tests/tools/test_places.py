"""Places: one grammar for markers and headings, and the tools naming the place of what they
show (read_file's first line, each search snippet's line)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tests.tools.placed_docs import WORD_PARAGRAPHS, word_file, write_placed
from tools import Toolbox
from tools.config import ToolSettings
from tools.extract.formats.base import Budget
from tools.extract.formats.word import docx_text
from tools.extract.places import Place, heading_place, marker_place, parse_place, place_at


class TestGrammar:
    @pytest.mark.parametrize(
        ("place", "text"),
        [
            (Place("page", 12), "page 12"),
            (Place("sheet", name="Budget 2025"), "sheet «Budget 2025»"),
            (Place("slide", 4), "slide 4"),
            (Place("chapter", 3, "Title: part one"), "chapter 3: Title: part one"),
            (Place("chapter", 7), "chapter 7"),
            (Place("heading", name="Отпуска"), "heading: Отпуска"),
        ],
    )
    def test_text_form_and_back(self, place: Place, text: str) -> None:
        assert place.text == str(place) == text
        assert parse_place(text) == place

    def test_only_a_page_has_a_page_number(self) -> None:
        assert Place("page", 3).page == 3
        assert Place("slide", 3).page is None
        assert Place("chapter", 3).page is None

    def test_a_long_name_is_cut_in_the_text_form(self) -> None:
        text = Place("heading", name="Очень длинный заголовок " * 10).text
        assert len(text) < 100
        assert text.endswith("…")

    @pytest.mark.parametrize("text", ["", "page", "page x", "страница 3", "sheet Budget"])
    def test_anything_else_is_no_place(self, text: str) -> None:
        assert parse_place(text) is None

    def test_marker_lines(self) -> None:
        assert marker_place("--- page 3 ---") == Place("page", 3)
        assert marker_place("--- sheet «Итоги» ---") == Place("sheet", name="Итоги")
        assert marker_place("--- slide 10 ---") == Place("slide", 10)
        assert marker_place("--- chapter 2: Начало ---") == Place("chapter", 2, "Начало")
        assert marker_place("--- text cut here: too long ---") is None
        assert marker_place("page 3") is None

    def test_heading_lines(self) -> None:
        assert heading_place("## Отпуска ##") == Place("heading", name="Отпуска")
        assert heading_place("   # Итоги") == Place("heading", name="Итоги")
        assert heading_place("#хэштег") is None
        assert heading_place("#") is None
        assert heading_place("    # code") is None


class TestPlaceAt:
    LINES = (
        "# Отчёт",
        "--- page 1 ---",
        "# Раздел внутри страницы",
        "текст",
        "--- page 2 ---",
        "ещё текст",
    )

    def test_the_nearest_marker_at_or_above(self) -> None:
        assert place_at(self.LINES, 2) == Place("page", 1)
        assert place_at(self.LINES, 6) == Place("page", 2)
        assert place_at(self.LINES, 5) == Place("page", 2)

    def test_a_marker_outranks_a_heading_below_it(self) -> None:
        assert place_at(self.LINES, 4) == Place("page", 1)

    def test_without_a_marker_the_nearest_heading(self) -> None:
        lines = ["вступление", "# Первый", "a", "## Второй", "b"]
        assert place_at(lines, 1) is None
        assert place_at(lines, 3) == Place("heading", name="Первый")
        assert place_at(lines, 5) == Place("heading", name="Второй")

    def test_outside_the_lines(self) -> None:
        assert place_at(self.LINES, 0) is None
        assert place_at(self.LINES, 99) == Place("page", 2)


class TestWordHeadings:
    def test_heading_styles_become_markdown_headings(self) -> None:
        text = docx_text(word_file(WORD_PARAGRAPHS), Budget(10_000))
        assert text.split("\n") == [
            "# Положение о премировании",
            "Премия выплачивается ежеквартально.",
            "## Размер премии",
            "Размер квартальной премии составляет до двадцати процентов оклада.",
        ]

    def test_an_empty_heading_adds_no_marks(self) -> None:
        text = docx_text(word_file([("Heading 2", ""), (None, "Текст")]), Budget(10_000))
        assert text.split("\n") == ["", "Текст"]


@pytest.fixture
async def placed_box(tmp_path: Path) -> AsyncIterator[Toolbox]:
    root = write_placed(tmp_path / "docs")
    box = Toolbox(ToolSettings(sandbox_dir=root, data_dir=tmp_path / "data"), watch_interval=0.2)
    await box.start()
    await asyncio.wait_for(box.wait_ready(), 60)
    yield box
    await box.close()


async def call(box: Toolbox, tool: str, **arguments: Any) -> dict[str, Any]:
    result: dict[str, Any] = json.loads((await box.execute(tool, arguments)).text)
    return result


class TestReadFilePlace:
    @pytest.mark.parametrize(
        ("path", "offset", "place"),
        [
            ("правила.pdf", 1, "page 1"),
            ("правила.pdf", 7, "page 2"),  # from the middle of page 2
            ("правила.pdf", 8, "page 3"),  # from the marker itself
            ("финансы/бюджет.xlsx", 7, "sheet «Штат»"),
            ("стратегия.pptx", 6, "slide 2"),
            ("hr/справочник.md", 12, "heading: Удалённая работа"),
            ("hr/премии.docx", 4, "heading: Размер премии"),
        ],
    )
    async def test_the_place_of_the_first_line(
        self, placed_box: Toolbox, path: str, offset: int, place: str
    ) -> None:
        page = await call(placed_box, "read_file", path=path, offset=offset)
        assert page["start_line"] == offset
        assert page["place"] == place

    async def test_a_document_without_places_names_none(self, placed_box: Toolbox) -> None:
        page = await call(placed_box, "read_file", path="памятка.txt")
        assert "place" not in page
        assert "Пароль" in page["document"]


class TestSnippetPlace:
    @pytest.mark.parametrize(
        ("query", "path", "line", "place"),
        [
            ("оплачиваемый", "правила.pdf", 6, "page 2"),
            ("авансовому", "правила.pdf", 10, "page 3"),
            ("персонала", "финансы/бюджет.xlsx", 4, "sheet «Бюджет»"),
            ("Казани", "стратегия.pptx", 6, "slide 2"),
            ("нетрудоспособности", "hr/справочник.md", 8, "heading: Больничный"),
            ("квартальной", "hr/премии.docx", 4, "heading: Размер премии"),
        ],
    )
    async def test_each_snippet_names_its_place(
        self, placed_box: Toolbox, query: str, path: str, line: int, place: str
    ) -> None:
        found = await call(placed_box, "search_files", query=query)
        [hit] = [r for r in found["results"] if r["path"] == path]
        [snippet] = [s for s in hit["snippets"] if s["line"] == line]
        assert snippet["place"] == place

    async def test_a_snippet_of_a_document_without_places_has_none(
        self, placed_box: Toolbox
    ) -> None:
        found = await call(placed_box, "search_files", query="гостевой")
        [hit] = found["results"]
        assert hit["snippets"] == [{"line": 2, "text": hit["snippets"][0]["text"]}]
