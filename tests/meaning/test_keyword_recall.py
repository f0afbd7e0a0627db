"""Keyword search keeps finding the meaning benchmark's keyword set through the real toolbox.

Whatever joins keyword search later (passages, vectors, fusion), the queries it is good at
(terms, word forms, typos, file-name words) must still put their file in the first five.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bench.meaning import sets
from tools import Toolbox
from tools.config import ToolSettings

KEYWORD_RECALL_AT_5 = 0.98


@pytest.fixture
async def folder_box(tmp_path: Path) -> AsyncIterator[Toolbox]:
    root = tmp_path / "docs"
    sets.build_folder(root)
    box = Toolbox(ToolSettings(sandbox_dir=root, data_dir=tmp_path / "data"))
    await box.start()
    try:
        await asyncio.wait_for(box.wait_ready(), 60)
        yield box
    finally:
        await box.close()


async def test_keyword_set_recall_at_5(folder_box: Toolbox) -> None:
    queries = sets.load(sets.KEYWORD)
    missed = []
    for query in queries:
        result = await folder_box.execute("search_files", {"query": query.text, "limit": 5})
        top = [r["path"] for r in json.loads(result.text)["results"]]
        if not set(query.relevant) & set(top):
            missed.append((query.text, top))
    assert 1 - len(missed) / len(queries) >= KEYWORD_RECALL_AT_5, missed
