"""A search that finds nothing names the languages of the documents, so the model can retry."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from tools import Toolbox
from tools.config import ToolSettings
from tools.index.languages import languages_of


async def _search(root: Path, data: Path, query: str) -> dict[str, Any]:
    box = Toolbox(ToolSettings(sandbox_dir=root, data_dir=data))
    await box.start()
    try:
        await asyncio.wait_for(box.wait_ready(), 30)
        result: dict[str, Any] = json.loads(
            (await box.execute("search_files", {"query": query})).text
        )
        return result
    finally:
        await box.close()


async def test_a_russian_question_about_english_documents_learns_they_are_english(
    tmp_path: Path,
) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "travel.md").write_text(
        "Business travel policy: employees book flights through the travel desk.\n",
        encoding="utf-8",
    )
    (root / "leave.md").write_text("Annual leave is 28 calendar days.\n", encoding="utf-8")
    found = await _search(root, tmp_path / "data", "командировка авиабилеты")
    assert found["results"] == []
    assert found["document_languages"] == ["en"]
    assert "English" in found["hint"]
    assert "translate" in found["hint"]


async def test_found_results_carry_no_language_note(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "отпуск.md").write_text("Отпуск длится 28 дней.\n", encoding="utf-8")
    found = await _search(root, tmp_path / "data", "отпуск")
    assert found["results"]
    assert "document_languages" not in found


def test_languages_are_those_with_a_real_share_of_the_words() -> None:
    assert languages_of(["отпуск", "дней", "leave", "days", "2024"]) == ["ru", "en"]
    assert languages_of(["отпуск"] * 95 + ["pdf"] * 5) == ["ru"]
    assert languages_of(["2024", "17"]) == []
