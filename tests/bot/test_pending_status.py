"""Status messages are remembered on disk while shown, and tidied up after a crash and restart."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest
from aiogram import Bot

from bot.process.data_files import PENDING_STATUS_FILE
from bot.storage.pending_status import PendingStatus
from bot.storage.pending_status.sqlite import SqlitePendingStatusStore
from bot.telegram.output.pending_status import tidy_leftovers
from bot.telegram.texts import ENGLISH, RUSSIAN
from bot.telegram.tuning import Tuning
from tests.fakes.accounts import USER_ID
from tests.fakes.fake_llm import Reply
from tests.fakes.fake_telegram import FakeTelegramSession
from tests.fakes.harness import Harness

GROUP_ID = -100500


def _store(harness: Harness) -> SqlitePendingStatusStore:
    store = harness.dp.workflow_data["upkeep"].pending_status
    assert isinstance(store, SqlitePendingStatusStore)
    return store


def _record_while_thinking(harness: Harness, seen: list[list[PendingStatus]]) -> None:
    """Hold the first model request until the status is shown, and note the records then.

    Typing starts only after the status message was sent and its record queued; the store
    runs its work in order, so a read queued after that sees the record.
    """

    async def responder(_: dict[str, Any]) -> Reply | None:
        if len(harness.llm.requests) == 1:
            await harness.session.wait_for(lambda s: bool(s.called("sendChatAction")))
            seen.append(await _store(harness).all())
        return None

    harness.llm.responder = responder


async def _write_leftovers(data_dir: Path, *records: PendingStatus) -> None:
    """What a previous run killed mid-question left on disk."""
    store = SqlitePendingStatusStore(data_dir / PENDING_STATUS_FILE)
    for record in records:
        await store.add(record)
    await store.close()


async def _read_records(data_dir: Path) -> list[PendingStatus]:
    store = SqlitePendingStatusStore(data_dir / PENDING_STATUS_FILE)
    try:
        return await store.all()
    finally:
        await store.close()


class TestRecordedWhileShown:
    async def test_recorded_when_sent_and_forgotten_after_the_answer(
        self, harness: Harness
    ) -> None:
        seen: list[list[PendingStatus]] = []
        _record_while_thinking(harness, seen)
        harness.llm.reply_text("Ответ.")
        await harness.feed(harness.updates.message("вопрос"))
        assert seen == [[PendingStatus(USER_ID, 100, "ru", None)]]
        assert harness.session.sent_texts()[-1].startswith("Ответ.")
        assert await _store(harness).all() == []

    async def test_forgotten_after_a_model_error(self, harness: Harness) -> None:
        seen: list[list[PendingStatus]] = []
        _record_while_thinking(harness, seen)
        harness.llm.reply_error(503)
        await harness.feed(harness.updates.message("How much sugar?", language_code="en"))
        assert seen == [[PendingStatus(USER_ID, 100, "en", None)]]
        assert harness.session.called("editMessageText")[-1].text.startswith("⚠️")
        assert await _store(harness).all() == []

    async def test_forgotten_when_shutdown_cuts_the_question(
        self, make_dispatcher: Any, tmp_path: Path
    ) -> None:
        tuning = Tuning(edit_interval_s=0.0, shutdown_grace_s=0.2)
        async with make_dispatcher(tuning=tuning) as harness:
            harness.llm.reply_hang()
            feeding = asyncio.create_task(harness.feed(harness.updates.message("вопрос")))
            await harness.llm.wait_for_requests(1)
            await harness.session.wait_for(lambda s: bool(s.called("sendChatAction")))
            assert [r.message_id for r in await _store(harness).all()] == [100]
            await harness.dp.emit_shutdown(bot=harness.bot, **harness.dp.workflow_data)
            assert feeding.cancelled()
        assert await _read_records(tmp_path / "data") == []

    async def test_no_record_without_a_status_message(self, make_dispatcher: Any) -> None:
        async with make_dispatcher(show_progress=False) as harness:
            harness.llm.reply_text("Ответ.")
            await harness.feed(harness.updates.message("вопрос"))
            assert harness.session.sent_texts() == ["Ответ."]
            assert await _store(harness).all() == []


class TestLeftoversAtStartup:
    async def test_leftovers_become_the_restart_notice_and_are_cleared(
        self, make_dispatcher: Any, bot_session: FakeTelegramSession, tmp_path: Path
    ) -> None:
        data_dir = tmp_path / "data"
        await _write_leftovers(
            data_dir,
            PendingStatus(USER_ID, 7, "ru"),
            PendingStatus(GROUP_ID, 9, "en", thread_id=3),
        )
        bot_session.add_message(USER_ID, 7)
        bot_session.add_message(GROUP_ID, 9)
        async with make_dispatcher() as harness:
            edits = [c for c in harness.startup_calls if c.__api_method__ == "editMessageText"]
            assert {(e.chat_id, e.message_id, e.text) for e in edits} == {
                (USER_ID, 7, RUSSIAN.progress_restarted),
                (GROUP_ID, 9, ENGLISH.progress_restarted),
            }
            assert await _store(harness).all() == []
        assert await _read_records(data_dir) == []

    async def test_a_vanished_message_does_not_stop_the_others(
        self,
        make_dispatcher: Any,
        bot_session: FakeTelegramSession,
        tmp_path: Path,
        caplog: pytest.LogCaptureFixture,
    ) -> None:
        data_dir = tmp_path / "data"
        await _write_leftovers(
            data_dir,
            PendingStatus(USER_ID, 7, "ru"),
            PendingStatus(USER_ID, 8, "ru"),
            PendingStatus(USER_ID, 9, "ru"),
        )
        # newest first: message 9 is gone, 8 and 7 are still there
        bot_session.add_message(USER_ID, 8)
        bot_session.add_message(USER_ID, 7)
        with caplog.at_level(logging.INFO, logger="bot.telegram.output.pending_status"):
            async with make_dispatcher() as harness:
                edits = [c for c in harness.startup_calls if c.__api_method__ == "editMessageText"]
                assert [e.message_id for e in edits] == [9, 8, 7]
                assert await _store(harness).all() == []
        assert "message to edit not found" in caplog.text
        assert "edited 2 of 3" in caplog.text

    async def test_only_the_newest_are_edited_when_too_many_were_left(
        self, bot: Bot, bot_session: FakeTelegramSession, tmp_path: Path
    ) -> None:
        await _write_leftovers(tmp_path, *(PendingStatus(USER_ID, n, "ru") for n in range(1, 6)))
        for message_id in range(1, 6):
            bot_session.add_message(USER_ID, message_id)
        store = SqlitePendingStatusStore(tmp_path / PENDING_STATUS_FILE)
        try:
            edited = await tidy_leftovers(bot, store, limit=2)
            assert edited == 2
            assert [c.message_id for c in bot_session.called("editMessageText")] == [5, 4]
            assert await store.all() == []
        finally:
            await store.close()
