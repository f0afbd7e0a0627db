"""The fallback chain across two workers on one PostgreSQL: a model that is down is learnt once.

Each worker is a whole bot (its own Services, agent and Dispatcher on a fake Telegram session,
its own DATA_DIR and cool-down clock) on one throwaway database; both ask the same fake main
model, which fails, and the same fake fallback. The main model's recorded requests say, by
their questions, which worker waited for it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack
from html import escape
from pathlib import Path
from typing import Any

import pytest
from aiogram import Bot

from bot.storage.breakers.postgres import PostgresBreakers
from bot.telegram.texts import RUSSIAN
from tests.fakes.accounts import ADMIN_ID, BOT_TOKEN
from tests.fakes.clock import FakeClock
from tests.fakes.fake_llm import FakeLLM, Reply, error_reply, text_reply
from tests.fakes.fake_telegram import FakeTelegramSession
from tests.fakes.harness import Harness, started_harness
from tests.fakes.updates import Updates

Changed = Callable[[str], Awaitable[None]]
FALLBACK = "model-b"
COOLDOWN_S = 60.0


def _question(body: dict[str, Any]) -> str:
    users = [m for m in body.get("messages", []) if m.get("role") == "user"]
    return str(users[-1]["content"]) if users else ""


def _questions(llm: FakeLLM) -> list[str]:
    return [_question(body) for body in llm.requests]


class MainModel:
    """The fake main model: down (503 to every call) until `recover()`."""

    def __init__(self, llm: FakeLLM) -> None:
        self.down = True
        llm.responder = self._respond

    def recover(self) -> None:
        self.down = False

    async def _respond(self, body: dict[str, Any]) -> Reply:
        if self.down:
            return error_reply(503)
        return text_reply(f"Основная: {_question(body)}")


class Heard:
    """Each worker's listener for the other workers' breakers, in the order the workers
    started; `wait(i)` returns once worker `i` has applied a change it heard of."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self._events: list[asyncio.Event] = []
        real = PostgresBreakers.watch

        async def watch(
            store: PostgresBreakers, changed: Callable[[str], Awaitable[None]]
        ) -> None:
            event = asyncio.Event()
            self._events.append(event)

            async def applied(model: str) -> None:
                await changed(model)
                event.set()

            await real(store, applied)

        monkeypatch.setattr(PostgresBreakers, "watch", watch)

    def clear(self) -> None:
        for event in self._events:
            event.clear()

    async def wait(self, worker: int) -> None:
        await asyncio.wait_for(self._events[worker].wait(), 10)


@pytest.fixture
async def fallback_llm() -> AsyncIterator[FakeLLM]:
    """The fallback model's own server: it answers every question, naming it."""
    async with FakeLLM() as server:

        async def respond(body: dict[str, Any]) -> Reply:
            return text_reply(f"Запасная: {_question(body)}")

        server.responder = respond
        yield server


class Workers:
    """Starts whole bots on one database, each on a session and a clock of its own."""

    def __init__(
        self,
        stack: AsyncExitStack,
        llm: FakeLLM,
        fallback: FakeLLM,
        *,
        sandbox_dir: Path,
        tmp_path: Path,
        postgres_url: str,
    ) -> None:
        self._stack = stack
        self._llm = llm
        self._fallback = fallback
        self._sandbox = sandbox_dir
        self._tmp = tmp_path
        self._url = postgres_url
        self.clocks: list[FakeClock] = []

    async def start(self) -> Harness:
        clock = FakeClock(now=1_000.0)
        self.clocks.append(clock)
        bot = Bot(BOT_TOKEN, session=FakeTelegramSession())
        return await self._stack.enter_async_context(
            started_harness(
                bot,
                self._llm,
                Updates(bot),
                clock=clock,
                sandbox_dir=self._sandbox,
                data_dir=self._tmp / f"worker-{len(self.clocks)}",
                database_url=self._url,
                fallback_models=f"{FALLBACK}@{self._fallback.base_url}",
                fallback_cooldown_s=COOLDOWN_S,
            )
        )


@pytest.fixture
async def workers(
    fake_llm: FakeLLM,
    fallback_llm: FakeLLM,
    sandbox_dir: Path,
    tmp_path: Path,
    postgres_url: str,
) -> AsyncIterator[Workers]:
    async with AsyncExitStack() as stack:
        yield Workers(
            stack,
            fake_llm,
            fallback_llm,
            sandbox_dir=sandbox_dir,
            tmp_path=tmp_path,
            postgres_url=postgres_url,
        )


async def ask(harness: Harness, question: str) -> str:
    await harness.feed(harness.updates.message(question))
    return harness.session.sent_texts()[-1]


def breaker_open(harness: Harness) -> float | None:
    """The main model's `docs_bot_model_breaker_open` as the worker's `/metrics` shows it."""
    registry = harness.services.metrics.registry
    model = harness.settings.model
    return registry.get_sample_value("docs_bot_model_breaker_open", {"model": model})


def paused_line(harness: Harness) -> str:
    model = f"<code>{escape(harness.settings.model)}</code>"
    return RUSSIAN.status_model_paused.format(
        model=model, kind="<code>unavailable</code>", wait="1:00"
    )


class TestTwoWorkers:
    async def test_the_second_worker_skips_the_model_the_first_found_down(
        self,
        workers: Workers,
        fake_llm: FakeLLM,
        fallback_llm: FakeLLM,
        monkeypatch: pytest.MonkeyPatch,
    ) -> None:
        main = MainModel(fake_llm)
        heard = Heard(monkeypatch)
        first = await workers.start()
        second = await workers.start()

        assert "Запасная: вопрос первому" in await ask(first, "вопрос первому")
        await heard.wait(1)
        assert "Запасная: вопрос второму" in await ask(second, "вопрос второму")
        assert _questions(fake_llm) == ["вопрос первому"], "the second worker did not wait"
        assert _questions(fallback_llm) == ["вопрос первому", "вопрос второму"]

        await second.feed(second.updates.command("/status", user_id=ADMIN_ID))
        assert paused_line(second) in second.session.sent_texts()[-1]
        assert breaker_open(second) == 1

        # The first worker's cool-down ends; its trial finds the main model back, and the
        # second worker, whose own clock has not moved, asks it again at once.
        main.recover()
        heard.clear()
        workers.clocks[0].advance(COOLDOWN_S + 1)
        assert "Основная: снова первому" in await ask(first, "снова первому")
        await heard.wait(1)
        assert "Основная: снова второму" in await ask(second, "снова второму")
        assert _questions(fake_llm) == ["вопрос первому", "снова первому", "снова второму"]
        assert breaker_open(second) == 0

    async def test_a_worker_started_during_an_outage_passes_the_model_over_at_once(
        self, workers: Workers, fake_llm: FakeLLM, fallback_llm: FakeLLM
    ) -> None:
        MainModel(fake_llm)
        first = await workers.start()
        assert "Запасная: раньше" in await ask(first, "раньше")

        later = await workers.start()
        assert "Запасная: позже" in await ask(later, "позже")
        assert _questions(fake_llm) == ["раньше"]
