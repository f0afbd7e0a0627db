"""What each chat ends up showing, replayed from the calls the bot made and their outcomes.

The fake session records calls but not whether they succeeded or which message id a send got;
`Transcript` wraps its `make_request` to note both, then replays sends, edits and deletions
into the messages a user would see in each chat at the end. An edit refused as "message is not
modified" counts as shown: Telegram says so only when the message already has that text.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from aiogram import Bot
from aiogram.exceptions import TelegramBadRequest
from aiogram.methods import TelegramMethod

from bot.telegram.texts import ENGLISH, RUSSIAN, Texts
from tests.fakes.fake_telegram import FakeTelegramSession


def _progress_lines(texts: Texts) -> list[str]:
    return [
        texts.progress_thinking,
        texts.progress_writing,
        texts.progress_tool,
        *texts.progress_tools.values(),
    ]


def _template(text: str) -> str:
    return ".*".join(re.escape(part) for part in re.split(r"\{[a-z_]+\}", text))


PROGRESS = re.compile(
    "|".join(
        f"(?:{_template(line)})" for texts in (RUSSIAN, ENGLISH) for line in _progress_lines(texts)
    ),
    re.DOTALL,
)


def is_progress(text: str) -> bool:
    """Whether `text` is one of the status lines shown while the bot works."""
    return PROGRESS.fullmatch(text) is not None


@dataclass(frozen=True, slots=True)
class Outcome:
    """One Bot API call and what came of it."""

    method: str
    chat_id: int | None
    message_id: int | None
    text: str | None
    ok: bool


class Transcript:
    """Observes a `FakeTelegramSession`; answers what each chat shows."""

    def __init__(self, session: FakeTelegramSession) -> None:
        self.outcomes: list[Outcome] = []
        inner: Callable[..., Awaitable[Any]] = session.make_request

        async def observed(
            bot: Bot,
            method: TelegramMethod[Any],
            timeout: int | None = None,  # noqa: ASYNC109 - the signature aiogram defines
        ) -> Any:
            try:
                result = await inner(bot, method, timeout)
            except TelegramBadRequest as exc:
                # Telegram says "not modified" only when the message already reads so.
                self._note(method, None, ok="message is not modified" in exc.message.lower())
                raise
            except Exception:
                self._note(method, None, ok=False)
                raise
            self._note(method, result, ok=True)
            return result

        session.make_request = observed  # type: ignore[method-assign]

    def _note(self, method: TelegramMethod[Any], result: Any, *, ok: bool) -> None:
        name = method.__api_method__
        chat = getattr(method, "chat_id", None)
        message_id = getattr(method, "message_id", None)
        if name == "sendMessage" and ok:
            message_id = result.message_id
        self.outcomes.append(
            Outcome(
                method=name,
                chat_id=int(chat) if chat is not None else None,
                message_id=message_id,
                text=getattr(method, "text", None),
                ok=ok,
            )
        )

    def clear(self) -> None:
        """Forget what was seen (long runs verify in batches)."""
        self.outcomes.clear()

    def visible(self, chat_id: int) -> dict[int, str]:
        """Message id → text of every bot message still in the chat, in send order."""
        shown: dict[int, str] = {}
        for outcome in self.outcomes:
            if not outcome.ok or outcome.chat_id != chat_id or outcome.message_id is None:
                continue
            if outcome.method in {"sendMessage", "editMessageText"}:
                shown[outcome.message_id] = str(outcome.text)
            elif outcome.method == "deleteMessage":
                shown.pop(outcome.message_id, None)
        return shown

    def replies(self, chat_id: int) -> list[str]:
        """The bot messages left in the chat that are not status lines."""
        return [t for t in self.visible(chat_id).values() if not is_progress(t)]

    def chats(self) -> set[int]:
        """Every chat the bot wrote to successfully."""
        return {o.chat_id for o in self.outcomes if o.ok and o.chat_id is not None}
