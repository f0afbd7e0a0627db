"""Per-user rate limit on questions: a sliding one-hour window, with a polite refusal.

Only handlers flagged `question` count (commands never do), and the limit sits before the
per-conversation lock, so a flood is refused at once instead of queueing behind the first
answer. A question the lock then turns away as "busy" is not counted. Admins are exempt: they
are the ones who test the bot. The window is kept in memory (`SlidingWindow`), or, with
several workers, in PostgreSQL (`bot.storage.rate_limits.postgres`), so a user's questions
are counted once whichever worker takes them.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from aiogram import BaseMiddleware
from aiogram.dispatcher.flags import get_flag
from aiogram.exceptions import TelegramAPIError
from aiogram.types import Message, TelegramObject, User

from bot.monitoring import Metrics
from bot.storage.rate_limits import RateWindow
from bot.telegram.context import CHAT_CONTEXT, ChatContext
from bot.telegram.middlewares.notices import NoticeCooldown
from bot.telegram.middlewares.order import TURNED_AWAY

log = logging.getLogger(__name__)

Handler = Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]]
_SWEEP_AT = 10_000


class SlidingWindow:
    """At most `limit` hits per key within `window_s` seconds."""

    def __init__(
        self, limit: int, window_s: float = 3600.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._limit = limit
        self._window = window_s
        self._clock = clock
        self._hits: dict[int, deque[float]] = {}

    def hit(self, key: int) -> float | None:
        """Record a hit; returns None when allowed, else seconds until the next one is."""
        now = self._clock()
        hits = self._hits.get(key)
        if hits is None:
            if len(self._hits) >= _SWEEP_AT:
                self._sweep(now)
            hits = self._hits[key] = deque()
        while hits and now - hits[0] >= self._window:
            hits.popleft()
        if len(hits) >= self._limit:
            return hits[0] + self._window - now
        hits.append(now)
        return None

    def undo(self, key: int) -> None:
        """Forget the latest hit of `key` (it turned out not to count)."""
        hits = self._hits.get(key)
        if hits:
            hits.pop()

    def _sweep(self, now: float) -> None:
        self._hits = {k: h for k, h in self._hits.items() if h and now - h[-1] < self._window}


class LocalRateWindow:
    """A `SlidingWindow` of this process, behind the `RateWindow` interface."""

    def __init__(self, window: SlidingWindow) -> None:
        self._window = window

    async def hit(self, key: int) -> float | None:
        return self._window.hit(key)

    async def undo(self, key: int) -> None:
        self._window.undo(key)


class RateLimitMiddleware(BaseMiddleware):
    """Inner message middleware; refuses questions over RATE_LIMIT_PER_HOUR (0 = no limit).

    `shared` counts them instead of this process's memory (it must hold the same limit).
    """

    def __init__(
        self,
        per_hour: int,
        *,
        notice_period_s: float = 60.0,
        metrics: Metrics | None = None,
        shared: RateWindow | None = None,
    ) -> None:
        self._window: RateWindow | None = None
        if per_hour > 0:
            self._window = shared or LocalRateWindow(SlidingWindow(per_hour))
        self._notices = NoticeCooldown(notice_period_s)
        self._metrics = metrics

    async def __call__(self, handler: Handler, event: TelegramObject, data: dict[str, Any]) -> Any:
        user: User | None = data.get("event_from_user")
        if (
            self._window is None
            or user is None
            or data.get("is_admin")
            or not get_flag(data, "question")
        ):
            return await handler(event, data)
        wait_s = await self._window.hit(user.id)
        if wait_s is None:
            result = await handler(event, data)
            if data.get(TURNED_AWAY):
                await self._window.undo(user.id)
            return result
        log.info("rate limit: refused a question from user %d for %.0f s", user.id, wait_s)
        if self._metrics is not None:
            self._metrics.question_refused("rate_limited")
        context: ChatContext | None = data.get(CHAT_CONTEXT)
        if isinstance(event, Message) and context is not None and self._notices.allow(user.id):
            text = context.texts.rate_limited_reply(wait_s)
            try:
                await event.reply(text)
            except TelegramAPIError as exc:
                log.info("could not tell user %d about the rate limit: %s", user.id, exc)
        return None
