"""Streamed answers when a call goes wrong: a message that arrived though the bot was told it
failed, and an error after drafts were shown (a draft must not outstay the answer)."""

from __future__ import annotations

from typing import Any

import aiohttp
import pytest

from bot.telegram.texts import RUSSIAN
from tests.bot.stream_support import (
    ANSWER,
    LONG,
    Watch,
    group_question,
    slow_stream,
    whole_answer,
)
from tests.fakes.accounts import USER_ID
from tests.fakes.fake_llm import Reply, text_reply
from tests.fakes.fixtures import DispatcherFactory
from tests.fakes.harness import Harness


def in_private(harness: Harness) -> Any:
    return harness.updates.message("расскажи всё")


def in_group(harness: Harness) -> Any:
    return group_question(harness.updates, "расскажи всё", user_id=USER_ID)


class TestUnclearSend:
    @pytest.mark.parametrize("ask", [in_private, in_group], ids=["drafts", "edits"])
    async def test_a_message_delivered_without_an_answer_leaves_the_answer_once(
        self, make_dispatcher: DispatcherFactory, bot_session: Any, ask: Any
    ) -> None:
        watch = Watch.on(bot_session)
        expected = await whole_answer(
            make_dispatcher, watch, lambda llm: llm.reply_text(LONG), ask
        )
        assert len(expected) >= 2
        lost: list[Any] = []

        async def drop_the_reply(method: Any) -> None:
            if not lost and method.text != RUSSIAN.progress_thinking:  # a message while streaming
                lost.append(method)
                harness.session.add_lost_reply("sendMessage", aiohttp.ServerDisconnectedError())

        async with make_dispatcher() as harness:
            slow_stream(harness.llm, chars=24, delay_s=0.003)
            harness.llm.reply_text(LONG)
            harness.session.hooks["sendMessage"] = drop_the_reply
            await harness.feed(ask(harness))
        assert harness.session.lost_replies, "a message arrived and the bot was not told"
        screen = watch.screen_html()
        answer = [text for text in screen if text != "▌"]
        assert answer == expected, "every part exactly once, in order"
        assert len(screen) - len(answer) <= 1, "at most the stray cursor of the unclear send"


class TestErrorAfterDrafts:
    async def test_the_last_draft_says_what_the_error_message_says(
        self, make_dispatcher: DispatcherFactory, bot_session: Any
    ) -> None:
        watch = Watch.on(bot_session)
        async with make_dispatcher() as harness:
            slow_stream(harness.llm)
            harness.llm.reply(Reply(body=text_reply(ANSWER).body, garble_after=30))
            harness.llm.reply_error(503)
            await harness.feed(harness.updates.message("шарлотка?"))
        assert watch.drafted("Для"), "part of the answer was drafted"
        messages = [s for s in watch.shown if s.message_id is not None]
        error = next(s for s in messages if s.text == RUSSIAN.error_unavailable)
        assert error.method == "sendMessage", "a new message, which ends the draft"
        last_draft = [d for d in watch.drafts() if d.at <= error.at][-1]
        assert last_draft.text == RUSSIAN.error_unavailable, "no stale half answer beside it"
        assert watch.screen() == [RUSSIAN.error_unavailable]

    async def test_an_error_after_a_finished_part_still_arrives_as_a_new_message(
        self, make_dispatcher: DispatcherFactory, bot_session: Any
    ) -> None:
        watch = Watch.on(bot_session)
        async with make_dispatcher() as harness:
            slow_stream(harness.llm, chars=24, delay_s=0.006)
            harness.llm.reply(Reply(body=text_reply(LONG).body, garble_after=300))
            harness.llm.reply_error(503)
            await harness.feed(harness.updates.message("расскажи всё"))
        made = [
            s.text
            for s in watch.shown
            if s.method == "sendMessage"
            and s.text not in {RUSSIAN.progress_thinking, RUSSIAN.error_unavailable}
        ]
        assert made, "a message was made for the finished first part while streaming"
        showing = [
            s
            for s in watch.shown
            if s.message_id is not None and s.text == RUSSIAN.error_unavailable
        ]
        assert [s.method for s in showing] == ["sendMessage"]
        assert watch.screen() == [RUSSIAN.error_unavailable]
