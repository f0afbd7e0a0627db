"""The notices' loop: it starts from the folder the store remembers (at a first start, from
the folder as it is), and a store that fails is logged once, not at every look."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from bot.digests.notices.changes import FolderChanges
from bot.digests.notices.schedule import NoticeSchedule
from bot.storage.notices import Change, Snapshot
from bot.storage.notices.sqlite import SqliteNotices
from tests.fakes.clock import FakeClock


def schedule_over(folder: list[Snapshot], store: SqliteNotices) -> NoticeSchedule:
    """A bot's schedule over the folder's newest snapshot (`folder[-1]`), scanned already."""

    async def send(*_: Any) -> bool:
        raise AssertionError

    return NoticeSchedule(
        FolderChanges(lambda: folder[-1], lambda: True),
        store,
        audience=None,  # type: ignore[arg-type]
        send=send,
        quiet_s=300.0,
    )


async def test_a_restart_records_what_changed_while_no_bot_ran(tmp_path: Path) -> None:
    store = SqliteNotices(tmp_path / "notices.sqlite3")
    try:
        folder: list[Snapshot] = [{"a.txt": (1, 1), "b.txt": (1, 1)}]
        assert await schedule_over(folder, store).observe() == 0
        assert await store.since(0) == []
        folder.append({"a.txt": (2, 2), "c.txt": (1, 1)})
        restarted = schedule_over(folder, store)
        assert await restarted.observe() == 3
        assert await restarted.observe() == 0
        assert [c.change for c in await store.since(0)] == [
            Change("a.txt", "changed", 2, 2),
            Change("b.txt", "removed", 1, 1),
            Change("c.txt", "added", 1, 1),
        ]
        assert await schedule_over(folder, store).observe() == 0
    finally:
        await store.close()


async def test_a_failing_store_is_logged_once_while_it_fails(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = SqliteNotices(tmp_path / "notices.sqlite3")
    await store.close()

    async def send(*_: Any) -> bool:
        raise AssertionError

    schedule = NoticeSchedule(
        FolderChanges(dict, lambda: False),
        store,
        audience=None,  # type: ignore[arg-type]
        send=send,
        quiet_s=300.0,
        clock=FakeClock(),
    )
    with caplog.at_level(logging.INFO, logger="bot.digests.notices.schedule"):
        for _ in range(3):
            await schedule.start()
            await schedule.stop()
    failures = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert [r.getMessage() for r in failures] == [
        "sending change notices failed; trying again every 10 s"
    ]


class _FailsOnce(SqliteNotices):
    """The real store, whose first `record` fails as a database that is restarting would."""

    failed = False

    async def record(self, changes: Any) -> int:
        if not self.failed:
            self.failed = True
            raise OSError("the database is restarting")
        return await super().record(changes)


async def test_changes_a_failed_record_lost_are_found_again(tmp_path: Path) -> None:
    store = _FailsOnce(tmp_path / "notices.sqlite3")
    try:
        folder: list[Snapshot] = [{"a.txt": (1, 1)}]
        schedule = schedule_over(folder, store)
        assert await schedule.observe() == 0
        folder.append({"a.txt": (1, 1), "b.txt": (1, 1)})
        with pytest.raises(OSError, match="restarting"):
            await schedule.observe()
        assert await schedule.observe() == 1
        assert [c.change for c in await store.since(0)] == [Change("b.txt", "added", 1, 1)]
    finally:
        await store.close()


async def test_an_empty_folder_at_a_first_start_is_not_the_starting_point(
    tmp_path: Path,
) -> None:
    """A disk not mounted yet, or a wrong SANDBOX_DIR, at the very first start: once the
    folder is right, its documents are not all news."""
    store = SqliteNotices(tmp_path / "notices.sqlite3")
    try:
        folder: list[Snapshot] = [{}]
        schedule = schedule_over(folder, store)
        assert await schedule.observe() == 0
        assert await store.remembered_folder() is None
        folder.append({"a.txt": (1, 1), "b.txt": (1, 1)})
        assert await schedule.observe() == 0
        assert await store.remembered_folder() == folder[-1]
        folder.append({"a.txt": (1, 1), "b.txt": (1, 1), "c.txt": (1, 1)})
        assert await schedule.observe() == 1
    finally:
        await store.close()
