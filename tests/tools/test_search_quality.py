"""Search quality on a small company's documents: recall@5 over realistic questions."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.tools.search_corpus import DOCUMENTS, ENCODINGS, PHRASED, QUERIES
from tools import Toolbox
from tools.config import ToolSettings

RECALL_AT_5 = 0.95


@pytest.fixture
async def corpus_box(tmp_path: Path) -> AsyncIterator[Toolbox]:
    root = tmp_path / "docs"
    for rel, text in DOCUMENTS.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(text.encode(ENCODINGS.get(rel, "utf-8")))
    box = Toolbox(ToolSettings(sandbox_dir=root, data_dir=tmp_path / "data"))
    await box.start()
    await asyncio.wait_for(box.wait_ready(), 30)
    yield box
    await box.close()


class TestSearchQuality:
    def test_set_is_large_enough(self) -> None:
        assert len(DOCUMENTS) >= 30
        assert len(QUERIES) + len(PHRASED) >= 90

    @pytest.mark.parametrize("queries", [QUERIES, PHRASED], ids=["keywords", "phrased"])
    async def test_recall_at_5(
        self, corpus_box: Toolbox, queries: list[tuple[str, set[str]]]
    ) -> None:
        hits = 0
        wanted = 0
        misses: list[str] = []
        for query, expected in queries:
            raw = (await corpus_box.execute("search_files", {"query": query, "limit": 5})).text
            top = {r["path"] for r in json.loads(raw)["results"]}
            found = expected & top
            hits += len(found)
            wanted += len(expected)
            if found != expected:
                misses.append(f"{query!r}: missed {sorted(expected - top)}")
        recall = hits / wanted
        assert recall >= RECALL_AT_5, f"recall@5 = {recall:.3f}; " + "; ".join(misses)

    async def test_best_match_comes_first_for_name_queries(self, corpus_box: Toolbox) -> None:
        for query, path in (
            ("шарлотка", "офис/рецепт_шарлотки.txt"),
            ("отпуск", "кадры/отпуск_ежегодный.md"),
            ("пропуск", "безопасность/пропуск.md"),
        ):
            raw = (await corpus_box.execute("search_files", {"query": query})).text
            assert json.loads(raw)["results"][0]["path"] == path, query
