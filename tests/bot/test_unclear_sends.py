"""A message sent while the connection drops: the answer's parts all arrive, in order.

The drop comes either before Telegram acted (the part is not in the chat) or after (it is,
and the bot cannot know). Either way every part shows, in order, never lost; the only extra
the chat may keep is the copy the bot could not know about, right above the part's resend,
or a stray cursor when a placeholder's own send was the unclear one.
"""

from __future__ import annotations

from typing import Any

import aiohttp
import pytest

from bot.telegram.texts import RUSSIAN
from tests.bot.stream_support import LONG, Watch, group_question, slow_stream
from tests.fakes.accounts import USER_ID
from tests.fakes.fixtures import DispatcherFactory

LONGER = f"{LONG}\n\n{LONG}"  # five parts and more
PLACEHOLDER = "▌"


def in_private(harness: Any) -> Any:
    return harness.updates.message("расскажи всё")


def in_group(harness: Any) -> Any:
    return group_question(harness.updates, "расскажи всё", user_id=USER_ID)


def answer_sends(harness: Any) -> int:
    """sendMessage calls made for the answer (not the status line) so far."""
    return sum(
        1 for c in harness.session.called("sendMessage") if c.text != RUSSIAN.progress_thinking
    )


async def run(
    make_dispatcher: DispatcherFactory,
    ask: Any,
    settings: dict[str, Any],
    *,
    fail: int | None = None,
    carried: bool = False,
) -> tuple[list[str], int]:
    """The chat after one long answer, and how many answer sends it took; the `fail`-th
    answer send (0-based) gets a dropped connection, after Telegram acted if `carried`."""
    async with make_dispatcher(**settings) as harness:
        watch = Watch.on(harness.session)

        async def drop(method: Any) -> None:
            if method.text == RUSSIAN.progress_thinking or answer_sends(harness) - 1 != fail:
                return
            cause = aiohttp.ServerDisconnectedError()
            if carried:
                harness.session.add_lost_reply("sendMessage", cause)
            else:
                harness.session.add_network_error("sendMessage", cause)

        if settings.get("stream") != "off":
            slow_stream(harness.llm, chars=96, delay_s=0.003)
        harness.llm.reply_text(LONGER)
        harness.session.hooks["sendMessage"] = drop
        await harness.feed(ask(harness))
        assert fail is None or len(watch.refused) >= 1, "the drop happened"
        assert fail is None or carried == bool(harness.session.lost_replies)
        return watch.screen_html(), answer_sends(harness)


def without_one_repeat(screen: list[str]) -> list[str]:
    """The chat with one part shown twice in a row counted once."""
    for index in range(1, len(screen)):
        if screen[index] == screen[index - 1]:
            return screen[:index] + screen[index + 1 :]
    return screen


WHERE = [
    pytest.param(in_private, {}, id="private"),
    pytest.param(in_group, {}, id="group"),
    pytest.param(in_private, {"show_progress": False}, id="private-no-progress"),
    pytest.param(in_group, {"show_progress": False}, id="group-no-progress"),
]


@pytest.mark.parametrize("stream", ["off", "auto"], ids=["whole", "streamed"])
@pytest.mark.parametrize(("ask", "where"), WHERE)
class TestDroppedConnection:
    @pytest.mark.parametrize("which", ["first", "middle", "last"])
    async def test_before_telegram_acted_every_part_arrives_once(
        self,
        make_dispatcher: DispatcherFactory,
        ask: Any,
        where: dict[str, Any],
        stream: str,
        which: str,
    ) -> None:
        settings = {**where, "stream": stream}
        clean, sends = await run(make_dispatcher, ask, settings)
        assert len(clean) >= 4, "a long answer in several messages"
        fail = {"first": 0, "middle": sends // 2, "last": sends - 1}[which]
        screen, _ = await run(make_dispatcher, ask, settings, fail=fail)
        assert screen == clean, "every part exactly once, in order, nothing stray"

    @pytest.mark.parametrize("which", ["first", "last"])
    async def test_after_telegram_acted_no_part_is_lost(
        self,
        make_dispatcher: DispatcherFactory,
        ask: Any,
        where: dict[str, Any],
        stream: str,
        which: str,
    ) -> None:
        settings = {**where, "stream": stream}
        clean, sends = await run(make_dispatcher, ask, settings)
        fail = {"first": 0, "middle": sends // 2, "last": sends - 1}[which]
        screen, _ = await run(make_dispatcher, ask, settings, fail=fail, carried=True)
        answer = [text for text in screen if text != PLACEHOLDER]
        assert len(screen) - len(answer) <= 1, "at most the stray cursor of an unclear send"
        assert without_one_repeat(answer) == clean, "every part in order, none lost"
        assert len(answer) - len(clean) <= 1, "at most the copy the bot could not know about"
