"""Text from every supported format and encoding, as read_file and search_files see it."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.sandbox_fixtures import started_toolbox, write_files
from tests.tools.docgen import docx_file, reportlab_pdf, text_pdf
from tools import Toolbox
from tools.config import ToolSettings
from tools.errors import ExtractionError
from tools.extract.cache import Document, DocumentCache
from tools.extract.encodings import decode_bytes
from tools.extract.extractor import Extractor, Limits
from tools.extract.formats.base import Budget
from tools.extract.formats.word import docx_text

SHORT_RUSSIAN = [
    "Привет",
    "сахар - 1 стакан",
    "Отпуск",
    "ОТПУСК ДЛЯ СОТРУДНИКОВ",
    "Мука, яйца",
    "Это короткий текст.",
    "Ёлка",
    "щи да каша",
    "Доход за 2024 год: 1 000 000 руб.",
    "Съешь же ещё этих мягких французских булок, да выпей чаю",
    "Приказ №15 «О премировании»",
]


def _encodable(text: str, encoding: str) -> bool:
    try:
        text.encode(encoding)
    except UnicodeEncodeError:
        return False
    return True


ENCODABLE = [
    (text, encoding)
    for text in SHORT_RUSSIAN
    for encoding in ("cp1251", "koi8-r", "cp866", "utf-8", "utf-8-sig")
    if _encodable(text, encoding)
]
REPORT_PAGES = [
    ["Годовой отчёт за 2024 год", "Выручка выросла на 15%."],
    ["Итоги года — план на 2025 год", "Новые офисы в Казани."],
]


class TestEncodings:
    @pytest.mark.parametrize(("text", "encoding"), ENCODABLE)
    def test_short_russian_texts_decode_exactly(self, text: str, encoding: str) -> None:
        assert decode_bytes(text.encode(encoding)) == text

    @pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-32"])
    def test_wide_encodings(self, encoding: str) -> None:
        text = "Инструкция: VPN из дома"
        data = text.encode(encoding)
        if encoding in ("utf-16-le", "utf-16-be"):
            data = ("\ufeff" + text).encode(encoding)
        assert decode_bytes(data) == text

    def test_utf16_without_bom(self) -> None:
        assert decode_bytes("Отчёт за квартал, итоги".encode("utf-16-le")) == (
            "Отчёт за квартал, итоги"
        )

    def test_mostly_valid_utf8_keeps_its_text(self) -> None:
        data = "Привет мир, ".encode() * 3 + b"\xff\xfe" + "ещё текст".encode()
        text = decode_bytes(data)
        assert text.startswith("Привет мир") and text.endswith("ещё текст")

    @pytest.mark.parametrize(
        "data",
        [bytes(range(256)) * 8, b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(300), b"a\x00b"],
    )
    def test_binary_is_refused(self, data: bytes) -> None:
        with pytest.raises(ExtractionError):
            decode_bytes(data)


@pytest.fixture
async def formats_box(tmp_path: Path) -> AsyncIterator[Toolbox]:
    root = tmp_path / "docs"
    files: dict[str, bytes] = {
        "отчёты/годовой_отчет_2024.pdf": text_pdf(REPORT_PAGES),
        "english/annual_report.pdf": reportlab_pdf(
            [["Annual report", "Revenue grew by fifteen percent."], ["Outlook for next year"]]
        ),
        "кадры/штатное_расписание.docx": docx_file(
            ["Штатное расписание отдела продаж", "Утверждено директором."],
            [["Должность", "Оклад"], ["Менеджер", "90 000"], ["Руководитель", "150 000"]],
        ),
        "web/страница.html": (
            "<html><head><title>t</title><style>p{color:red}</style>"
            "<script>var secret = 'скрипт';</script></head>"
            "<body><h1>Контакты</h1><p>Телефон <b>приёмной</b>: 123-45-67</p>"
            "<table><tr><th>Отдел</th><th>Этаж</th></tr><tr><td>Бухгалтерия</td><td>3</td></tr>"
            "</table></body></html>"
        ).encode(),
        "data/config.json": '{"город": "Казань", "офисы": [1, 2]}'.encode(),
        "data/таблица.csv": "имя;телефон\nИван;111\n".encode("cp1251"),
        "old/koi.txt": "Приказ о переводе сотрудника в другой отдел".encode("koi8-r"),
        "old/dos.txt": "Справка о доходах сотрудника".encode("cp866"),
        "old/wide.txt": "Памятка по охране труда".encode("utf-16"),
        "image.png": b"\x89PNG\r\n\x1a\n" + bytes(100),
        "blob.bin.txt": bytes(range(256)) * 4,
    }
    write_files(root, files)
    async with started_toolbox(root, tmp_path / "data") as box:
        yield box


async def read(box: Toolbox, path: str, **extra: Any) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(
        (await box.execute("read_file", {"path": path, **extra})).text
    )
    return result


async def search(box: Toolbox, query: str) -> list[str]:
    result = json.loads((await box.execute("search_files", {"query": query})).text)
    return [r["path"] for r in result["results"]]


class TestFormats:
    async def test_pdf_pages_and_cyrillic(self, formats_box: Toolbox) -> None:
        page = await read(formats_box, "отчёты/годовой_отчет_2024.pdf")
        doc = page["document"]
        assert "--- page 1 ---" in doc
        assert "--- page 2 ---" in doc
        assert "Годовой отчёт за 2024 год" in doc
        assert "Новые офисы в Казани." in doc

    async def test_reportlab_pdf(self, formats_box: Toolbox) -> None:
        page = await read(formats_box, "english/annual_report.pdf")
        assert "Revenue grew by fifteen percent." in page["document"]

    async def test_docx_paragraphs_and_table(self, formats_box: Toolbox) -> None:
        doc = (await read(formats_box, "кадры/штатное_расписание.docx"))["document"]
        assert "Штатное расписание отдела продаж" in doc
        assert "Менеджер | 90 000" in doc
        assert doc.index("Должность | Оклад") < doc.index("Конец документа.")

    async def test_html_visible_text_only(self, formats_box: Toolbox) -> None:
        doc = (await read(formats_box, "web/страница.html"))["document"]
        assert "Телефон приёмной: 123-45-67" in doc
        assert "Бухгалтерия | 3" in doc
        assert "скрипт" not in doc
        assert "color" not in doc

    async def test_json_pretty_printed(self, formats_box: Toolbox) -> None:
        page = await read(formats_box, "data/config.json")
        assert '"город": "Казань"' in page["document"]
        assert page["total_lines"] > 3

    async def test_old_encodings_read_cleanly(self, formats_box: Toolbox) -> None:
        for path, text in (
            ("data/таблица.csv", "Иван;111"),
            ("old/koi.txt", "Приказ о переводе сотрудника"),
            ("old/dos.txt", "Справка о доходах сотрудника"),
            ("old/wide.txt", "Памятка по охране труда"),
        ):
            assert text in (await read(formats_box, path))["document"], path

    async def test_every_format_is_searchable(self, formats_box: Toolbox) -> None:
        for query, expected in (
            ("выручка", "отчёты/годовой_отчет_2024.pdf"),
            ("revenue", "english/annual_report.pdf"),
            ("руководитель оклад", "кадры/штатное_расписание.docx"),
            ("телефон приёмной", "web/страница.html"),
            ("перевод сотрудника", "old/koi.txt"),
            ("справка о доходах", "old/dos.txt"),
            ("охрана труда", "old/wide.txt"),
        ):
            assert expected in (await search(formats_box, query))[:3], query

    async def test_binary_or_unsupported_is_an_error(self, formats_box: Toolbox) -> None:
        for path in ("image.png", "blob.bin.txt"):
            result = await read(formats_box, path)
            assert set(result) == {"error", "hint"}, path


class TestDocumentCache:
    def test_bounded_by_bytes_least_recent_first(self) -> None:
        doc = Document.from_text("строка\n" * 100)
        cache = DocumentCache(max_bytes=doc.cost * 3)
        for name in ("a", "b", "c"):
            cache.put((name, 1, 1), doc)
        assert cache.get(("a", 1, 1)) is doc  # now most recent
        cache.put(("d", 1, 1), doc)
        assert cache.get(("b", 1, 1)) is None
        assert cache.get(("a", 1, 1)) is doc
        assert len(cache) == 3
        assert cache.size <= cache.max_bytes

    def test_changed_file_is_a_different_key(self) -> None:
        cache = DocumentCache()
        cache.put(("a.txt", 10, 1), Document.from_text("старое"))
        assert cache.get(("a.txt", 10, 2)) is None

    def test_too_big_document_is_not_cached(self) -> None:
        cache = DocumentCache(max_bytes=100)
        cache.put(("big", 1, 1), Document.from_text("x" * 1000))
        assert len(cache) == 0


class TestPagingAndCache:
    async def test_long_pdf_pages_without_reparsing(self, tmp_path: Path) -> None:
        root = tmp_path / "docs"
        root.mkdir()
        pages = [[f"Страница {n}: раздел {n}, пункт {i}" for i in range(30)] for n in range(300)]
        (root / "long.pdf").write_bytes(text_pdf(pages))
        settings = ToolSettings(sandbox_dir=root, data_dir=tmp_path / "data", read_page_chars=5000)
        box = Toolbox(settings, watch_interval=0.2)
        await box.start()
        try:
            await asyncio.wait_for(box.wait_ready(), 60)
            offset: int | None = 1
            seen_lines = 0
            pages_read = 0
            while offset is not None and pages_read < 8:
                page = await read(box, "long.pdf", offset=offset)
                assert page["start_line"] == offset
                body = page["document"].split("\n")[1:-1]
                assert sum(len(line.split("| ", 1)[1]) + 1 for line in body) <= 5000
                seen_lines += page["end_line"] - page["start_line"] + 1
                offset = page["next_offset"]
                pages_read += 1
            assert page["total_lines"] == 300 * 31
            assert offset == seen_lines + 1
            assert box.extraction_count == 1
        finally:
            await box.close()

    async def test_last_page_has_no_next_offset(self, toolbox: Toolbox) -> None:
        page = await read(toolbox, "документы/рецепт_шарлотки.txt", offset=9, limit=5)
        assert (page["start_line"], page["end_line"], page["next_offset"]) == (9, 10, None)

    async def test_limit_pages_by_lines(self, toolbox: Toolbox) -> None:
        page = await read(toolbox, "документы/рецепт_шарлотки.txt", offset=2, limit=3)
        assert (page["start_line"], page["end_line"], page["next_offset"]) == (2, 4, 5)

    async def test_offset_past_end_is_an_error(self, toolbox: Toolbox) -> None:
        result = await read(toolbox, "документы/рецепт_шарлотки.txt", offset=500)
        assert "10 lines" in result["error"]


class TestDocxTables:
    def test_equal_neighbours_are_kept_and_merged_cells_shown_once(self, tmp_path: Path) -> None:
        import docx  # noqa: PLC0415

        document = docx.Document()
        grid = document.add_table(rows=2, cols=3)
        for c, value in enumerate(["Да", "Да", "Нет"]):
            grid.cell(0, c).text = value
        grid.cell(1, 0).merge(grid.cell(1, 1)).text = "Итого"
        grid.cell(1, 2).text = "5"
        target = tmp_path / "таблица.docx"
        document.save(str(target))

        assert docx_text(target.read_bytes(), Budget(10_000)).split("\n")[-2:] == [
            "Да | Да | Нет",
            "Итого | 5",
        ]


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc")
class TestOpenedInside:
    def _host(self, tmp_path: Path) -> Path:
        root = tmp_path / "root"
        root.mkdir()
        (tmp_path / "outside").mkdir()
        (tmp_path / "outside" / "secret.txt").write_text("секрет", encoding="utf-8")
        (tmp_path / "outside" / "secret.pdf").write_bytes(text_pdf([["Секретный отчёт"]]))
        (root / "swapped").symlink_to(tmp_path / "outside")  # a folder swapped after the check
        return root

    @pytest.mark.parametrize("name", ["secret.txt", "secret.pdf"])
    def test_a_file_reached_through_a_swapped_folder_is_refused(
        self, tmp_path: Path, name: str
    ) -> None:
        root = self._host(tmp_path)
        extractor = Extractor(Limits(), root=root)
        try:
            with pytest.raises(ExtractionError, match="outside the documents folder"):
                extractor.extract(root / "swapped" / name)
        finally:
            extractor.close()

    def test_a_file_inside_is_read(self, tmp_path: Path) -> None:
        root = self._host(tmp_path)
        (root / "отчёт.pdf").write_bytes(text_pdf([["Отчёт за год"]]))
        extractor = Extractor(Limits(), root=root)
        try:
            assert "Отчёт за год" in extractor.extract(root / "отчёт.pdf")
        finally:
            extractor.close()
