"""Where admins hear about scans: pages recognised in the upload reply, scans waiting for OCR
in the /reindex report and in `python -m bot check`."""

from __future__ import annotations

import io
from collections import Counter
from pathlib import Path

import pytest

from bot.console.check.documents import check_documents, describe_reasons
from bot.telegram.texts import ENGLISH, RUSSIAN
from tools.extract.formats.ocrnote import NEEDS_OCR


def blank_png() -> bytes:
    from PIL import Image  # noqa: PLC0415

    out = io.BytesIO()
    Image.new("L", (200, 100), 255).save(out, format="PNG")
    return out.getvalue()


class TestTexts:
    def test_upload_reply_counts_recognised_pages(self) -> None:
        reply = ENGLISH.upload_saved("скан.pdf", 1200, readable=True, ocr_pages=3)
        assert "Pages recognised from the scan (OCR): 3" in reply
        assert "OCR" not in ENGLISH.upload_saved("a.pdf", 1200, readable=True)
        assert "Страниц распознано со скана (OCR): 12" in RUSSIAN.upload_saved(
            "скан.pdf", 900, readable=True, ocr_pages=12
        )

    def test_reindex_report_names_scans_waiting_for_ocr(self) -> None:
        report = ENGLISH.reindex_report(5, 0, 2, 1.5, needs_ocr=2)
        assert "Scans that need OCR, which is not installed here: 2" in report
        assert "OCR" not in ENGLISH.reindex_report(5, 0, 0, 1.5)
        assert "OCR" in RUSSIAN.reindex_report(5, 0, 1, 1.5, needs_ocr=1)


class TestCheck:
    def test_reasons_group_scans_needing_ocr(self) -> None:
        text = describe_reasons(Counter({NEEDS_OCR: 2, "the PDF is password-protected": 1}))
        assert text == "2 scans that need OCR, which is not installed here, 1 encrypted PDF"

    def test_check_reports_a_scan_where_tesseract_is_missing(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        empty = tmp_path / "bin"
        empty.mkdir()
        monkeypatch.setenv("PATH", str(empty))
        docs = tmp_path / "docs"
        docs.mkdir()
        (docs / "скан.png").write_bytes(blank_png())
        (docs / "заметка.txt").write_text("Текст", encoding="utf-8")
        outcome = check_documents(docs, tmp_path / "data", max_file_mb=50)
        assert "1 scan that needs OCR, which is not installed here" in outcome.text
