"""The notices' background loop: a store that fails is logged once, not at every look."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from bot.notices.changes import FolderChanges
from bot.notices.schedule import NoticeSchedule
from bot.storage.notices.sqlite import SqliteNotices
from tests.fakes.clock import FakeClock


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
    with caplog.at_level(logging.INFO, logger="bot.notices.schedule"):
        for _ in range(3):
            await schedule.start()
            await schedule.stop()
    failures = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert [r.getMessage() for r in failures] == [
        "sending change notices failed; trying again every 10 s"
    ]
