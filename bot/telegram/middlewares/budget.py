"""Token budgets (LIMITS_FILE): a question over its asker's or its chat's budget is refused
before any model call, with when the budget starts afresh; near the end the asker is told once.

Only handlers flagged `question` are checked (text and voice questions; commands never). It is
the innermost message middleware, so a question is reserved when it starts, not while it waits
behind another of its conversation; the handler records what it spent, and a question that
spent nothing (an empty one, a refused upload) gives its reservation back here. Admins are not
limited unless the file says so. Without a file nobody is.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

from aiogram import BaseMiddleware
from aiogram.dispatcher.flags import get_flag
from aiogram.exceptions import TelegramAPIError
from aiogram.types import Message, TelegramObject, User

from bot.monitoring import Metrics
from bot.settings.budgets import Budgets, Refused, Warning
from bot.storage.usage import question_key
from bot.telegram.context import CHAT_CONTEXT, ChatContext
from bot.telegram.texts.usage import UsageTexts, usage_texts

log = logging.getLogger(__name__)

Handler = Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]]


class BudgetMiddleware(BaseMiddleware):
    """Inner message middleware: reserves each question against its budgets, tells the asker
    when one is spent or nearly so. `clock` gives Unix time (for "in 5 h 12 min")."""

    def __init__(
        self, budgets: Budgets, *, clock: Callable[[], float], metrics: Metrics | None = None
    ) -> None:
        self._budgets = budgets
        self._clock = clock
        self._metrics = metrics

    async def __call__(self, handler: Handler, event: TelegramObject, data: dict[str, Any]) -> Any:
        user: User | None = data.get("event_from_user")
        context: ChatContext | None = data.get(CHAT_CONTEXT)
        if (
            not self._budgets.limits.configured
            or user is None
            or context is None
            or not isinstance(event, Message)
            or not get_flag(data, "question")
        ):
            return await handler(event, data)
        is_admin = bool(data.get("is_admin"))
        chat_id = event.chat.id
        key = question_key(chat_id, event.message_id)
        try:
            refused = await self._budgets.admit(
                key, user_id=user.id, chat_id=chat_id, is_admin=is_admin
            )
        except Exception:  # the count is out of reach: answering beats refusing everyone
            log.exception("budget: the usage store could not be read; the question goes on")
            return await handler(event, data)
        texts = usage_texts(context.language)
        if refused is not None:
            if self._metrics is not None:
                self._metrics.question_refused("budget")
            await _tell(event, self._refusal(texts, refused))
            return None
        try:
            return await handler(event, data)
        finally:
            await self._after(event, key, user.id, is_admin=is_admin, texts=texts)

    async def _after(
        self, event: Message, key: str, user_id: int, *, is_admin: bool, texts: UsageTexts
    ) -> None:
        """Give back an unused reservation, and tell the asker once when a budget is near its
        end; a store out of reach costs a log line, never the answer already given."""
        try:
            await self._budgets.release(key)
            warning = await self._budgets.warning(user_id, event.chat.id, is_admin=is_admin)
        except Exception:  # as on the way in: the answer is out, the count can wait
            log.exception("budget: the usage store could not be written after a question")
            return
        if warning is not None:
            await _tell(event, self._warning(texts, warning))

    def _refusal(self, texts: UsageTexts, refused: Refused) -> str:
        if refused.busy:
            return texts.busy
        return texts.refused[(refused.who, refused.period)].format(
            when=self._when(refused.resets_at), wait=self._wait(texts, refused.resets_at)
        )

    def _warning(self, texts: UsageTexts, warning: Warning) -> str:
        return texts.warned[(warning.who, warning.period)].format(
            percent=min(int(warning.share * 100), 100), when=self._when(warning.resets_at)
        )

    def _when(self, unix_time: float) -> str:
        """`2026-12-03 00:00 (Europe/Moscow)`: the limits' own clock, named."""
        limits = self._budgets.limits
        local = datetime.fromtimestamp(unix_time, tz=limits.zone)
        return f"{local:%Y-%m-%d %H:%M} ({limits.timezone})"

    def _wait(self, texts: UsageTexts, unix_time: float) -> str:
        minutes = max(1, round((unix_time - self._clock()) / 60))
        return texts.hours_minutes.format(hours=minutes // 60, minutes=minutes % 60)


async def _tell(message: Message, text: str) -> None:
    try:
        await message.reply(text)
    except TelegramAPIError as exc:
        log.info("could not tell chat %d about its budget: %s", message.chat.id, exc)
