"""aiogram's reply models, kept for the bot's life.

aiogram reads every Bot API reply into `Response[T]`, a parametrised pydantic model built on
first use. pydantic caches those by weak reference only, so nothing keeps them: each full
garbage collection drops them and the next reply of that kind builds its model again (about
8 ms of CPU each; 131 rebuilds in a burst of 1,000 questions). A session middleware holds each
method's reply model once built, so a reply finds it in pydantic's cache.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from aiogram.client.session.middlewares.base import BaseRequestMiddleware
from aiogram.methods.base import Response

if TYPE_CHECKING:
    from aiogram import Bot
    from aiogram.client.session.middlewares.base import NextRequestMiddlewareType
    from aiogram.methods import TelegramMethod
    from aiogram.methods.base import TelegramType


class ReplyModels(BaseRequestMiddleware):
    """Holds `Response[T]` for each kind of request the session has sent."""

    def __init__(self) -> None:
        self._kept: dict[type[Any], type[Response[Any]]] = {}

    async def __call__(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
    ) -> Response[TelegramType]:
        kind = type(method)
        if kind not in self._kept:
            self._kept[kind] = Response[method.__returning__]  # type: ignore[name-defined]
        return await make_request(bot, method)


async def keep_reply_models(bot: Bot) -> None:
    """Attach `ReplyModels` to the bot's session, once however often it is asked (a dispatcher
    start-up hook, so the Bot it serves is the one that runs)."""
    if not any(isinstance(m, ReplyModels) for m in bot.session.middleware):
        bot.session.middleware(ReplyModels())
