"""A word found in most documents still ranks the ones about it first, and counts them all.

The searcher is the real one, over the real index the toolbox built.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tools import Toolbox
from tools.config import ToolSettings
from tools.index.terms import Stemmer
from tools.search import Searcher

FILLER = [
    "склад поставка накладная клиент менеджер договор счет оплата",
    "сотрудник отдел приказ премия график смена пропуск офис",
    "бюджет расход доход квартал прогноз план баланс налог",
]
EACH = 12


def _write(root: Path, rel: str, text: str) -> None:
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text(text, encoding="utf-8")


@pytest.fixture
async def box(tmp_path: Path) -> AsyncIterator[Toolbox]:
    root = tmp_path / "docs"
    for i in range(EACH):
        # "отчет" once among many other words: these mention it, they are not about it
        words = " ".join(f"{w}{i}{k}" for k in range(3) for w in " ".join(FILLER).split())
        _write(root, f"прочее/заметка_{i:02d}.txt", f"{words} отчет {words}")
    _write(root, "годовой_отчет.txt", "Итоги года и планы. " + FILLER[2])
    _write(root, "разбор.txt", "отчет " * 20 + FILLER[0])
    _write(root, "про_другое.txt", FILLER[1])
    toolbox = Toolbox(ToolSettings(sandbox_dir=root, data_dir=tmp_path / "data"))
    await toolbox.start()
    await asyncio.wait_for(toolbox.wait_ready(), 30)
    yield toolbox
    await toolbox.close()


def _search(box: Toolbox, query: str, limit: int) -> dict[str, Any]:
    return Searcher(box.indexer, Stemmer()).search(query, limit)


class TestCommonWords:
    async def test_documents_about_the_word_come_first(self, box: Toolbox) -> None:
        found = await asyncio.to_thread(_search, box, "отчеты", 5)
        top = [r["path"] for r in found["results"]]
        assert set(top[:2]) == {"годовой_отчет.txt", "разбор.txt"}
        assert len(top) == 5  # then other documents that mention it
        assert all(p.startswith("прочее/") for p in top[2:])

    async def test_total_counts_every_match(self, box: Toolbox) -> None:
        found = await asyncio.to_thread(_search, box, "отчет", 5)
        assert found["total"] == EACH + 2
        assert found["truncated"] is True

    async def test_a_rarer_word_finds_only_its_documents(self, box: Toolbox) -> None:
        found = await asyncio.to_thread(_search, box, "итоги", 5)
        assert [r["path"] for r in found["results"]] == ["годовой_отчет.txt"]
