"""A message the display opens starts as a bare cursor; when its own send is unclear (the
connection dropped after Telegram posted it), the display stops there.

The message may be in the chat with an id the bot will never learn, so nothing more of the
answer may go on screen by the display: the final delivery sends all of it, and the chat keeps
one stray cursor above the answer, however often the connection drops again.
"""

from __future__ import annotations

import asyncio
from typing import Any

import aiohttp
import pytest
from aiogram.methods import TelegramMethod

from tests.bot.stream_support import LONG, Watch, group_question, slow_stream
from tests.fakes.accounts import USER_ID
from tests.fakes.fixtures import DispatcherFactory

PLACEHOLDER = "▌"


def in_private(harness: Any) -> Any:
    return harness.updates.message("расскажи всё")


def in_group(harness: Any) -> Any:
    return group_question(harness.updates, "расскажи всё", user_id=USER_ID)


async def chat_after(
    make_dispatcher: DispatcherFactory, ask: Any, *, drop_placeholders: bool
) -> tuple[list[str], int]:
    """The chat after a long streamed answer, and how many placeholders the bot sent; with
    `drop_placeholders`, every placeholder is posted and its reply lost on the way back."""
    async with make_dispatcher(show_progress=False) as harness:
        watch = Watch.on(harness.session)

        async def drop(method: TelegramMethod[Any]) -> None:
            await asyncio.sleep(0)  # a real send lets the stream go on while it waits
            if drop_placeholders and getattr(method, "text", None) == PLACEHOLDER:
                cause = aiohttp.ServerDisconnectedError()
                harness.session.add_lost_reply("sendMessage", cause)

        slow_stream(harness.llm, chars=24, delay_s=0.003)
        harness.llm.reply_text(LONG)
        harness.session.hooks["sendMessage"] = drop
        await harness.feed(ask(harness))
        opened = [c for c in harness.session.called("sendMessage") if c.text == PLACEHOLDER]
        return watch.screen_html(), len(opened)


@pytest.mark.parametrize(
    "ask",
    [
        pytest.param(in_private, id="private-drafts"),
        pytest.param(in_group, id="group-edits"),
    ],
)
class TestUnclearPlaceholder:
    async def test_the_display_stops_and_the_answer_arrives_once_below_one_stray_cursor(
        self, make_dispatcher: DispatcherFactory, ask: Any
    ) -> None:
        clean, opened = await chat_after(make_dispatcher, ask, drop_placeholders=False)
        assert opened >= 1, "the display opens its messages with the cursor"
        assert len(clean) >= 2, "a long answer in several messages"

        screen, tried = await chat_after(make_dispatcher, ask, drop_placeholders=True)
        assert tried == 1, "no placeholder after the unclear one"
        assert screen == [PLACEHOLDER, *clean], "one stray cursor, then every part once"
