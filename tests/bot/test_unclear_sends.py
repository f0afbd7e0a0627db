"""A message sent while the connection drops: the answer's parts all arrive, in order.

The drop comes either before Telegram acted (the part is not in the chat) or after (it is,
and the bot cannot know). Either way every part shows, in order, never lost; the only extra
the chat may keep is the copy the bot could not know about, right above the part's resend,
or a stray cursor when a placeholder's own send was the unclear one.
"""

from __future__ import annotations

from dataclasses import dataclass
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


@dataclass(frozen=True)
class Chat:
    """The chat after one answer: its messages by id, oldest first; those whose send's reply
    was lost (in the chat, though the bot was never told); the answer sends it took."""

    messages: list[tuple[int, str]]
    lost: frozenset[int]
    sends: int

    @property
    def screen(self) -> list[str]:
        return [text for _, text in self.messages]

    def known(self) -> list[str]:
        """The messages the bot knows it made: the chat without the lost ones."""
        return [text for message_id, text in self.messages if message_id not in self.lost]


async def run(
    make_dispatcher: DispatcherFactory,
    ask: Any,
    settings: dict[str, Any],
    *,
    fail: int | None = None,
    drops: int = 1,
    carried: bool = False,
) -> Chat:
    """The chat after one long answer; from the `fail`-th answer send (0-based) on, `drops`
    sends in a row get a dropped connection, after Telegram acted if `carried`."""
    async with make_dispatcher(**settings) as harness:
        watch = Watch.on(harness.session)

        async def drop(method: Any) -> None:
            if method.text == RUSSIAN.progress_thinking or fail is None:
                return
            if not fail <= answer_sends(harness) - 1 < fail + drops:
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
        lost = frozenset(int(result.message_id) for _, result in harness.session.lost_replies)
        assert fail is None or carried == bool(lost)
        messages = [(message_id, watch.html[message_id]) for message_id in sorted(watch.html)]
        return Chat(messages, lost, answer_sends(harness))


def assert_only_what_the_bot_could_not_know(chat: Chat, clean: list[str]) -> None:
    """Exactly the whole answer, plus each message whose reply was lost and nothing else:
    a bare cursor, or a copy of a part right above that part's resend (cursors aside), never
    above another lost copy (the part was sent blind only once)."""
    assert PLACEHOLDER not in clean
    assert chat.known() == clean, "every part once, in order, and no other extra"
    for index, (message_id, text) in enumerate(chat.messages):
        if message_id not in chat.lost or text == PLACEHOLDER:
            continue
        below = [(i, t) for i, t in chat.messages[index + 1 :] if t != PLACEHOLDER]
        assert below, f"a lost copy with no resend below it: {text[:40]!r}"
        assert below[0][1] == text, "a lost copy sits right above its part's resend"
        assert below[0][0] not in chat.lost, "the part was sent blind twice"


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
        clean = await run(make_dispatcher, ask, settings)
        assert len(clean.screen) >= 4, "a long answer in several messages"
        fail = {"first": 0, "middle": clean.sends // 2, "last": clean.sends - 1}[which]
        chat = await run(make_dispatcher, ask, settings, fail=fail)
        assert chat.screen == clean.screen, "every part exactly once, in order, nothing stray"

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
        clean = await run(make_dispatcher, ask, settings)
        fail = {"first": 0, "last": clean.sends - 1}[which]
        chat = await run(make_dispatcher, ask, settings, fail=fail, carried=True)
        assert len(chat.lost) == 1
        assert len(chat.screen) == len(clean.screen) + 1, "exactly the one message it lost"
        assert_only_what_the_bot_could_not_know(chat, clean.screen)

    @pytest.mark.parametrize("which", ["first", "last"])
    async def test_a_resend_unclear_too_shows_the_part_at_most_twice(
        self,
        make_dispatcher: DispatcherFactory,
        ask: Any,
        where: dict[str, Any],
        stream: str,
        which: str,
    ) -> None:
        settings = {**where, "stream": stream}
        clean = await run(make_dispatcher, ask, settings)
        fail = {"first": 0, "last": clean.sends - 1}[which]
        chat = await run(make_dispatcher, ask, settings, fail=fail, drops=2, carried=True)
        assert_only_what_the_bot_could_not_know(chat, clean.screen)
