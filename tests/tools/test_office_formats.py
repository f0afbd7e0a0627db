"""Office formats, e-books and e-mails as read_file and search_files see them: page markers by
sheet, slide and chapter, Russian word forms found, limits cut with a note."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.sandbox_fixtures import write_files
from tests.tools.hostile_office import huge_sheet_xlsx, long_deck
from tests.tools.office_docgen import (
    eml_file,
    epub_file,
    odp_file,
    ods_file,
    odt_file,
    pptx_file,
    rtf_file,
    xls_file,
    xlsx_file,
)
from tools import Toolbox
from tools.config import ToolSettings
from tools.extract.formats import legacy
from tools.extract.formats.base import Budget, FormatError
from tools.extract.formats.kinds import kind_of
from tools.extract.formats.sheets import xlsx_text

FIXTURES = Path(__file__).parent / "fixtures"
STAFF: list[list[Any]] = [
    ["Сотрудник", None, "Дни", "Отпускные", "Начало"],
    [],
    ["Иванова", None, 28, 56000.0, dt.date(2024, 7, 1)],
    ["Петров", None, 14, 28000.5, None, None],
]
CHAPTERS = [
    ("Глава первая. Командировки", ["Командировочные расходы возмещаются по авансовому отчёту."]),
    ("Глава вторая. Премии", ["Квартальные премии начисляются по итогам работы отдела."]),
    ("Глава третья. Увольнение", ["При увольнении выдаётся трудовая книжка."]),
]


def office_documents() -> dict[str, bytes]:
    return {
        "таблицы/отпуска.xlsx": xlsx_file(
            {"Отпуска": STAFF, "Итоги": [["Всего отпускных"]]},
            [("Итоги", "B1", "=Отпуска!D3+Отпуска!D4", 84000.5)],
        ),
        "таблицы/старый.xls": xls_file({"Склад": [["Товар", "Остаток"], ["Огурцы", 12.0]]}),
        "таблицы/склад.ods": ods_file(
            {"Склад": [["Товар", None, "Остаток"], [], ["Помидоры", None, 7.5]]}
        ),
        "презентации/премии.pptx": pptx_file(
            [
                (
                    "Квартальные премии",
                    ["Премии выплачиваются ежеквартально"],
                    [],
                    "Сказать о сроках",
                ),
                (
                    "Размеры премий",
                    ["Таблица по должностям"],
                    [["Должность", "Премия"], ["Менеджер", "20%"]],
                    "",
                ),
            ]
        ),
        "презентации/обучение.odp": odp_file(
            [
                ("Обучение сотрудников", ["Курсы повышения квалификации"], "Напомнить о записи"),
                ("Расписание", ["Занятия по вторникам"], ""),
            ]
        ),
        "тексты/больничный.odt": odt_file(
            "Порядок оформления больничных",
            ["Больничный лист передаётся в отдел кадров в день выхода на работу."],
            [["Стаж", "Оплата"], ["до 5 лет", "60%"]],
        ),
        "тексты/приказ.rtf": rtf_file(
            ["Приказ о назначении", "Назначить ответственным за охрану труда."]
        ),
        "книги/справочник.epub": epub_file("Справочник сотрудника", CHAPTERS),
        "почта/письмо.eml": eml_file(),
        "почта/только_html.eml": eml_file(html_only=True),
        "заметка.txt": "Обычная заметка о парковке".encode(),
    }


@pytest.fixture
async def office_box(tmp_path: Path) -> AsyncIterator[Toolbox]:
    root = tmp_path / "docs"
    write_files(root, office_documents())
    box = Toolbox(ToolSettings(sandbox_dir=root, data_dir=tmp_path / "data"), watch_interval=3600)
    await box.start()
    await asyncio.wait_for(box.wait_ready(), 60)
    yield box
    await box.close()


async def read(box: Toolbox, path: str, **extra: Any) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(
        (await box.execute("read_file", {"path": path, **extra})).text
    )
    return result


async def text_of(box: Toolbox, path: str) -> list[str]:
    """The document's lines as read_file numbers them, without the numbers and frame."""
    page = await read(box, path, limit=2000)
    assert "document" in page, page
    return [line.split("| ", 1)[1] for line in page["document"].split("\n")[1:-1]]


async def found(box: Toolbox, query: str) -> list[str]:
    result = json.loads((await box.execute("search_files", {"query": query})).text)
    return [r["path"] for r in result["results"]]


class TestSpreadsheets:
    async def test_xlsx_sheets_rows_formulas_and_dates(self, office_box: Toolbox) -> None:
        lines = await text_of(office_box, "таблицы/отпуска.xlsx")
        assert lines == [
            "--- sheet «Отпуска» ---",
            "Сотрудник | Дни | Отпускные | Начало",
            "Иванова | 28 | 56000 | 2024-07-01",
            "Петров | 14 | 28000.5",
            "--- sheet «Итоги» ---",
            "Всего отпускных | 84000.5",
        ]

    async def test_xls_and_ods_through_the_same_reader(self, office_box: Toolbox) -> None:
        assert await text_of(office_box, "таблицы/старый.xls") == [
            "--- sheet «Склад» ---",
            "Товар | Остаток",
            "Огурцы | 12",
        ]
        assert await text_of(office_box, "таблицы/склад.ods") == [
            "--- sheet «Склад» ---",
            "Товар | Остаток",
            "Помидоры | 7.5",
        ]

    def test_sheet_spanning_ten_million_cells_is_skipped_with_a_note(self) -> None:
        text = xlsx_text(huge_sheet_xlsx(), Budget(100_000))
        assert "1,000,000 rows × 10 columns, over the limit" in text
        assert "--- sheet «Обычный» ---\nСотрудник | Отпускные\nИванова | 56000" in text

    def test_rows_past_the_limit_are_cut_with_a_note(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        from tools.extract.formats import sheets  # noqa: PLC0415

        monkeypatch.setattr(sheets, "MAX_ROWS", 3)
        rows = [[f"строка {n}", n] for n in range(10)]
        text = xlsx_text(xlsx_file({"Лист": rows}), Budget(100_000))
        assert text.split("\n")[1:] == [
            "строка 0 | 0",
            "строка 1 | 1",
            "строка 2 | 2",
            "--- text cut here: this sheet is read up to row 3 of 10 ---",
        ]


class TestSlides:
    async def test_pptx_slide_by_slide(self, office_box: Toolbox) -> None:
        assert await text_of(office_box, "презентации/премии.pptx") == [
            "--- slide 1 ---",
            "Квартальные премии",
            "Премии выплачиваются ежеквартально",
            "Notes: Сказать о сроках",
            "--- slide 2 ---",
            "Размеры премий",
            "Таблица по должностям",
            "Должность | Премия",
            "Менеджер | 20%",
        ]

    async def test_odp_title_first_then_text_then_notes(self, office_box: Toolbox) -> None:
        assert await text_of(office_box, "презентации/обучение.odp") == [
            "--- slide 1 ---",
            "Обучение сотрудников",
            "Курсы повышения квалификации",
            "Notes: Напомнить о записи",
            "--- slide 2 ---",
            "Расписание",
            "Занятия по вторникам",
        ]


class TestTextDocuments:
    async def test_odt_heading_paragraphs_list_and_table(self, office_box: Toolbox) -> None:
        assert await text_of(office_box, "тексты/больничный.odt") == [
            "# Порядок оформления больничных",
            "Больничный лист передаётся в отдел кадров в день выхода на работу.",
            "Пункт списка о больничных листах",
            "Стаж | Оплата",
            "до 5 лет | 60%",
        ]

    async def test_rtf_cyrillic_without_pictures(self, office_box: Toolbox) -> None:
        lines = await text_of(office_box, "тексты/приказ.rtf")
        assert [line for line in lines if line.strip()] == [
            "Приказ о назначении",
            "Назначить ответственным за охрану труда.",
        ]

    async def test_epub_chapters_in_spine_order(self, office_box: Toolbox) -> None:
        lines = await text_of(office_box, "книги/справочник.epub")
        markers = [line for line in lines if line.startswith("--- chapter")]
        assert markers == [
            "--- chapter 1: Глава первая. Командировки ---",
            "--- chapter 2: Глава вторая. Премии ---",
            "--- chapter 3: Глава третья. Увольнение ---",
        ]
        assert "Справочник сотрудника" not in lines  # the book's title, repeated in each <title>
        assert lines.index("Квартальные премии начисляются по итогам работы отдела.") > 3

    @pytest.mark.parametrize("path", ["почта/письмо.eml", "почта/только_html.eml"])
    async def test_eml_headers_body_and_attachment_names(
        self, office_box: Toolbox, path: str
    ) -> None:
        lines = await text_of(office_box, path)
        assert lines[:4] == [
            "Subject: Отпускные за июль",
            "From: Бухгалтерия <buh@example.com>",
            "To: Иван Петров <ivan@example.com>",
            "Date: Mon, 01 Jul 2024 10:15:00 +0300",
        ]
        assert "Отпускные перечислены на карту." in lines
        assert "Attachments (2, not read):" in lines
        assert any(line.startswith("- расчёт.pdf (application/pdf,") for line in lines)
        assert any(line.startswith("- ведомость.csv (text/csv,") for line in lines)
        assert not any("secret attachment" in line or "<p>" in line for line in lines)


class TestSearch:
    @pytest.mark.parametrize(
        ("query", "path"),
        [
            ("отпуск", "таблицы/отпуска.xlsx"),
            ("огурец", "таблицы/старый.xls"),
            ("помидор", "таблицы/склад.ods"),
            ("ежеквартальная премия", "презентации/премии.pptx"),
            ("курс квалификация", "презентации/обучение.odp"),
            ("больничные листы", "тексты/больничный.odt"),
            ("охраны труда", "тексты/приказ.rtf"),
            ("командировочный расход", "книги/справочник.epub"),
            ("перечисленные отпускные", "почта/письмо.eml"),
        ],
    )
    async def test_inflected_forms_are_found(
        self, office_box: Toolbox, query: str, path: str
    ) -> None:
        assert path in (await found(office_box, query))[:3], query

    async def test_upload_report_counts_the_extracted_text(self, office_box: Toolbox) -> None:
        root = office_box.sandbox.root
        (root / "новая.xlsx").write_bytes(xlsx_file({"Лист1": [["Премия", 1000]]}))
        report = await office_box.refresh("новая.xlsx")
        assert report.error is None
        assert report.chars == len("--- sheet «Лист1» ---\nПремия | 1000")


class TestLegacyDoc:
    @pytest.mark.skipif(
        not legacy.available_converters(),
        reason="no .doc converter installed (apt-get install antiword, catdoc or libreoffice)",
    )
    async def test_doc_read_through_the_installed_converter(self, tmp_path: Path) -> None:
        root = tmp_path / "docs"
        root.mkdir()
        (root / "памятка.doc").write_bytes((FIXTURES / "vacation_memo.doc").read_bytes())
        box = Toolbox(ToolSettings(sandbox_dir=root, data_dir=tmp_path / "data"))
        await box.start()
        try:
            await asyncio.wait_for(box.wait_ready(), 60)
            lines = await text_of(box, "памятка.doc")
            assert "Памятка об отпусках" in lines
            assert "памятка.doc" in (await found(box, "отпускных выплат"))[:1]
        finally:
            await box.close()

    @pytest.mark.parametrize("converter", ["antiword", "catdoc"])
    def test_each_converter_reads_the_memo(
        self, monkeypatch: pytest.MonkeyPatch, converter: str
    ) -> None:
        if shutil.which(converter) is None:
            pytest.skip(f"{converter} is not installed (apt-get install {converter})")
        monkeypatch.setattr(legacy, "available_converters", lambda: [converter])
        text = legacy.doc_text((FIXTURES / "vacation_memo.doc").read_bytes(), Budget(10_000))
        lines = [line for line in text.split("\n") if line]
        assert lines[:2] == [
            "Памятка об отпусках",
            "Отпускные выплачиваются не позднее чем за три дня до начала отпуска.",
        ]
        assert lines[-1] == (
            "Vacation pay is transferred to the employee's card three days before the leave."
        )
        assert len(lines) == 1 + 3 * 6, "every paragraph, once"

    def test_without_a_converter_the_error_says_what_to_install(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setattr(legacy, "available_converters", list)
        with pytest.raises(FormatError, match="needs antiword, catdoc or LibreOffice installed"):
            legacy.doc_text((FIXTURES / "vacation_memo.doc").read_bytes(), Budget(1000))


class TestLimits:
    async def test_long_deck_is_cut_while_others_are_served(self, tmp_path: Path) -> None:
        root = tmp_path / "docs"
        root.mkdir()
        (root / "5000.pptx").write_bytes(long_deck(5_000))
        (root / "заметка.txt").write_text("Заметка о парковке у офиса", encoding="utf-8")
        box = Toolbox(
            ToolSettings(sandbox_dir=root, data_dir=tmp_path / "data"), watch_interval=3600
        )
        await box.start()
        try:
            first, note = await asyncio.gather(read(box, "5000.pptx"), read(box, "заметка.txt"))
            assert "Заметка о парковке" in note["document"]
            assert first["total_lines"] == 1_000 * 3 + 1
            deck = await read(box, "5000.pptx", offset=first["total_lines"] - 3)
            assert "--- slide 1000 ---" in deck["document"]
            assert "only the first 1,000 of 5,000 slides are read" in deck["document"]
            assert deck["next_offset"] is None
        finally:
            await box.close()


def test_every_new_suffix_takes_the_worker_route() -> None:
    for name in ("a.xlsx", "a.XLSM", "a.xls", "a.ods", "a.pptx", "a.odp", "a.odt", "a.rtf"):
        assert kind_of(Path(name)) not in ("text", "unsupported"), name
    assert kind_of(Path("a.epub")) == "epub"
    assert kind_of(Path("a.eml")) == "eml"
    assert kind_of(Path("a.doc")) == "doc"
    assert kind_of(Path("a.ppt")) == "unsupported"
