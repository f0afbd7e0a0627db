"""A search shows only files the folder has now, even while the index still ranks a gone one.

Workers sharing one index see the folder for themselves, but only the writing one changes the
index. While the writer is busy (held here on a slow document), a file deleted from the folder
is gone from a reader's view yet still in the index, which ranks it for its words. Such a
result is left out: it can be neither described nor read.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from tests.tools.docgen import text_pdf
from tests.tools.gated_worker import GATE_MARK, WorkerGate
from tools import Toolbox
from tools.config import ToolSettings

GONE = "шарлотка.txt"
KEPT = "сахарница.txt"


async def _until(box: Toolbox, done: Callable[[], bool], within_s: float = 30) -> None:
    """Wait for the toolbox's passes (each sets `changed`) until `done()` holds."""
    async with asyncio.timeout(within_s):
        while not done():
            await box.indexer.changed.wait()


async def _search(box: Toolbox, query: str) -> dict[str, Any]:
    result: dict[str, Any] = json.loads((await box.execute("search_files", {"query": query})).text)
    return result


@pytest.fixture
async def gate(tmp_path: Path) -> AsyncIterator[WorkerGate]:
    held = WorkerGate(tmp_path / "gate")
    try:
        yield held
    finally:
        held.close()


@pytest.fixture
async def pair(tmp_path: Path, gate: WorkerGate) -> AsyncIterator[tuple[Toolbox, Toolbox, Path]]:
    """Two workers' toolboxes on one folder and one index; the first writes it."""
    root = tmp_path / "docs"
    root.mkdir()
    (root / GONE).write_text("Шарлотка: сахар, яйца, мука.", encoding="utf-8")
    (root / KEPT).write_text("Сахар хранится в сахарнице.", encoding="utf-8")
    settings = ToolSettings(sandbox_dir=root, data_dir=tmp_path / "data")
    writer = Toolbox(settings, watch_interval=0.05, extraction_worker=gate.command)
    await writer.start()
    reader = Toolbox(settings, watch_interval=0.05)
    await reader.start()
    try:
        yield writer, reader, root
    finally:
        for box in (reader, writer):
            await box.close()


class TestGoneFromTheFolder:
    async def test_a_file_the_index_still_ranks_is_not_shown(
        self, pair: tuple[Toolbox, Toolbox, Path], gate: WorkerGate
    ) -> None:
        writer, reader, root = pair
        await asyncio.wait_for(writer.wait_ready(), 30)
        await asyncio.wait_for(reader.wait_ready(), 30)
        assert not reader.indexer.writes
        found = await _search(reader, "сахар")
        assert sorted(r["path"] for r in found["results"]) == sorted([GONE, KEPT])

        (root / "000_медленный.pdf").write_bytes(text_pdf([["Текст"]]) + GATE_MARK)
        await asyncio.wait_for(gate.entered(), 30)  # the writer is busy with it
        (root / GONE).unlink()
        state = reader.indexer.state
        await _until(reader, lambda: GONE not in state.visible)
        assert GONE in state.known, "the index still holds the deleted file"

        found = await _search(reader, "сахар")
        assert "error" not in found
        assert [r["path"] for r in found["results"]] == [KEPT]
        assert (found["total"], found["truncated"]) == (1, False), "nothing more to ask for"
        await gate.release()
