"""Places: one grammar for markers and headings, and the tools naming the place of what they
show (read_file's first line, each search snippet's line)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.fakes.sandbox_fixtures import started_toolbox, tool_json
from tests.tools.placed_docs import WORD_PARAGRAPHS, word_file, write_placed
from tools import Toolbox
from tools.extract.formats.base import Budget
from tools.extract.formats.word import docx_text
from tools.extract.places import (
    Place,
    Sections,
    heading_of,
    heading_place,
    marker_place,
    parse_place,
    place_at,
)


class TestGrammar:
    @pytest.mark.parametrize(
        ("place", "text"),
        [
            (Place("page", 12), "page 12"),
            (Place("sheet", name="Budget 2025"), "sheet «Budget 2025»"),
            (Place("slide", 4), "slide 4"),
            (Place("chapter", 3, "Title: part one"), "chapter 3: Title: part one"),
            (Place("chapter", 7), "chapter 7"),
            (Place("heading", section=("Отпуска",)), "§ Отпуска"),
            (Place("heading", section=("Отпуска", "Ежегодный")), "§ Отпуска > Ежегодный"),
            (Place("page", 12, section=("4.2 Отпуск",)), "§ 4.2 Отпуск, page 12"),
            (Place("chapter", 2, "Начало", ("Вступление",)), "§ Вступление, chapter 2: Начало"),
        ],
    )
    def test_text_form_and_back(self, place: Place, text: str) -> None:
        assert place.text == str(place) == text
        assert parse_place(text) == place

    def test_a_heading_that_names_its_paragraph_sign_keeps_one(self) -> None:
        assert Place("heading", section=("§ 3 Urlaub",)).text == "§ 3 Urlaub"
        assert parse_place("§ 3 Urlaub") == Place("heading", section=("3 Urlaub",))

    def test_the_form_written_before_paths_still_reads(self) -> None:
        assert parse_place("heading: Отпуска") == Place("heading", section=("Отпуска",))

    def test_a_numbered_heading_stands_for_its_parents(self) -> None:
        place = Place("heading", section=("Правила", "4 Отпуск", "4.2 Ежегодный отпуск"))
        assert place.text == "§ 4.2 Ежегодный отпуск"
        assert Place("heading", section=("4 Отпуск", "Порядок")).text == "§ 4 Отпуск > Порядок"
        assert Place("heading", section=("1. Цели",)).shown_section == ("1. Цели",)

    def test_only_the_last_two_levels_are_shown(self) -> None:
        place = Place("page", 3, section=("Книга", "Часть", "Глава", "Раздел"))
        assert place.text == "§ Глава > Раздел, page 3"
        assert parse_place(place.text) == Place("page", 3, section=("Глава", "Раздел"))

    def test_a_heading_with_commas_and_a_page_reads_back(self) -> None:
        place = Place("page", 5, section=("Сроки, порядок, page 9",))
        assert parse_place(place.text) == place

    def test_only_a_page_has_a_page_number(self) -> None:
        assert Place("page", 3).page == 3
        assert Place("page", 3, section=("Итоги",)).page == 3
        assert Place("slide", 3).page is None
        assert Place("chapter", 3).page is None
        assert Place("heading", section=("Итоги",)).page is None

    def test_a_long_name_is_cut_in_the_text_form(self) -> None:
        text = Place("heading", section=("Очень длинный заголовок " * 10,)).text
        assert len(text) < 60
        assert text.endswith("…")
        text = Place("page", 2, section=("Длинный раздел " * 10, "Длинный подраздел " * 10)).text
        assert len(text) < 120
        assert text.endswith("…, page 2")

    @pytest.mark.parametrize(
        "text", ["", "page", "page x", "страница 3", "sheet Budget", "§ ", "heading: "]
    )
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
        assert heading_of("## Отпуска ##") == (2, "Отпуска")
        assert heading_of("   # Итоги") == (1, "Итоги")
        assert heading_place("## Отпуска ##") == Place("heading", section=("Отпуска",))
        assert heading_of("#хэштег") is None
        assert heading_of("#") is None
        assert heading_of("    # code") is None


def _section(place: Place | None) -> tuple[str, ...]:
    return place.section if place is not None else ()


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

    def test_a_heading_inside_a_pdf_page_names_both(self) -> None:
        assert place_at(self.LINES, 4) == Place("page", 1, section=("Раздел внутри страницы",))
        assert str(place_at(self.LINES, 4)) == "§ Раздел внутри страницы, page 1"

    def test_the_next_page_starts_without_the_section(self) -> None:
        assert place_at(self.LINES, 6) == Place("page", 2)

    def test_without_a_marker_the_nearest_heading(self) -> None:
        lines = ["вступление", "# Первый", "a", "## Второй", "b"]
        assert place_at(lines, 1) is None
        assert place_at(lines, 3) == Place("heading", section=("Первый",))
        assert place_at(lines, 5) == Place("heading", section=("Первый", "Второй"))

    def test_markdown_nesting_is_the_path_of_enclosing_headings(self) -> None:
        lines = [
            "# Правила",
            "## Отпуск",
            "### Ежегодный",
            "28 дней",
            "### Учебный",
            "по справке",
            "## Командировки",
            "суточные",
            "#### Глубже, чем уровень выше",
            "текст",
        ]
        assert _section(place_at(lines, 4)) == ("Правила", "Отпуск", "Ежегодный")
        assert _section(place_at(lines, 6)) == ("Правила", "Отпуск", "Учебный")
        assert _section(place_at(lines, 8)) == ("Правила", "Командировки")
        assert _section(place_at(lines, 10)) == (
            "Правила",
            "Командировки",
            "Глубже, чем уровень выше",
        )
        assert str(place_at(lines, 6)) == "§ Отпуск > Учебный"

    def test_numbered_headings(self) -> None:
        lines = ["# 4 Отпуск", "## 4.2 Ежегодный", "28 дней", "## Порядок", "заявление"]
        assert str(place_at(lines, 3)) == "§ 4.2 Ежегодный"
        assert str(place_at(lines, 5)) == "§ 4 Отпуск > Порядок"

    def test_a_sheet_has_no_headings(self) -> None:
        lines = ["--- sheet «Штат» ---", "# | Отдел | Человек", "1 | Бухгалтерия | 4"]
        assert place_at(lines, 3) == Place("sheet", name="Штат")
        assert str(place_at(lines, 3)) == "sheet «Штат»"

    def test_outside_the_lines(self) -> None:
        assert place_at(self.LINES, 0) is None
        assert place_at(self.LINES, 99) == Place("page", 2)


class TestSections:
    def test_read_from_the_top_agrees_with_place_at(self) -> None:
        lines = [
            "# 4 Отпуск",
            "## 4.2 Ежегодный",
            "28 дней",
            "--- page 2 ---",
            "## Итоги",
            "текст",
            "--- sheet «Штат» ---",
            "# | Отдел",
        ]
        sections = Sections()
        for number, line in enumerate(lines, 1):
            sections.read(line)
            assert sections.place == place_at(lines, number), line

    def test_a_named_place_gives_way_to_the_next_heading(self) -> None:
        sections = Sections()
        sections.name(Place("page", 3, section=("Отпуск", "Ежегодный")))
        assert sections.read("текст") is None
        assert sections.place == Place("page", 3, section=("Отпуск", "Ежегодный"))
        sections.read("### Учебный")
        assert sections.place == Place("page", 3, section=("Учебный",))


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
    async with started_toolbox(root, tmp_path / "data", within_s=60) as box:
        yield box


class TestReadFilePlace:
    @pytest.mark.parametrize(
        ("path", "offset", "place"),
        [
            ("правила.pdf", 1, "page 1"),
            ("правила.pdf", 7, "page 2"),  # from the middle of page 2
            ("правила.pdf", 8, "page 3"),  # from the marker itself
            ("финансы/бюджет.xlsx", 7, "sheet «Штат»"),
            ("стратегия.pptx", 6, "slide 2"),
            ("hr/справочник.md", 12, "§ Справочник сотрудника > Удалённая работа"),
            ("hr/премии.docx", 4, "§ Положение о премировании > Размер премии"),
        ],
    )
    async def test_the_place_of_the_first_line(
        self, placed_box: Toolbox, path: str, offset: int, place: str
    ) -> None:
        page = await tool_json(placed_box, "read_file", path=path, offset=offset)
        assert page["start_line"] == offset
        assert page["place"] == place

    async def test_a_document_without_places_names_none(self, placed_box: Toolbox) -> None:
        page = await tool_json(placed_box, "read_file", path="памятка.txt")
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
            ("нетрудоспособности", "hr/справочник.md", 8, "§ Справочник сотрудника > Больничный"),
            ("квартальной", "hr/премии.docx", 4, "§ Положение о премировании > Размер премии"),
        ],
    )
    async def test_each_snippet_names_its_place(
        self, placed_box: Toolbox, query: str, path: str, line: int, place: str
    ) -> None:
        found = await tool_json(placed_box, "search_files", query=query)
        [hit] = [r for r in found["results"] if r["path"] == path]
        [snippet] = [s for s in hit["snippets"] if s["line"] == line]
        assert snippet["place"] == place

    async def test_a_snippet_of_a_document_without_places_has_none(
        self, placed_box: Toolbox
    ) -> None:
        found = await tool_json(placed_box, "search_files", query="гостевой")
        [hit] = found["results"]
        assert hit["snippets"] == [{"line": 2, "text": hit["snippets"][0]["text"]}]
