"""Telegram's refusals and network failures: the answer still arrives, exactly once.

Edits that Telegram refuses ("not modified", "not found", "can't be edited"), network errors
on send, a user who blocks the bot mid-answer, and long polling through bad gateways, dropped
connections and refused connections.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any
from urllib.parse import urlsplit

import pytest
from aiogram.exceptions import TelegramForbiddenError, TelegramNetworkError
from aiogram.methods import TelegramMethod

from tests.fakes.accounts import USER_ID
from tests.fakes.fake_llm import Reply
from tests.fakes.harness import Harness
from tests.reliability.flaky_bot_api import FlakyBotApi
from tests.reliability.network import Mode, TcpGate
from tests.reliability.polling import http_bot, polling, watching
from tests.reliability.transcript import Transcript

EDIT_REFUSALS = [
    "Bad Request: message is not modified: specified new message content and reply markup "
    "are exactly the same as a current content and reply markup of the message",
    "Bad Request: message to edit not found",
    "Bad Request: message can't be edited",
]


def hold_round(harness: Harness, number: int, until: Any) -> None:
    """Hold model request `number` until the fake Telegram has seen `until(session)`."""

    async def responder(_: dict[str, Any]) -> Reply | None:
        if len(harness.llm.requests) == number:
            await harness.session.wait_for(until)
        return None

    harness.llm.responder = responder


class TestRefusedEdits:
    @pytest.mark.parametrize("refusal", EDIT_REFUSALS, ids=["not-modified", "not-found", "cant"])
    async def test_final_edit_refused_the_answer_arrives_once(
        self, harness: Harness, transcript: Transcript, refusal: str
    ) -> None:
        harness.llm.reply_text("Ответ.")
        harness.session.add_error("editMessageText", 400, refusal)
        await harness.feed(harness.updates.message("вопрос"))
        assert transcript.replies(USER_ID) == ["Ответ."]
        assert list(transcript.visible(USER_ID).values()) == ["Ответ."], "stale status removed"

    @pytest.mark.parametrize("refusal", EDIT_REFUSALS, ids=["not-modified", "not-found", "cant"])
    async def test_status_edit_refused_the_answer_arrives_once(
        self, harness: Harness, transcript: Transcript, refusal: str
    ) -> None:
        harness.llm.reply_tool_calls(("search_files", {"query": "шарлотка"}))
        harness.llm.reply_text("Стакан сахара.")
        harness.session.add_error("editMessageText", 400, refusal)
        # A status edit is guaranteed while the model works on round 2 (which line it shows
        # depends on pacing: the tool may already have finished).
        hold_round(harness, 2, lambda s: len(s.called("editMessageText")) >= 1)
        await harness.feed(harness.updates.message("Сколько сахара?"))
        assert transcript.replies(USER_ID) == ["Стакан сахара."]

    async def test_blocked_while_answering_is_dropped_quietly(
        self, harness: Harness, transcript: Transcript, caplog: pytest.LogCaptureFixture
    ) -> None:
        blocked = asyncio.Event()
        refused: list[str] = []

        async def refuse_once_blocked(method: TelegramMethod[Any]) -> None:
            if blocked.is_set():
                refused.append(method.__api_method__)
                raise TelegramForbiddenError(method, "Forbidden: bot was blocked by the user")

        for name in ("sendMessage", "editMessageText", "sendChatAction"):
            harness.session.hooks[name] = refuse_once_blocked

        async def block_on_round_two(_: dict[str, Any]) -> Reply | None:
            if len(harness.llm.requests) == 2:
                blocked.set()
            return None

        harness.llm.responder = block_on_round_two
        harness.llm.reply_tool_calls(("search_files", {"query": "шарлотка"}))
        harness.llm.reply_text("Стакан сахара.")
        with caplog.at_level(logging.INFO):
            await asyncio.wait_for(harness.feed(harness.updates.message("вопрос")), 30)

        assert transcript.replies(USER_ID) == []
        assert any("blocked the bot" in r.getMessage() for r in caplog.records)
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
        answer_attempts = [m for m in refused if m != "sendChatAction"]
        assert 1 <= len(answer_attempts) <= 2, "a blocked chat is not retried"


class TestNetworkErrorsOnSend:
    async def test_network_error_on_the_final_edit_is_retried(
        self, make_dispatcher: Any, transcript: Transcript
    ) -> None:
        failures = ["Connection reset by peer"]

        async def flaky(method: TelegramMethod[Any]) -> None:
            if failures and "Ответ" in str(getattr(method, "text", "")):
                raise TelegramNetworkError(method, failures.pop())

        async with make_dispatcher(stream="off") as harness:  # the answer is the status edit
            harness.session.hooks["editMessageText"] = flaky
            harness.llm.reply_text("Ответ после сбоя сети.")
            await asyncio.wait_for(harness.feed(harness.updates.message("вопрос")), 30)
        assert not failures
        assert transcript.replies(USER_ID) == ["Ответ после сбоя сети."]


@pytest.fixture
async def api_gate(bot_api: FlakyBotApi) -> Any:
    port = urlsplit(bot_api.base_url).port
    assert port is not None
    gate = TcpGate(port)
    await gate.start()
    try:
        yield gate
    finally:
        await gate.close()


def polls(calls: list[Any]) -> int:
    return sum(c.method == "getUpdates" for c in calls)


class TestPollingRecovers:
    async def test_bad_gateways_dropped_and_refused_connections(
        self, make_dispatcher: Any, bot_api: FlakyBotApi, api_gate: TcpGate
    ) -> None:
        async with make_dispatcher() as harness:
            harness.llm.reply_text("Ответ после сбоев.")
            bot_api.fail("getUpdates", 502, "Bad Gateway", times=3)
            bot_api.fail("getUpdates", 500, "Internal Server Error")
            with watching("aiogram.dispatcher", "Failed to fetch updates") as failed:
                async with polling(harness.dp, http_bot(api_gate.base)):
                    await bot_api.wait_for(lambda calls: polls(calls) >= 5, 15)
                    assert failed.count == 4

                    await api_gate.set_mode(Mode.DROP)
                    await failed.wait_for(failed.count + 3)
                    await api_gate.refuse()
                    await failed.wait_for(failed.count + 3)
                    await api_gate.reopen()

                    question = harness.updates.message_json("Вопрос после сбоев")
                    await bot_api.push_update("message", question)
                    await bot_api.wait_for(
                        lambda _: "Ответ после сбоев." in bot_api.texts_to(USER_ID), 15
                    )
            assert bot_api.texts_to(USER_ID).count("Ответ после сбоев.") == 1
            assert len(harness.llm.requests) == 1
