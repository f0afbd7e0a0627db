"""The pytest fixtures over the fakes: a model server, a Bot API over HTTP, a bot on a fake
session, a dispatcher.

`tests/conftest.py` registers this module as a plugin, so every test can ask for them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import pytest
from aiogram import Bot

from tests.fakes.accounts import BOT_TOKEN
from tests.fakes.bot_api_http import FakeBotApi
from tests.fakes.fake_llm import FakeLLM
from tests.fakes.fake_reranker import FakeReranker
from tests.fakes.fake_telegram import FakeTelegramSession
from tests.fakes.harness import Harness, started_harness
from tests.fakes.updates import Updates

DispatcherFactory = Callable[..., AbstractAsyncContextManager[Harness]]


@pytest.fixture
async def reranker() -> AsyncIterator[FakeReranker]:
    """A started fake rerank server scoring by shared words, stopped after the test."""
    server = FakeReranker()
    await server.start()
    try:
        yield server
    finally:
        await server.close()


@pytest.fixture
async def fake_llm() -> AsyncIterator[FakeLLM]:
    """A started fake model server, stopped after the test."""
    async with FakeLLM() as server:
        yield server


@pytest.fixture
async def bot_api() -> AsyncIterator[FakeBotApi]:
    """A started fake Bot API over HTTP, for the bot run as a process; stopped after the test."""
    api = FakeBotApi(token=BOT_TOKEN)
    await api.start()
    try:
        yield api
    finally:
        await api.close()


@pytest.fixture
def bot_session() -> FakeTelegramSession:
    """The recording Bot API session."""
    return FakeTelegramSession()


@pytest.fixture
def bot(bot_session: FakeTelegramSession) -> Bot:
    """A real `Bot` on the fake session."""
    return Bot(BOT_TOKEN, session=bot_session)


@pytest.fixture
def updates(bot: Bot) -> Updates:
    """Update builder bound to the test bot."""
    return Updates(bot)


@pytest.fixture
def make_dispatcher(
    bot: Bot, fake_llm: FakeLLM, sandbox_dir: Path, updates: Updates, tmp_path: Path
) -> DispatcherFactory:
    """Returns `start(tuning=None, **settings)`, an async context manager yielding a `Harness`.

    The dispatcher comes from the composition root with the real Agent (talking to `fake_llm`
    over HTTP) and the real Toolbox over `sandbox_dir`; edits are not paced so tests run fast.
    """

    def start(**overrides: Any) -> AbstractAsyncContextManager[Harness]:
        settings = {"sandbox_dir": sandbox_dir, "data_dir": tmp_path / "data", **overrides}
        return started_harness(bot, fake_llm, updates, **settings)

    return start


@pytest.fixture
async def harness(make_dispatcher: DispatcherFactory) -> AsyncIterator[Harness]:
    """A started dispatcher with the default test settings."""
    async with make_dispatcher() as running:
        yield running
