"""What the streaming tests share: the chat as its user sees it, drafts included, over time.

`Watch` wraps a fake session's `make_request` to keep what a user would see: every message
with its newest text, every draft, each with the moment it was shown, and every call Telegram
refused. Texts are compared as the user reads them (`visible`), without markup.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from aiogram import Bot
from aiogram.methods import TelegramMethod

from tests.fakes.accounts import BOT_USERNAME
from tests.fakes.fake_llm import FakeLLM
from tests.fakes.fake_telegram import FakeTelegramSession
from tests.fakes.fixtures import DispatcherFactory
from tests.fakes.telegram_html import read_html
from tests.fakes.updates import Updates, mention_entity

GROUP_ID = -100_321
CURSORS = ("▌", "…")
CHARLOTTE = "документы/рецепт_шарлотки.txt"
ANSWER = (
    "Для шарлотки нужны **1 стакан сахара**, `3 яйца` и мука.\n\n"
    "1. Взбейте яйца с сахаром до пены.\n"
    "2. Добавьте муку и *аккуратно* перемешайте.\n"
    "3. Выложите яблоки, залейте тестом.\n\n"
    "Подробнее в [рецепте](https://example.com/charlotte): выпекайте 40 минут при 180 °C, "
    "пока верх не станет золотистым, а шпажка не будет выходить сухой."
)
LONG = "\n\n".join(
    f"Абзац {i}: " + " ".join(f"слово{j}" for j in range(60)) + f" конец-{i}." for i in range(16)
)


def visible(text: str, parse_mode: str | None) -> str:
    """What a user reads for `text` sent with `parse_mode`."""
    return read_html(text).text.strip() if parse_mode == "HTML" else text.strip()


def without_cursor(text: str) -> str:
    for cursor in CURSORS:
        text = text.removesuffix(cursor)
    return text.rstrip()


@dataclass
class Shown:
    """One draft or edit as it reached the user."""

    at: float
    method: str
    text: str
    html: str
    message_id: int | None = None


@dataclass
class Watch:
    """The chat as the user sees it: messages by id, drafts and edits in order, refusals."""

    session: FakeTelegramSession
    messages: dict[int, str] = field(default_factory=dict)
    html: dict[int, str] = field(default_factory=dict)
    shown: list[Shown] = field(default_factory=list)
    refused: list[tuple[str, str]] = field(default_factory=list)

    @classmethod
    def on(cls, session: FakeTelegramSession) -> Watch:
        watch = cls(session)
        original = session.make_request

        async def make_request(
            bot: Bot,
            method: TelegramMethod[Any],
            timeout: int | None = None,  # noqa: ASYNC109 - the signature aiogram defines
        ) -> Any:
            asked = time.monotonic()  # the moment the bot made the call, as its pacing counts
            try:
                result = await original(bot, method, timeout)
            except Exception as exc:
                watch.refused.append((method.__api_method__, str(exc)))
                for done, result in session.lost_replies:
                    if done is method:  # it happened, though the bot was not told
                        watch.note(method, result, asked)
                raise
            watch.note(method, result, asked)
            return result

        session.make_request = make_request  # type: ignore[method-assign]
        return watch

    def clear(self) -> None:
        self.messages.clear()
        self.html.clear()
        self.shown.clear()
        self.refused.clear()

    def note(self, method: TelegramMethod[Any], result: Any, at: float) -> None:
        name = method.__api_method__
        text = str(getattr(method, "text", "") or "")
        mode = getattr(method, "parse_mode", None)
        mode = mode if isinstance(mode, str) else None
        message_id = getattr(method, "message_id", None)
        if name == "sendMessage":
            message_id = int(result.message_id)
        if name in {"sendMessage", "editMessageText"}:
            assert message_id is not None
            self.messages[message_id] = visible(text, mode)
            self.html[message_id] = text
            self.shown.append(Shown(at, name, visible(text, mode), text, message_id))
        elif name == "sendMessageDraft":
            self.shown.append(Shown(at, name, visible(text, mode), text))
        elif name == "deleteMessage" and message_id is not None:
            self.messages.pop(message_id, None)
            self.html.pop(message_id, None)

    def screen(self) -> list[str]:
        """The texts of the messages in the chat now, oldest first."""
        return [self.messages[i] for i in sorted(self.messages)]

    def screen_html(self) -> list[str]:
        """The same messages as the bot wrote them."""
        return [self.html[i] for i in sorted(self.html)]

    def drafts(self) -> list[Shown]:
        return [s for s in self.shown if s.method == "sendMessageDraft"]

    def edits(self) -> list[Shown]:
        return [s for s in self.shown if s.method == "editMessageText"]

    def drafted(self, fragment: str) -> bool:
        return any(fragment in s.text for s in self.drafts())

    def edited(self, fragment: str) -> bool:
        return any(fragment in s.text for s in self.edits())


def group_question(updates: Updates, text: str, *, user_id: int) -> Any:
    """A question addressed to the bot in a group."""
    full = f"@{BOT_USERNAME} {text}"
    return updates.message(
        full,
        user_id=user_id,
        chat_id=GROUP_ID,
        chat_type="supergroup",
        entities=[mention_entity(full, f"@{BOT_USERNAME}")],
    )


def gaps(times: list[float]) -> list[float]:
    """Time between consecutive moments."""
    return [later - earlier for earlier, later in zip(times, times[1:], strict=False)]


def slow_stream(llm: FakeLLM, chars: int = 4, delay_s: float = 0.005) -> None:
    llm.streaming.content_chars = chars
    llm.streaming.delay_s = delay_s


async def whole_answer(
    make_dispatcher: DispatcherFactory, watch: Watch, script: Any, update: Any
) -> list[str]:
    """The messages a whole (not streamed) answer to the same script leaves in the chat."""
    async with make_dispatcher(stream="off") as harness:
        script(harness.llm)
        await harness.feed(update(harness))
    screen = watch.screen_html()
    watch.clear()
    return screen
