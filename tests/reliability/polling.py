"""Long polling in-process: the real Dispatcher polls a fake Bot API over real HTTP.

The Bot uses aiogram's own aiohttp session, so network failures surface exactly as they do in
production. The back-off between failed polls is shortened so recovery takes a moment.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager

from aiogram import Bot, Dispatcher
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.utils.backoff import BackoffConfig

from tests.fakes.accounts import BOT_TOKEN

QUICK_BACKOFF = BackoffConfig(min_delay=0.05, max_delay=0.3, factor=1.5, jitter=0.1)


class LogWatch(logging.Handler):
    """Counts log records containing `needle`, and lets a test wait for them."""

    def __init__(self, needle: str) -> None:
        super().__init__(logging.DEBUG)
        self.needle = needle
        self.count = 0
        self._changed = asyncio.Event()

    def emit(self, record: logging.LogRecord) -> None:
        if self.needle in record.getMessage():
            self.count += 1
            self._changed.set()

    async def wait_for(self, count: int, within_s: float = 10.0) -> None:
        """Wait until `count` matching records were seen in all."""
        async with asyncio.timeout(within_s):
            while self.count < count:
                self._changed.clear()
                await self._changed.wait()


@contextlib.contextmanager
def watching(logger: str, needle: str) -> Iterator[LogWatch]:
    """Attach a `LogWatch` to `logger` for the duration of the block."""
    watch = LogWatch(needle)
    target = logging.getLogger(logger)
    target.addHandler(watch)
    try:
        yield watch
    finally:
        target.removeHandler(watch)


def http_bot(api_base: str, token: str = BOT_TOKEN) -> Bot:
    """A Bot that talks HTTP to `api_base` the way `python -m bot` does."""
    return Bot(token, session=AiohttpSession(api=TelegramAPIServer.from_base(api_base)))


@asynccontextmanager
async def polling(dp: Dispatcher, bot: Bot) -> AsyncIterator[None]:
    """Run `dp.start_polling(bot)` for the duration of the block; stop it cleanly after."""
    task = asyncio.create_task(
        dp.start_polling(
            bot,
            handle_signals=False,
            polling_timeout=1,
            backoff_config=QUICK_BACKOFF,
            allowed_updates=dp.resolve_used_update_types(),
        )
    )
    try:
        yield
    finally:
        try:
            await dp.stop_polling()
        except RuntimeError:  # polling never got going
            task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(task, 30)
