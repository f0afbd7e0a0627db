"""check_quotes over real tool results: true quotes found with their place whatever harmless
differences they carry, invented ones never found."""

from __future__ import annotations

from typing import Any

import pytest

from bot.agent.quotes.verify import QuoteCheck, check_quotes
from tools.extract.places import Place


def only(answer: str, messages: list[Any]) -> QuoteCheck:
    [check] = check_quotes(answer, messages)
    return check


class TestTrueQuotes:
    @pytest.mark.parametrize(
        "quote",
        [
            "Ежегодный оплачиваемый отпуск составляет 28 календарных дней.",
            "ЕЖЕГОДНЫЙ ОПЛАЧИВАЕМЫЙ отпуск составляет 28 календарных дней",
            "Ежегодный   оплачиваемый\n> отпуск составляет 28 календарных дней",
            "«Ежегодный оплачиваемый отпуск составляет 28 календарных дней»",
            "«Ежегодный оплачиваемый отпуск составляет 28 календарных дней» — правила.pdf, с. 2",
            "«Ежегодный оплачиваемый отпуск составляет 28 календарных дней» (`правила.pdf`)",
            "Ежегодный оплачиваемый отпуск составляет 28 календарных дней (правила.pdf, с. 2)",
            "Ежегодный оплачиваемый отпуск составляет 28 календарных дней. — правила.pdf",
            "Ежегодный оплачиваемый отпуск составляет 28 календарных дней.\n>\n> — Правила, с. 2",
            "Ежегодный оплачиваемый отпуск … 28 календарных дней",
            "Ежегодный оплачиваемый отпуск ... 28 календарных дней",
            "…оплачиваемый отпуск составляет **28 календарных дней**…",
            "6| Ежегодный оплачиваемый отпуск составляет 28 календарных дней.",
        ],
    )
    def test_harmless_differences_are_found(self, read_all: list[Any], quote: str) -> None:
        check = only(f"Отпуск такой:\n\n> {quote}\n\nВот.", read_all)
        assert check.found, quote
        assert (check.path, check.line, check.place) == ("правила.pdf", 6, Place("page", 2))

    def test_e_for_yo_quote_marks_and_dashes(self, read_all: list[Any]) -> None:
        answer = '> Пропуск выдает служба безопасности - в день выхода на работу ("первый день").'
        check = only(answer, read_all)
        assert check.found
        assert check.path == "hr/справочник.md"
        assert check.place == Place("heading", section=("Справочник сотрудника",))

    def test_a_quote_across_a_page_break_is_placed_where_it_starts(
        self, read_all: list[Any]
    ) -> None:
        answer = "> Заявление на отпуск подаётся не позднее чем за две недели до его начала."
        check = only(answer, read_all)
        assert check.found
        assert (check.line, check.place) == (7, Place("page", 2))

    def test_a_quote_on_a_later_page(self, read_all: list[Any]) -> None:
        check = only("> Командировочные расходы возмещаются по авансовому отчёту", read_all)
        assert (check.found, check.line, check.place) == (True, 10, Place("page", 3))

    @pytest.mark.parametrize(
        "quote", ["Обучение персонала | 350000 | Сидоров", "Обучение персонала 350000 Сидоров"]
    )
    def test_a_sheet_row(self, read_all: list[Any], quote: str) -> None:
        check = only(f"> {quote}", read_all)
        assert (check.found, check.path, check.line) == (True, "финансы/бюджет.xlsx", 4)
        assert check.place == Place("sheet", name="Бюджет")

    def test_a_row_of_the_second_sheet(self, read_all: list[Any]) -> None:
        check = only("> Отдел продаж | 12", read_all)
        assert (check.found, check.place) == (True, Place("sheet", name="Штат"))

    def test_a_slide(self, read_all: list[Any]) -> None:
        check = only("> Открытие филиала в Казани во втором квартале", read_all)
        assert (check.found, check.path, check.line) == (True, "стратегия.pptx", 6)
        assert check.place == Place("slide", 2)

    @pytest.mark.parametrize(
        ("quote", "path", "section"),
        [
            (
                "Работать из дома можно два дня в неделю",
                "hr/справочник.md",
                ("Справочник сотрудника", "Удалённая работа"),
            ),
            (
                "Размер квартальной премии составляет",
                "hr/премии.docx",
                ("Положение о премировании", "Размер премии"),
            ),
        ],
    )
    def test_under_a_heading_with_its_path(
        self, read_all: list[Any], quote: str, path: str, section: tuple[str, ...]
    ) -> None:
        check = only(f"> {quote}", read_all)
        assert (check.found, check.path, check.place) == (
            True,
            path,
            Place("heading", section=section),
        )

    def test_a_document_without_places(self, read_all: list[Any]) -> None:
        check = only("> Пароль от гостевой сети меняется каждый понедельник.", read_all)
        assert (check.found, check.path, check.line, check.place) == (True, "памятка.txt", 2, None)

    def test_from_search_snippets_alone(self, searched_only: list[Any]) -> None:
        answer = (
            "> Открытие филиала в Казани\n\nи\n\n> Обучение персонала | 350000\n\n"
            "> Пароль от гостевой сети"
        )
        slide, sheet, memo = check_quotes(answer, searched_only)
        assert (slide.found, slide.line, slide.place) == (True, 6, Place("slide", 2))
        assert (sheet.found, sheet.place) == (True, Place("sheet", name="Бюджет"))
        assert (memo.found, memo.place) == (True, None)


class TestInventedQuotes:
    @pytest.mark.parametrize(
        "quote",
        [
            "Ежегодный оплачиваемый отпуск составляет 30 календарных дней.",
            "Ежегодный оплачиваемый отпуск составляет 28 рабочих дней.",
            "8 календарных дней",
            "Ежегодный отпуск составляет 28 календарных дней.",
            "Ежегодный оплачиваемый отпуск … Открытие филиала в Казани",
            "28 календарных дней … Ежегодный оплачиваемый отпуск",
            "Ежегодный оплачиваемый отпуск … в … дней",
            "Аренда офиса | 1300000 | Петрова",
            "Отпуск можно разделить на части, одна из которых не менее 14 дней.",
            "Ежегодный оплачиваемый отпуск составляет 28 календарных дней - и 5 (правила.pdf)",
        ],
    )
    def test_not_found(self, read_all: list[Any], quote: str) -> None:
        check = only(f"> {quote}", read_all)
        assert not check.found, quote
        assert (check.path, check.line, check.place) == (None, None, None)

    def test_text_never_shown_is_not_found(self, searched_only: list[Any]) -> None:
        check = only(
            "> Ежегодный оплачиваемый отпуск составляет 28 календарных дней.", searched_only
        )
        assert not check.found

    def test_nothing_read_nothing_found(self) -> None:
        assert not only("> Любая цитата из документов", []).found


class TestWhatIsChecked:
    def test_each_quote_with_its_span(self, read_all: list[Any]) -> None:
        first = "> Открытие филиала\n> в Казани во втором квартале"
        second = "> Главный риск: нехватка юристов"
        answer = f"Итак.\n{first}\n\nНо:\n\n{second}\n"
        checks = check_quotes(answer, read_all)
        assert [answer[c.start : c.end] for c in checks] == [first, second]
        assert [c.found for c in checks] == [True, False]
        assert checks[0].text == "Открытие филиала\nв Казани во втором квартале"

    @pytest.mark.parametrize(
        "quote", [">", "> …", "> правила.pdf", "> `hr/справочник.md`", "> финансы/бюджет.xlsx"]
    )
    def test_empty_quotes_and_file_names_are_not_checked(
        self, read_all: list[Any], quote: str
    ) -> None:
        assert check_quotes(f"Источник:\n\n{quote}\n", read_all) == []

    def test_quotes_in_code_are_not_checked(self, read_all: list[Any]) -> None:
        answer = "```\n> Выдуманная цитата в коде\n```\n"
        assert check_quotes(answer, read_all) == []

    def test_an_answer_without_quotes(self, read_all: list[Any]) -> None:
        assert check_quotes("Отпуск — 28 календарных дней (правила.pdf, с. 2).", read_all) == []


class TestFileNames:
    def test_a_name_only_a_search_listed_is_not_checked(self) -> None:
        hits = '{"results": [{"path": "отчёты/итоги года.pdf", "match": ["name"]}]}'
        messages = [{"role": "tool", "tool_call_id": "s", "content": hits}]
        assert check_quotes("> итоги года.pdf", messages) == []
        assert not only("> Итоги года хорошие", messages).found
