"""The folder watcher: changes reach search through OS notifications alone, without rescans;
a missing folder is waited for; where notifications fail, rescans stand in.

Every toolbox here rescans only once an hour (unless notifications fail), so a change found by
search was found through the watcher. Nothing sleeps: each wait is on a finished index pass.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import shutil
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import watchfiles

from tools import Toolbox
from tools.config import ToolSettings
from tools.index import watch as watch_module

HOUR = 3600.0


def make_box(root: Path, data: Path, **options: Any) -> Toolbox:
    settings = ToolSettings(sandbox_dir=root, data_dir=data)
    options.setdefault("watch_interval", 0.2)
    options.setdefault("full_rescan_interval", HOUR)
    return Toolbox(settings, **options)


async def started(box: Toolbox) -> Toolbox:
    await box.start()
    await asyncio.wait_for(box.wait_ready(), 30)
    return box


async def found(box: Toolbox, query: str) -> list[str]:
    raw = (await box.execute("search_files", {"query": query, "limit": 20})).text
    return [r["path"] for r in json.loads(raw)["results"]]


async def until(box: Toolbox, check: Callable[[], Awaitable[bool]], within: float = 10) -> None:
    """Wait for `check` to hold, looking again after each finished index pass."""
    async with asyncio.timeout(within):
        while True:
            passed = box.indexer.changed  # taken first: a pass finishing meanwhile still counts
            if await check():
                return
            await passed.wait()


def shows(box: Toolbox, query: str, path: str) -> Callable[[], Awaitable[bool]]:
    async def check() -> bool:
        return path in await found(box, query)

    return check


def hides(box: Toolbox, query: str, path: str) -> Callable[[], Awaitable[bool]]:
    async def check() -> bool:
        return path not in await found(box, query)

    return check


async def watching(box: Toolbox) -> None:
    """Wait until the watcher's notifications are in place (its first report follows)."""
    watcher = box.indexer.watcher
    assert watcher is not None

    async def live() -> bool:
        return watcher.live

    await until(box, live)


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    (root / "hr").mkdir(parents=True)
    (root / "hr" / "отпуск.md").write_text("Отпуск длится 28 календарных дней.", "utf-8")
    (root / "аренда.txt").write_text("Договор аренды офиса на Лесной улице.", "utf-8")
    return root


@pytest.fixture
async def box(docs: Path, tmp_path: Path) -> AsyncIterator[Toolbox]:
    toolbox = await started(make_box(docs, tmp_path / "data"))
    try:
        await watching(toolbox)
        yield toolbox
    finally:
        await toolbox.close()


class TestNotifications:
    async def test_a_new_file_in_a_new_folder(self, box: Toolbox, docs: Path) -> None:
        (docs / "новости" / "2025").mkdir(parents=True)
        (docs / "новости" / "2025" / "объявление.txt").write_text(
            "Корпоратив переносится на пятницу.", "utf-8"
        )
        await until(box, shows(box, "корпоратив", "новости/2025/объявление.txt"))

    async def test_a_modified_file(self, box: Toolbox, docs: Path) -> None:
        (docs / "hr" / "отпуск.md").write_text("Теперь здесь про больничные листы.", "utf-8")
        await until(box, shows(box, "больничный", "hr/отпуск.md"))
        assert "hr/отпуск.md" not in await found(box, "календарных")

    async def test_a_deleted_file(self, box: Toolbox, docs: Path) -> None:
        (docs / "аренда.txt").unlink()
        await until(box, hides(box, "аренда", "аренда.txt"))
        assert box.status().documents == 1

    async def test_a_renamed_file_and_folder(self, box: Toolbox, docs: Path) -> None:
        (docs / "аренда.txt").rename(docs / "договор.txt")
        (docs / "hr").rename(docs / "кадры")
        await until(box, shows(box, "отпуск", "кадры/отпуск.md"))
        await until(box, shows(box, "аренда", "договор.txt"))
        assert await found(box, "отпуск") == ["кадры/отпуск.md"]
        assert await found(box, "аренда") == ["договор.txt"]

    async def test_a_folder_moved_in_and_out(
        self, box: Toolbox, docs: Path, tmp_path: Path
    ) -> None:
        outside = tmp_path / "архив"
        (outside / "2019").mkdir(parents=True)
        (outside / "2019" / "смета.txt").write_text("Смета ремонта склада.", "utf-8")
        outside.rename(docs / "архив")
        await until(box, shows(box, "смета", "архив/2019/смета.txt"))
        (docs / "архив").rename(tmp_path / "обратно")
        await until(box, hides(box, "смета", "архив/2019/смета.txt"))
        (docs / "hr").rename(tmp_path / "hr")
        await until(box, hides(box, "отпуск", "hr/отпуск.md"))
        assert box.status().documents == 1

    async def test_a_burst_is_indexed_in_few_passes(self, box: Toolbox, docs: Path) -> None:
        before = box.indexer.passes
        (docs / "пачка").mkdir()
        for index in range(60):
            (docs / "пачка" / f"накладная_{index}.txt").write_text(
                f"Накладная номер {index} на поставку бумаги.", "utf-8"
            )
        await until(box, lambda: _count(box, "накладная", 60))
        assert box.indexer.passes - before < 20

    async def test_hidden_names_and_partial_uploads_stay_out(
        self, box: Toolbox, docs: Path
    ) -> None:
        (docs / ".upload-1.part").write_text("Секретный черновик договора.", "utf-8")
        (docs / ".git" / "objects").mkdir(parents=True)
        (docs / ".git" / "objects" / "x.txt").write_text("секретный объект", "utf-8")
        (docs / ".upload-1.part").rename(docs / "черновик.txt")
        await until(box, shows(box, "черновик", "черновик.txt"))
        assert await found(box, "секретный") == ["черновик.txt"]

    async def test_symlinks_count_as_the_sandbox_decides(
        self, box: Toolbox, docs: Path, tmp_path: Path
    ) -> None:
        (tmp_path / "чужой.txt").write_text("Чужая зарплатная ведомость.", "utf-8")
        (docs / "чужой.txt").symlink_to(tmp_path / "чужой.txt")
        (docs / "ссылка.txt").symlink_to(docs / "аренда.txt")
        await until(box, shows(box, "аренда", "ссылка.txt"))
        assert await found(box, "ведомость") == []

    async def test_refresh_and_wait_synced_still_hold(self, box: Toolbox, docs: Path) -> None:
        (docs / "счёт.txt").write_text("Счёт на оплату интернета.", "utf-8")
        report = await box.refresh("счёт.txt")
        assert report.error is None
        assert await found(box, "интернет") == ["счёт.txt"]
        (docs / "счёт.txt").unlink()
        (docs / "акт.txt").write_text("Акт сверки за квартал.", "utf-8")
        await asyncio.wait_for(box.wait_synced(), 10)
        assert await found(box, "интернет") == []
        assert await found(box, "сверка") == ["акт.txt"]

    async def test_close_is_prompt(self, docs: Path, tmp_path: Path) -> None:
        toolbox = await started(make_box(docs, tmp_path / "data"))
        await watching(toolbox)
        await asyncio.wait_for(toolbox.close(), 5)
        watcher = toolbox.indexer.watcher
        assert watcher is not None
        assert not watcher.live


async def _count(box: Toolbox, query: str, wanted: int) -> bool:
    raw = (await box.execute("search_files", {"query": query, "limit": 5})).text
    return int(json.loads(raw)["total"]) == wanted


class TestTheFolderItself:
    async def test_a_folder_created_after_start(self, tmp_path: Path) -> None:
        root = tmp_path / "later"
        toolbox = await started(make_box(root, tmp_path / "data"))
        try:
            assert toolbox.status().documents == 0
            (root / "приказы").mkdir(parents=True)
            (root / "приказы" / "приказ.txt").write_text("Приказ о премии.", "utf-8")
            await until(toolbox, shows(toolbox, "премия", "приказы/приказ.txt"))
            await watching(toolbox)
            (root / "письмо.txt").write_text("Письмо поставщику бумаги.", "utf-8")
            await until(toolbox, shows(toolbox, "поставщик", "письмо.txt"))
        finally:
            await toolbox.close()

    async def test_a_folder_removed_and_made_again(self, box: Toolbox, docs: Path) -> None:
        shutil.rmtree(docs)
        await until(box, hides(box, "аренда", "аренда.txt"))
        os.mkdir(docs)
        (docs / "новый.txt").write_text("Новый регламент закупок.", "utf-8")
        await until(box, shows(box, "регламент", "новый.txt"))
        await watching(box)
        (docs / "второй.txt").write_text("Второй регламент командировок.", "utf-8")
        await until(box, shows(box, "командировки", "второй.txt"))


@pytest.fixture
def no_notifications(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Every watch fails the way a full inotify watch table makes it fail."""
    attempts: list[int] = []

    def refuse(*args: Any, **kwargs: Any) -> Iterator[set[tuple[watchfiles.Change, str]]]:
        del args, kwargs
        attempts.append(1)
        raise OSError("OS file watch limit reached (MaxFilesWatch)")

    monkeypatch.setattr(watchfiles, "watch", refuse)
    yield attempts


class TestFallback:
    async def test_rescans_stand_in_when_notifications_fail(
        self,
        docs: Path,
        tmp_path: Path,
        no_notifications: list[int],
        caplog: pytest.LogCaptureFixture,
    ) -> None:
        caplog.set_level(logging.WARNING, logger="tools.index.watch")
        toolbox = await started(make_box(docs, tmp_path / "data"))
        try:
            watcher = toolbox.indexer.watcher
            assert watcher is not None

            async def degraded() -> bool:
                return watcher.degraded

            await until(toolbox, degraded)
            assert "watch limit reached" in caplog.text
            assert "rescanning it every" in caplog.text
            (docs / "hr" / "больничный.txt").write_text("Больничный оплачивается.", "utf-8")
            await until(toolbox, shows(toolbox, "больничный", "hr/больничный.txt"))
            (docs / "hr").rename(docs / "кадры")
            await until(toolbox, shows(toolbox, "отпуск", "кадры/отпуск.md"))
            assert no_notifications
        finally:
            await asyncio.wait_for(toolbox.close(), 5)

    async def test_a_name_that_is_not_utf8_does_not_stop_the_index(
        self, box: Toolbox, docs: Path
    ) -> None:
        cp1251_name = os.fsdecode("Смета.txt".encode("cp1251"))  # not valid UTF-8 on disk
        (docs / cp1251_name).write_bytes("Смета на ремонт.".encode("cp1251"))
        (docs / "приказ.txt").write_text("Приказ о премии.", "utf-8")
        await until(box, shows(box, "премия", "приказ.txt"))
        assert box.status().documents == 3

    async def test_notifications_come_back_after_a_failure(
        self, docs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        real = watchfiles.watch
        calls: list[int] = []

        def flaky(*args: Any, **kwargs: Any) -> Iterator[set[tuple[watchfiles.Change, str]]]:
            calls.append(1)
            if len(calls) == 1:
                raise RuntimeError("Error creating recommended watcher: Too many open files")
            return real(*args, **kwargs)

        monkeypatch.setattr(watchfiles, "watch", flaky)
        monkeypatch.setattr(watch_module, "RETRY_AFTER", 0.3)
        toolbox = await started(make_box(docs, tmp_path / "data", watch_interval=HOUR))
        try:
            await watching(toolbox)
            assert toolbox.indexer.watcher is not None
            assert not toolbox.indexer.watcher.degraded
            (docs / "смета.txt").write_text("Смета на ремонт.", "utf-8")
            await until(toolbox, shows(toolbox, "смета", "смета.txt"))
        finally:
            await toolbox.close()

    async def test_polling_by_watchfiles(self, docs: Path, tmp_path: Path) -> None:
        toolbox = await started(make_box(docs, tmp_path / "data", watch="poll"))
        try:
            await watching(toolbox)
            (docs / "hr" / "приказ.txt").write_text("Приказ о премии.", "utf-8")
            await until(toolbox, shows(toolbox, "премия", "hr/приказ.txt"))
            os.unlink(docs / "аренда.txt")
            await until(toolbox, hides(toolbox, "аренда", "аренда.txt"))
        finally:
            await toolbox.close()

    async def test_the_old_rescan_on_request(self, docs: Path, tmp_path: Path) -> None:
        toolbox = await started(make_box(docs, tmp_path / "data", watch="rescan"))
        try:
            assert toolbox.indexer.watcher is None
            (docs / "hr" / "приказ.txt").write_text("Приказ о премии.", "utf-8")
            await until(toolbox, shows(toolbox, "премия", "hr/приказ.txt"))
        finally:
            await toolbox.close()


class TestRescans:
    async def test_a_rescan_that_finds_nothing_new_keeps_the_snapshot(
        self, docs: Path, tmp_path: Path
    ) -> None:
        """What is cached on the snapshot (folded names, a scope's files, the change notices'
        last look) must outlive a rescan that changed nothing, or a folder rescanned every
        second rebuilds it every second."""
        toolbox = await started(make_box(docs, tmp_path / "data", watch="rescan"))
        try:
            before = toolbox.indexer.state.visible
            await toolbox.indexer.wait_synced()
            await toolbox.indexer.wait_synced()
            assert toolbox.indexer.state.visible is before
            (docs / "смета.txt").write_text("Смета на ремонт.", "utf-8")
            await toolbox.indexer.wait_synced()
            assert toolbox.indexer.state.visible is not before
            assert "смета.txt" in toolbox.indexer.state.visible
            assert await found(toolbox, "смета") == ["смета.txt"]
        finally:
            await toolbox.close()


class TestRestart:
    async def test_a_large_folder_is_walked_once_when_its_watch_is_in_place(
        self, docs: Path, tmp_path: Path
    ) -> None:
        """A restart walks the whole folder to catch up, and the watch, once set up, asks for a
        walk of its own (changes made while it was set up were not seen). A large folder's
        first walk waits for the watch, so one walk serves both."""
        await (await started(make_box(docs, tmp_path / "data"))).close()
        toolbox = make_box(docs, tmp_path / "data")
        toolbox.indexer.watch_first_from = 1  # a folder of two files stands in for a large one
        await started(toolbox)
        try:
            watcher = toolbox.indexer.watcher
            assert watcher is not None and watcher.live, "the walk waited for the watch"
            (docs / "смета.txt").write_text("Смета на ремонт.", "utf-8")
            await until(toolbox, shows(toolbox, "смета", "смета.txt"))
            assert toolbox.indexer.full_passes == 1
        finally:
            await toolbox.close()

    async def test_a_small_folder_is_walked_at_once(self, docs: Path, tmp_path: Path) -> None:
        await (await started(make_box(docs, tmp_path / "data"))).close()
        toolbox = make_box(docs, tmp_path / "data")
        toolbox.indexer.watch_first_wait_s = HOUR  # were the walk to wait, ready would not come
        await started(toolbox)
        await toolbox.close()
