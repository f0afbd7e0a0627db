"""The status message and typing action: order, notifications, the writing line, stopping."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

from aiogram import Bot
from aiogram.methods import TelegramMethod

from bot.agent.types import ToolStarted
from bot.telegram.output.pacing import ChatPlace, EditPacer
from bot.telegram.output.progress import Progress
from bot.telegram.texts import RUSSIAN
from bot.telegram.tuning import Tuning
from tests.fakes.accounts import USER_ID
from tests.fakes.fake_llm import Reply
from tests.fakes.fake_telegram import FakeTelegramSession
from tests.fakes.harness import Harness, RecordedSleep

CHARLOTTE_PATH = "документы/рецепт_шарлотки.txt"


def _methods(session: FakeTelegramSession) -> list[str]:
    return [c.__api_method__ for c in session.calls]


class TestStatusMessage:
    async def test_status_goes_first_and_silently_then_typing(self, harness: Harness) -> None:
        harness.llm.reply_text("Ответ.")
        await harness.feed(harness.updates.message("вопрос"))
        methods = _methods(harness.session)
        assert methods[0] == "sendMessage"
        assert harness.session.called("sendMessage")[0].disable_notification is True
        assert "sendChatAction" not in methods or methods.index("sendChatAction") > 0

    async def test_writing_line_shows_after_the_last_tool(self, harness: Harness) -> None:
        harness.llm.reply_tool_calls(("read_file", {"path": CHARLOTTE_PATH}))
        harness.llm.reply_text("Стакан сахара.")

        async def responder(_: dict[str, Any]) -> Reply | None:
            if len(harness.llm.requests) == 2:
                await harness.session.wait_for(
                    lambda s: any(
                        e.text == RUSSIAN.progress_writing for e in s.called("editMessageText")
                    )
                )
            return None

        harness.llm.responder = responder
        await harness.feed(harness.updates.message("сколько сахара?"))
        edits = [str(e.text) for e in harness.session.called("editMessageText")]
        assert RUSSIAN.progress_writing in edits
        assert harness.session.sent_texts()[-1].startswith("Стакан сахара.")

    async def test_a_long_wait_ends_in_a_new_message_that_notifies(
        self, make_dispatcher: Any
    ) -> None:
        ticks = itertools.count(0, 30)
        tuning = Tuning(
            edit_interval_s=0.0, sleep=RecordedSleep(), clock=lambda: float(next(ticks))
        )
        async with make_dispatcher(tuning=tuning) as harness:
            harness.llm.reply_text("Ответ.")
            await harness.feed(harness.updates.message("вопрос"))
            sends = harness.session.called("sendMessage")
            assert [str(m.text) for m in sends] == [RUSSIAN.progress_thinking, "Ответ."]
            assert not sends[1].disable_notification
            status_id = 100  # the fake's first message id
            assert [c.message_id for c in harness.session.called("deleteMessage")] == [status_id]
            assert not harness.session.called("editMessageText")


class TestStopping:
    async def test_an_edit_on_its_way_is_not_cut(
        self, bot: Bot, bot_session: FakeTelegramSession
    ) -> None:
        release = asyncio.Event()
        landed: list[str] = []

        async def slow_edit(method: TelegramMethod[Any]) -> None:
            await release.wait()
            landed.append(str(method.text))  # type: ignore[attr-defined]

        bot_session.hooks["editMessageText"] = slow_edit
        progress = Progress(bot, ChatPlace(USER_ID), RUSSIAN, EditPacer(0.0))
        async with progress:
            await bot_session.wait_for(lambda s: bool(s.called("sendMessage")))
            await progress.on_event(
                ToolStarted("c1", "search_files", {"query": "шарлотка"}, "шарлотка")
            )
            await bot_session.wait_for(lambda s: bool(s.called("editMessageText")))
            stopping = asyncio.create_task(progress.stop())
            await asyncio.sleep(0)  # one turn of the loop: stop() has begun
            release.set()
            await stopping
        assert landed == ["🔎 Ищу «шарлотка»…"]


class TestLending:
    async def test_a_lent_status_shows_no_lines_until_taken_back(
        self, bot: Bot, bot_session: FakeTelegramSession
    ) -> None:
        progress = Progress(bot, ChatPlace(USER_ID), RUSSIAN, EditPacer(0.0))
        async with progress:
            await bot_session.wait_for(lambda s: bool(s.called("sendMessage")))
            status_id = await progress.lend()
            assert status_id == progress.status_message_id
            await progress.on_event(
                ToolStarted("c1", "search_files", {"query": "шарлотка"}, "шарлотка")
            )
            await asyncio.sleep(0.05)
            assert not bot_session.called("editMessageText"), "the answer owns the message"
            progress.take_back()
            await bot_session.wait_for(lambda s: bool(s.called("editMessageText")))
        (edit,) = bot_session.called("editMessageText")
        assert edit.message_id == status_id
        assert edit.text == "🔎 Ищу «шарлотка»…"

    async def test_lending_waits_for_an_edit_on_its_way(
        self, bot: Bot, bot_session: FakeTelegramSession
    ) -> None:
        release = asyncio.Event()

        async def slow_edit(_: TelegramMethod[Any]) -> None:
            await release.wait()

        bot_session.hooks["editMessageText"] = slow_edit
        progress = Progress(bot, ChatPlace(USER_ID), RUSSIAN, EditPacer(0.0))
        async with progress:
            await bot_session.wait_for(lambda s: bool(s.called("sendMessage")))
            await progress.on_event(ToolStarted("c1", "read_file", {"path": "a.txt"}, "a.txt"))
            await bot_session.wait_for(lambda s: bool(s.called("editMessageText")))
            lending = asyncio.create_task(progress.lend())
            await asyncio.sleep(0.05)
            assert not lending.done(), "the status edit has not landed yet"
            release.set()
            assert await lending == progress.status_message_id
