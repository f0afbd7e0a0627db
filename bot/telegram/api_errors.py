"""Counting the Bot API's failures where every request passes: a middleware of the Bot session.

Delivery, progress, notices and polling each catch Telegram's errors in their own way; the
session sees every request and every exception before any of them does, so one middleware
counts them all, by API method and by the kind aiogram's exception class names. It only
watches: the exception goes on to whoever called.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aiogram.client.session.middlewares.base import BaseRequestMiddleware
from aiogram.exceptions import (
    ClientDecodeError,
    TelegramAPIError,
    TelegramBadRequest,
    TelegramConflictError,
    TelegramEntityTooLarge,
    TelegramForbiddenError,
    TelegramMigrateToChat,
    TelegramNetworkError,
    TelegramNotFound,
    TelegramRetryAfter,
    TelegramServerError,
    TelegramUnauthorizedError,
)

from bot.monitoring import Metrics

if TYPE_CHECKING:
    from aiogram import Bot
    from aiogram.client.session.middlewares.base import NextRequestMiddlewareType
    from aiogram.methods import TelegramMethod
    from aiogram.methods.base import Response, TelegramType

_KINDS: tuple[tuple[type[Exception], str], ...] = (
    (TelegramRetryAfter, "retry_after"),
    (TelegramMigrateToChat, "migrate_to_chat"),
    (TelegramBadRequest, "bad_request"),
    (TelegramForbiddenError, "forbidden"),
    (TelegramUnauthorizedError, "unauthorized"),
    (TelegramNotFound, "not_found"),
    (TelegramConflictError, "conflict"),
    (TelegramEntityTooLarge, "entity_too_large"),
    (TelegramNetworkError, "network"),
    (TelegramServerError, "server"),
    (ClientDecodeError, "decode"),
)


def error_kind(exc: BaseException) -> str:
    """The kind of a Bot API failure, from a fixed set (`other` for any class not listed)."""
    for cls, kind in _KINDS:
        if isinstance(exc, cls):
            return kind
    return "other"


class ApiErrorCounter(BaseRequestMiddleware):
    """Counts each failed Bot API request in `metrics`, then lets the error go on."""

    def __init__(self, metrics: Metrics) -> None:
        self._metrics = metrics

    async def __call__(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
    ) -> Response[TelegramType]:
        try:
            return await make_request(bot, method)
        except (TelegramAPIError, ClientDecodeError) as exc:
            self._metrics.telegram_error(method.__api_method__, error_kind(exc))
            raise


async def count_api_errors(bot: Bot, metrics: Metrics) -> None:
    """Attach an `ApiErrorCounter` to the bot's session, once however often it is asked (a
    dispatcher start-up hook, so the Bot it counts for is the one that runs)."""
    if not any(isinstance(m, ApiErrorCounter) for m in bot.session.middleware):
        bot.session.middleware(ApiErrorCounter(metrics))
