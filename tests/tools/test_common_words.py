"""A word found in more documents than are scored in full still finds the ones about it.

The bound is lowered to a handful of documents so a small folder crosses it; the searcher is
the real one, over the real index the toolbox built.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tools import Toolbox
from tools.config import ToolSettings
from tools.search import Searcher
from tools.terms import TOP_TERMS, Stemmer

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
        # "отчет" once among many other words: never one of the document's top terms
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


def _bounded(box: Toolbox) -> Searcher:
    return Searcher(box.indexer, Stemmer(), rank_all=3)


class TestCommonWords:
    async def test_documents_about_the_word_come_first(self, box: Toolbox) -> None:
        found = await asyncio.to_thread(_bounded(box).search, "отчеты", 5)
        top = [r["path"] for r in found["results"]]
        assert set(top[:2]) == {"годовой_отчет.txt", "разбор.txt"}
        assert len(top) == 5  # then the newest of the other matches
        assert all(p.startswith("прочее/") for p in top[2:])

    async def test_total_counts_every_match(self, box: Toolbox) -> None:
        found = await asyncio.to_thread(_bounded(box).search, "отчет", 5)
        assert found["total"] == EACH + 2
        assert found["truncated"] is True

    async def test_the_same_best_documents_as_scoring_every_match(self, box: Toolbox) -> None:
        every = Searcher(box.indexer, Stemmer(), rank_all=1_000)
        full = await asyncio.to_thread(every.search, "отчет", 2)
        bounded = await asyncio.to_thread(_bounded(box).search, "отчет", 2)
        assert [r["path"] for r in bounded["results"]] == [r["path"] for r in full["results"]]

    async def test_a_word_rare_enough_is_scored_over_all_its_matches(self, box: Toolbox) -> None:
        found = await asyncio.to_thread(_bounded(box).search, "итоги", 5)
        assert [r["path"] for r in found["results"]] == ["годовой_отчет.txt"]


class TestTopTerms:
    def test_most_frequent_content_words_without_stop_words_or_numbers(self) -> None:
        stemmer = Stemmer()
        body, top = stemmer.bag("и и и и 2024 2024 отчет отчеты отчетов план планы склад")
        assert top.split() == ["отчет", "план", "склад"]
        assert sorted(body.split()) == sorted(
            ["и"] * 4 + ["2024"] * 2 + ["отчет"] * 3 + ["план"] * 2 + ["склад"]
        )

    def test_at_most_top_terms(self) -> None:
        text = " ".join(f"слово{i} " * (i + 1) for i in range(TOP_TERMS + 10))
        top = Stemmer().bag(text)[1].split()
        assert len(top) == TOP_TERMS
        assert f"слово{TOP_TERMS + 9}" in top
        assert "слово0" not in top
