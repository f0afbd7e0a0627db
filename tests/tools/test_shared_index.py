"""Several processes on one DATA_DIR share one search index: one writes it, the others read.

Two toolboxes in this test stand for two worker processes (the file lock is per open file, so
it tells them apart in one process just as it would across processes).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from tools import Toolbox
from tools.config import ToolSettings
from tools.index.indexer import IndexInUseError


def _box(root: Path, data: Path) -> Toolbox:
    settings = ToolSettings(sandbox_dir=root, data_dir=data)
    return Toolbox(settings, watch_interval=0.05)


async def _until(box: Toolbox, done: Callable[[], bool], within_s: float = 30) -> None:
    """Wait for the toolbox's passes (each sets `changed`) until `done()` holds."""
    async with asyncio.timeout(within_s):
        while not done():
            await box.indexer.changed.wait()


def _sees(box: Toolbox, rel: str) -> Callable[[], bool]:
    """Whether the toolbox has `rel` in its folder view and in the index."""
    state = box.indexer.state
    return lambda: rel in state.visible and rel in state.known


async def _found(box: Toolbox, query: str) -> list[str]:
    result = await box.execute("search_files", {"query": query})
    return [r["path"] for r in json.loads(result.text).get("results", [])]


@pytest.fixture
async def pair(tmp_path: Path) -> AsyncIterator[tuple[Toolbox, Toolbox, Path]]:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "шарлотка.txt").write_text("Шарлотка: сахар, яйца, мука.", encoding="utf-8")
    first, second = _box(root, tmp_path / "data"), _box(root, tmp_path / "data")
    await first.start()
    await second.start()
    try:
        yield first, second, root
    finally:
        for box in (second, first):
            if box.status().running:  # a test may have closed one already
                await box.close()


class TestSharedIndex:
    async def test_one_writes_and_the_other_reads_what_it_wrote(
        self, pair: tuple[Toolbox, Toolbox, Path]
    ) -> None:
        writer, reader, root = pair
        assert writer.indexer.writes
        assert not reader.indexer.writes
        await asyncio.wait_for(writer.wait_ready(), 30)
        await asyncio.wait_for(reader.wait_ready(), 30)
        assert await _found(reader, "сахар") == ["шарлотка.txt"]

        (root / "блины.txt").write_text("Блины: молоко, мука, яйца.", encoding="utf-8")
        await _until(reader, _sees(reader, "блины.txt"))
        assert await _found(reader, "молоко") == ["блины.txt"]
        assert not reader.indexer.writes

    async def test_a_rebuild_asked_where_the_index_is_read_is_done_by_the_writer(
        self, pair: tuple[Toolbox, Toolbox, Path], tmp_path: Path, caplog: pytest.LogCaptureFixture
    ) -> None:
        writer, reader, _ = pair
        await asyncio.wait_for(writer.wait_ready(), 30)
        with pytest.raises(IndexInUseError):
            await reader.reindex()
        with caplog.at_level(logging.INFO, logger="tools.index.indexer"):
            assert await reader.ask_rebuild(30)
        said = "search index rebuilt as asked from the command line: 1 indexed, 0 skipped"
        assert [r for r in caplog.records if r.getMessage().startswith(said)]
        assert not (tmp_path / "data" / "search-index.rebuild").exists()
        assert not reader.indexer.writes
        assert await _found(reader, "сахар") == ["шарлотка.txt"]

    async def test_the_reader_takes_over_when_the_writer_stops(
        self, pair: tuple[Toolbox, Toolbox, Path]
    ) -> None:
        writer, reader, root = pair
        await asyncio.wait_for(reader.wait_ready(), 30)
        await writer.close()
        await _until(reader, lambda: reader.indexer.writes)

        (root / "оладьи.txt").write_text("Оладьи: кефир, мука.", encoding="utf-8")
        await _until(reader, _sees(reader, "оладьи.txt"))
        assert await _found(reader, "кефир") == ["оладьи.txt"]
        assert await _found(reader, "сахар") == ["шарлотка.txt"]  # the index was kept

    async def test_a_reader_reports_an_upload_without_writing_it(
        self, pair: tuple[Toolbox, Toolbox, Path]
    ) -> None:
        writer, reader, root = pair
        await asyncio.wait_for(reader.wait_ready(), 30)
        (root / "новое.txt").write_text("Совсем новый текст.", encoding="utf-8")
        report = await reader.refresh("новое.txt")
        assert report.chars == len("Совсем новый текст.")
        assert report.error is None
        assert not reader.indexer.writes
        await _until(reader, _sees(reader, "новое.txt"))
        await _until(writer, _sees(writer, "новое.txt"))
        assert await _found(writer, "новый") == ["новое.txt"]

    async def test_a_reader_does_not_rebuild_under_the_writer(
        self, pair: tuple[Toolbox, Toolbox, Path]
    ) -> None:
        _, reader, _ = pair
        with pytest.raises(RuntimeError, match="another process writes the search index"):
            await reader.reindex()


class TestReadOnly:
    """The admin's command line: it reads the index a bot writes and never writes it itself."""

    async def test_it_reads_what_the_writer_wrote_and_never_takes_over(
        self, pair: tuple[Toolbox, Toolbox, Path], tmp_path: Path
    ) -> None:
        writer, other, root = pair
        await other.close()  # it would take over the writing when the writer stops
        await asyncio.wait_for(writer.wait_ready(), 30)
        settings = ToolSettings(sandbox_dir=root, data_dir=tmp_path / "data")
        reader = Toolbox(settings, watch="rescan", watch_interval=0.05, writes_index=False)
        await reader.start()
        try:
            await asyncio.wait_for(reader.wait_ready(), 30)
            assert reader.writer_elsewhere()
            assert await _found(reader, "сахар") == ["шарлотка.txt"]

            await writer.close()
            await reader.wait_synced()
            assert not reader.indexer.writes
            assert not reader.writer_elsewhere()
            with pytest.raises(IndexInUseError):
                await reader.reindex()
            assert await _found(reader, "сахар") == ["шарлотка.txt"]
        finally:
            await reader.close()

    async def test_without_an_index_it_makes_none(self, tmp_path: Path) -> None:
        root = tmp_path / "docs"
        root.mkdir()
        (root / "шарлотка.txt").write_text("Шарлотка: сахар, яйца, мука.", encoding="utf-8")
        settings = ToolSettings(sandbox_dir=root, data_dir=tmp_path / "data")
        reader = Toolbox(settings, watch="rescan", writes_index=False)
        await reader.start()
        try:
            await reader.wait_synced()
            assert not reader.status().ready
            assert await _found(reader, "шарлотка") == ["шарлотка.txt"]  # by its name
        finally:
            await reader.close()
        assert not (tmp_path / "data").exists()
