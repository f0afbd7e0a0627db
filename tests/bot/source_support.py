"""What the source-button tests share: an answer that read documents, its buttons, a tap.

The 👍/👎 row under every answer is not a source button: `data` and `labels` leave it out,
`votes` has it."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from aiogram import Bot
from aiogram.methods import (
    AnswerCallbackQuery,
    EditMessageText,
    SendDocument,
    SendMessage,
    TelegramMethod,
)
from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup

from tests.fakes.accounts import BOT_USERNAME, USER_ID, bot_user_json
from tests.fakes.fake_telegram import FakeTelegramSession
from tests.fakes.harness import Harness
from tests.fakes.updates import mention_entity

CHARLOTTE = "документы/рецепт_шарлотки.txt"
LEASE = "документы/договор_аренды.md"
GROUP_ID = -100_555


@dataclass(frozen=True)
class Answered:
    """The answer's last message as a tap carries it, and the buttons under it."""

    message: dict[str, Any]
    markup: InlineKeyboardMarkup

    @property
    def data(self) -> list[str]:
        """The callback data of every source button, top to bottom."""
        return [str(row[0].callback_data) for row in source_rows(self.markup)]

    @property
    def labels(self) -> list[str]:
        return [row[0].text for row in source_rows(self.markup)]

    @property
    def votes(self) -> list[tuple[str, str]]:
        """The 👍/👎 buttons' labels and data, left to right; empty when there are none."""
        return [
            (b.text, str(b.callback_data))
            for row in self.markup.inline_keyboard
            for b in row
            if str(b.callback_data).startswith("fb:")
        ]


def source_rows(markup: InlineKeyboardMarkup) -> list[list[InlineKeyboardButton]]:
    """The rows of a keyboard that open sources (a document's, with its page buttons)."""
    return [row for row in markup.inline_keyboard if str(row[0].callback_data).startswith("src:")]


def last_markup(harness: Harness) -> InlineKeyboardMarkup | None:
    """The buttons of the last message the bot sent or edited."""
    for call in reversed(harness.session.calls):
        if isinstance(call, SendMessage | EditMessageText):
            markup = call.reply_markup
            return markup if isinstance(markup, InlineKeyboardMarkup) else None
    return None


def in_topic(thread_id: int) -> dict[str, Any]:
    """The fields of a message written in forum topic `thread_id` (of a forum supergroup)."""
    return {"message_thread_id": thread_id, "is_topic_message": True}


async def ask_reading(
    harness: Harness,
    *paths: str,
    user_id: int = USER_ID,
    group: bool = False,
    topic: int | None = None,
) -> Answered:
    """Ask a question whose answer read `paths` (in a group's forum topic, with `topic`);
    return its last message with the buttons."""
    harness.llm.reply_tool_calls(*(("read_file", {"path": path}) for path in paths))
    harness.llm.reply_text("Вот ответ.")
    where = in_topic(topic) if topic is not None else {}
    if group or topic is not None:
        text = f"@{BOT_USERNAME} где это?"
        update = harness.updates.message(
            text,
            user_id=user_id,
            chat_id=GROUP_ID,
            chat_type="supergroup",
            entities=[mention_entity(text, f"@{BOT_USERNAME}")],
            **where,
        )
    else:
        update = harness.updates.message("где это?", user_id=user_id)
    sent = _track_sent(harness.session)
    await harness.feed(update)
    last = last_answer(harness, sent)
    assert last is not None, "the answer has no buttons"
    last.message.update(where)
    return last


def _track_sent(session: FakeTelegramSession) -> dict[int, int]:
    """The message id the fake gives each sendMessage from now on, by the call's identity: the
    answer's last part may be a new message (after a draft, or a slow answer)."""
    ids: dict[int, int] = {}
    answer = session.make_request

    async def tracked(
        bot: Bot,
        method: TelegramMethod[Any],
        timeout: int | None = None,  # noqa: ASYNC109 - the signature aiogram defines
    ) -> Any:
        result = await answer(bot, method, timeout)
        if isinstance(method, SendMessage):
            ids[id(method)] = result.message_id
        return result

    session.make_request = tracked  # type: ignore[method-assign]
    return ids


def last_answer(harness: Harness, sent: dict[int, int] | None = None) -> Answered | None:
    """The last message the bot sent or edited, when it carries buttons."""
    for call in reversed(harness.session.calls):
        if not isinstance(call, SendMessage | EditMessageText):
            continue
        if not isinstance(call.reply_markup, InlineKeyboardMarkup):
            return None
        message_id = (
            call.message_id if isinstance(call, EditMessageText) else (sent or {}).get(id(call))
        )
        assert message_id is not None, "a sent answer's id is known only while tracked"
        chat_id = int(call.chat_id or 0)
        chat: dict[str, Any] = {"id": chat_id, "type": "private", "first_name": "User"}
        if chat_id < 0:
            chat = {"id": chat_id, "type": "supergroup", "title": "Team"}
        message = {
            "message_id": message_id,
            "date": int(time.time()),
            "chat": chat,
            "from": bot_user_json(),
            "text": call.text,
            "reply_markup": call.reply_markup.model_dump(mode="json", exclude_none=True),
        }
        return Answered(message, call.reply_markup)
    return None


async def tap(harness: Harness, answered: Answered, data: str, user_id: int = USER_ID) -> None:
    """A press of a button with `data` under the answer, by `user_id`."""
    await harness.feed(harness.updates.callback(data, user_id=user_id, message=answered.message))


def answers(harness: Harness) -> list[AnswerCallbackQuery]:
    """Every answerCallbackQuery, in order."""
    return [c for c in harness.session.calls if isinstance(c, AnswerCallbackQuery)]


def documents(harness: Harness) -> list[SendDocument]:
    """Every sendDocument, in order."""
    return [c for c in harness.session.calls if isinstance(c, SendDocument)]
