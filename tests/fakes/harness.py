"""A dispatcher from the composition root, wired to the fakes, with what a test needs beside it.

The real Agent talks to the fake model server over HTTP, the real Toolbox serves the documents
folder, and the Bot writes to a `FakeTelegramSession`; status edits are not paced, and the
dispatcher's waits go to a `RecordedSleep`, so scenarios run fast and can be inspected.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aiogram import Bot
from aiogram.methods import TelegramMethod
from aiogram.types import Update

from tests.fakes import fake_llm as model_server
from tests.fakes.accounts import ADMIN_ID, BOT_TOKEN, USER_ID
from tests.fakes.fake_llm import FakeLLM
from tests.fakes.fake_telegram import FakeTelegramSession
from tests.fakes.updates import Updates

if TYPE_CHECKING:
    from aiogram import Dispatcher

    from bot.documents.sources.runner import Opener
    from bot.services import Services
    from bot.settings.model import Settings
    from bot.telegram.tuning import Tuning


class RecordedSleep:
    """A stand-in for `asyncio.sleep` that records how long the code wanted to wait."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)
        await asyncio.sleep(0)


@dataclass
class Harness:
    """A running dispatcher with everything a test needs to drive and inspect it."""

    dp: Dispatcher
    bot: Bot
    session: FakeTelegramSession
    llm: FakeLLM
    settings: Settings
    updates: Updates
    services: Services
    startup_calls: list[TelegramMethod[Any]] = field(default_factory=list)
    sleep: RecordedSleep = field(default_factory=RecordedSleep)

    async def feed(self, update: Update) -> None:
        """Deliver one update through the whole middleware and handler stack."""
        await self.dp.feed_update(self.bot, update)


@asynccontextmanager
async def started_harness(
    bot: Bot,
    llm: FakeLLM,
    updates: Updates,
    *,
    tuning: Tuning | None = None,
    clock: Callable[[], float] = time.monotonic,
    source_opener: Opener | None = None,
    freeze_heap: bool = False,
    **overrides: Any,
) -> AsyncIterator[Harness]:
    """Start a dispatcher for `bot` (on a `FakeTelegramSession`); stop it when the block ends.

    `clock` times the model breakers' cool-downs (a `FakeClock` moves them without waiting).
    `source_opener` opens SOURCES_FILE's sources (an in-memory remote) instead of their kinds.
    `freeze_heap`: as the bot's process does once started; off, since each freeze first runs a
    full collection of the whole test process.

    `overrides` replace the default test settings and must name `sandbox_dir` and `data_dir`.
    Calls made while starting are moved from the session's record to `Harness.startup_calls`.
    """
    from bot.entrance.loading import load_settings  # noqa: PLC0415
    from bot.services import close_services, open_services  # noqa: PLC0415
    from bot.telegram.app import build_dispatcher  # noqa: PLC0415
    from bot.telegram.tuning import Tuning  # noqa: PLC0415

    session = bot.session
    assert isinstance(session, FakeTelegramSession)
    values: dict[str, Any] = {
        "bot_token": BOT_TOKEN,
        "openai_api_key": "sk-test-secret-key-123",
        "openai_base_url": llm.base_url,
        "allowed_user_ids": frozenset({USER_ID}),
        "admin_ids": frozenset({ADMIN_ID}),
        "request_timeout": 5.0,
        "model_max_retries": 0,
        # Quote checks and the "not from the documents" note are their own tests' business;
        # the other tests compare answers exactly.
        "quotes": "off",
    }
    values.update(overrides)
    settings = load_settings(**values)
    # Looked up on the module at each start, so a test can replace how clients are made.
    services = await open_services(settings, client=model_server.make_client(llm), clock=clock)
    if source_opener is not None:
        services = dataclasses.replace(services, source_opener=source_opener)
    await asyncio.wait_for(services.toolbox.wait_ready(), 30)
    sleep = RecordedSleep()
    dp = build_dispatcher(
        settings,
        services,
        tuning=tuning
        or Tuning(edit_interval_s=0.0, retry_wait_cap_s=5.0, progress_settle_s=0.5, sleep=sleep),
        freeze_heap=freeze_heap,
    )
    await dp.emit_startup(bot=bot, **dp.workflow_data)
    startup_calls = list(session.calls)
    session.calls.clear()
    try:
        yield Harness(dp, bot, session, llm, settings, updates, services, startup_calls, sleep)
    finally:
        await dp.emit_shutdown(bot=bot, **dp.workflow_data)
        await close_services(services)
