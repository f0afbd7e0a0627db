"""Scans recognised by OCR: found by search with Russian word forms, marked as recognised when
read, refused when hostile, and reported plainly where Tesseract is missing."""

from __future__ import annotations

import asyncio
import io
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tests.tools.docgen import text_pdf
from tests.tools.scan_docgen import (
    FONT,
    NEEDS_FONT,
    NEEDS_TESSERACT,
    png_header,
    scan_pdf,
    tesseract_ready,
    text_image,
)
from tools import Toolbox
from tools.config import ToolSettings
from tools.extract.cache import DocumentCache
from tools.extract.extractor import OCR_DEADLINE, Extractor, Limits
from tools.extract.formats import scans
from tools.extract.formats.base import Budget, FormatError, Unfinished
from tools.extract.formats.images import image_text
from tools.extract.formats.ocr import Tesseract
from tools.extract.formats.ocrnote import (
    NEEDS_OCR,
    NO_TEXT_RECOGNISED,
    STILL_RECOGNISING,
    ocr_note,
    ocr_pages,
)
from tools.extract.formats.pdf import pdf_text
from tools.extract.isolated import StillWorking

needs_tesseract = pytest.mark.skipif(not tesseract_ready(), reason=NEEDS_TESSERACT)
needs_font = pytest.mark.skipif(not FONT.exists(), reason=NEEDS_FONT)
RUSSIAN = "Договор аренды складского помещения"
ENGLISH = "Invoice for consulting services"
BUDGET = Budget(1_000_000, 30.0)


class Counting(Tesseract):
    """A stand-in engine that counts the pages it is given and reads the same words on each."""

    def __init__(self) -> None:
        super().__init__("tesseract")
        self.pages = 0

    def available(self) -> bool:
        return True

    def recognise(self, page: Any, seconds: float) -> str:
        self.pages += 1
        return "слово"


async def call(box: Toolbox, name: str, args: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = json.loads((await box.execute(name, args)).text)
    return result


async def started(root: Path, data: Path) -> Toolbox:
    box = Toolbox(ToolSettings(sandbox_dir=root, data_dir=data), watch_interval=3600)
    await box.start()
    await asyncio.wait_for(box.wait_ready(), 120)
    return box


@pytest.fixture
async def scans_box(tmp_path: Path) -> AsyncIterator[Toolbox]:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "договор.png").write_bytes(text_image([RUSSIAN, ENGLISH]))
    (root / "счёт.jpg").write_bytes(text_image([ENGLISH], fmt="JPEG"))
    page = text_image([RUSSIAN])
    (root / "скан.pdf").write_bytes(scan_pdf([page, text_image(["Акт приёмки работ"])]))
    (root / "текст.pdf").write_bytes(text_pdf([["Положение о командировках"]]))
    box = await started(root, tmp_path / "data")
    yield box
    await box.close()


@needs_tesseract
@needs_font
class TestRecognised:
    async def test_scans_are_found_with_russian_word_forms(self, scans_box: Toolbox) -> None:
        found = await call(scans_box, "search_files", {"query": "договоры аренды помещений"})
        paths = {r["path"] for r in found["results"]}
        assert {"договор.png", "скан.pdf"} <= paths
        found = await call(scans_box, "search_files", {"query": "consulting invoice"})
        assert "счёт.jpg" in {r["path"] for r in found["results"]}

    async def test_read_file_marks_recognised_text(self, scans_box: Toolbox) -> None:
        page = await call(scans_box, "read_file", {"path": "скан.pdf"})
        assert page["ocr"] is True
        assert "OCR" in page["notice"]
        doc = page["document"]
        assert "[text recognised from a scan (OCR) on 2 pages; it may contain errors]" in doc
        assert "--- page 2 ---" in doc
        assert "аренды" in doc
        assert "приёмки" in doc or "приемки" in doc

    async def test_a_pdf_with_a_text_layer_is_not_recognised(self, scans_box: Toolbox) -> None:
        page = await call(scans_box, "read_file", {"path": "текст.pdf"})
        assert "ocr" not in page
        assert "OCR" not in page["document"]
        assert "командировках" in page["document"]

    def test_only_pages_without_text_are_recognised(self) -> None:
        mixed = scan_pdf([text_image([ENGLISH]), None])
        assert ocr_pages(pdf_text(mixed, BUDGET).split("\n")[0]) == 2
        engine = Counting()
        text = pdf_text(text_pdf([["Положение"], ["о командировках"]]), BUDGET, engine)
        assert engine.pages == 0
        assert ocr_pages(text.split("\n")[0]) is None

    def test_one_pixel_text_gives_no_text_recognised(self) -> None:
        tiny = text_image(["мелкий текст " * 20] * 5, size=1)
        started_at = time.monotonic()
        with pytest.raises(FormatError, match=NO_TEXT_RECOGNISED.split(" (")[0]):
            image_text(tiny, BUDGET)
        assert time.monotonic() - started_at < 20


class TestLimits:
    def test_a_pixel_bomb_is_refused_before_decoding(self) -> None:
        started_at = time.monotonic()
        with pytest.raises(FormatError, match="too large to recognise"):
            image_text(png_header(20_000, 20_000), BUDGET, Counting())
        assert time.monotonic() - started_at < 2

    def test_recognised_pages_are_capped(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(scans, "MAX_OCR_PAGES", 3)
        engine = Counting()
        text = pdf_text(scan_pdf([None] * 6), BUDGET, engine)
        assert engine.pages == 3
        assert text.split("\n")[0] == ocr_note(3)
        assert "only the first 3 scanned pages are recognised" in text

    def test_a_waiting_reader_is_not_held_past_the_deadline(self) -> None:
        with pytest.raises(Unfinished):
            pdf_text(scan_pdf([None] * 2), Budget(1_000_000, 1.0), Counting())
        text = pdf_text(scan_pdf([None] * 2), Budget(1_000_000, 1.0, extended=True), Counting())
        assert "the time for recognising ran out" in text


class TestWithoutTesseract:
    @needs_font
    def test_parsers_say_ocr_is_needed(self) -> None:
        missing = Tesseract("/nonexistent/tesseract")
        with pytest.raises(FormatError, match="needs OCR, which is not installed here"):
            image_text(text_image([ENGLISH]), BUDGET, missing)
        with pytest.raises(FormatError, match="needs OCR, which is not installed here"):
            pdf_text(scan_pdf([text_image([ENGLISH])]), BUDGET, missing)
        mixed = pdf_text(_mixed_pdf(), BUDGET, missing)
        assert f"[{NEEDS_OCR}]" in mixed
        assert "командировках" in mixed

    @needs_font
    async def test_read_file_and_search_report_it(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        empty = tmp_path / "empty-bin"
        empty.mkdir()
        monkeypatch.setenv("PATH", str(empty))  # the worker finds no tesseract
        root = tmp_path / "docs"
        root.mkdir()
        (root / "паспорт.png").write_bytes(text_image([RUSSIAN]))
        box = await started(root, tmp_path / "data")
        try:
            page = await call(box, "read_file", {"path": "паспорт.png"})
            assert "needs OCR, which is not installed here" in page["error"]
            found = await call(box, "search_files", {"query": "паспорт"})
            assert [r["path"] for r in found["results"]] == ["паспорт.png"]
            report = await box.reindex()
            assert any("needs OCR" in error for error in report.errors)
        finally:
            await box.close()


def _mixed_pdf() -> bytes:
    """Page 1 with a text layer, page 2 a blank scan."""
    from pypdf import PdfReader, PdfWriter  # noqa: PLC0415

    writer = PdfWriter()
    for data in (text_pdf([["Положение о командировках"]]), scan_pdf([None])):
        writer.add_page(PdfReader(io.BytesIO(data)).pages[0])
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


class Worker:
    """Stands in for an extraction worker: a scan needs the extended deadline."""

    def __init__(self) -> None:
        self.calls: list[tuple[float | None, bool]] = []

    def extract(
        self,
        kind: str,
        data: bytes,
        max_chars: int,
        key: str = "",
        *,
        seconds: float | None = None,
        extended: bool = False,
    ) -> str:
        self.calls.append((seconds, extended))
        if not extended:
            raise StillWorking(STILL_RECOGNISING)
        return ocr_note(1) + "\n--- page 1 ---\nслово"

    def close(self) -> None:
        pass


class TestDeadlines:
    def test_the_index_finishes_a_long_scan_and_a_reader_is_told_to_come_back(
        self, tmp_path: Path
    ) -> None:
        scan = tmp_path / "long.png"
        scan.write_bytes(b"\x89PNG")
        extractor = Extractor(Limits(timeout=30.0))
        reader, index = Worker(), Worker()
        extractor._isolated, extractor._background = reader, index  # type: ignore[assignment]
        with pytest.raises(StillWorking, match="still being recognised"):
            extractor.extract(scan)
        assert reader.calls == [(None, False)]
        assert extractor.extract(scan, background=True).startswith(ocr_note(1))
        assert index.calls == [(None, False), (OCR_DEADLINE, True)]
        extractor.close()

    @needs_tesseract
    @needs_font
    async def test_pages_recognised_for_the_upload_reply(self, scans_box: Toolbox) -> None:
        assert await scans_box.recognised_pages("скан.pdf") == 2
        assert await scans_box.recognised_pages("текст.pdf") is None
        assert await scans_box.recognised_pages("нет.pdf") is None


class TestStoredText:
    async def test_a_scan_gone_from_the_cache_is_read_from_the_index(self, tmp_path: Path) -> None:
        root = tmp_path / "docs"
        root.mkdir()
        (root / "long.png").write_bytes(b"\x89PNG")
        box = Toolbox(ToolSettings(sandbox_dir=root, data_dir=tmp_path / "data"))
        reader, index = Worker(), Worker()
        box._extractor._isolated, box._extractor._background = reader, index  # type: ignore[assignment]
        await box.start()
        try:
            await asyncio.wait_for(box.wait_ready(), 60)
            box._reader.cache = DocumentCache()  # evicted
            page = await call(box, "read_file", {"path": "long.png"})
            assert page["ocr"] is True
            assert "слово" in page["document"]
            assert reader.calls == []  # the index's text: the scan is not recognised again
        finally:
            await box.close()


def test_a_huge_scanned_page_is_rendered_smaller_not_refused() -> None:
    from reportlab.pdfgen import canvas  # noqa: PLC0415

    out = io.BytesIO()
    pdf = canvas.Canvas(out, pagesize=(14_400, 14_400))  # 200 inches square
    pdf.showPage()
    pdf.save()
    engine = Counting()
    assert "слово" in pdf_text(out.getvalue(), BUDGET, engine)
    assert engine.pages == 1
