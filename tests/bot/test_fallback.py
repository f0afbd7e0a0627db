"""The fallback chain through the whole bot: real Dispatcher, real openai clients, two fake
model servers on 127.0.0.1 (the main one behind a gate that can stop listening), a clock the
test moves for the cool-down."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from html import escape
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from bot.agent.prompts import CONTINUE_NOTE
from bot.telegram.texts import RUSSIAN
from tests.bot.stream_support import Watch, slow_stream, without_cursor
from tests.fakes.accounts import ADMIN_ID
from tests.fakes.clock import FakeClock
from tests.fakes.fake_llm import FakeLLM, Reply, text_reply
from tests.fakes.fake_stream import StreamHold
from tests.fakes.fixtures import DispatcherFactory
from tests.fakes.harness import Harness
from tests.monitoring.test_endpoints import scrape, value, webhook_client
from tests.reliability.network import TcpGate

FALLBACK = "model-b"
FALLBACK_KEY = "sk-fallback-secret-456"
MAIN_KEY = "sk-test-secret-key-123"  # what the harness configures as OPENAI_API_KEY
COOLDOWN_S = 60.0
FALLBACK_LINE = RUSSIAN.note_fallback.format(model=FALLBACK).replace("_", "")
HANDOVER_LINE = RUSSIAN.note_handover.format(model=FALLBACK).replace("_", "")


@pytest.fixture
async def fallback_llm() -> AsyncIterator[FakeLLM]:
    """The fallback model's own server."""
    async with FakeLLM() as server:
        yield server


@pytest.fixture
async def main_gate(fake_llm: FakeLLM) -> AsyncIterator[TcpGate]:
    """The bot reaches the main model through this gate; `refuse()` leaves nobody listening
    on its port, `reopen()` listens there again."""
    port = urlsplit(fake_llm.base_url).port
    assert port is not None
    gate = TcpGate(port)
    await gate.start()
    fake_llm.base_url = f"{gate.base}/v1"
    try:
        yield gate
    finally:
        await gate.close()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(now=1_000.0)


def with_fallback(
    make_dispatcher: DispatcherFactory, fallback_llm: FakeLLM, clock: FakeClock, **overrides: Any
) -> Any:
    return make_dispatcher(
        clock=clock,
        fallback_models=f"{FALLBACK}@{fallback_llm.base_url}",
        fallback_api_keys=f"{FALLBACK}={FALLBACK_KEY}",
        fallback_cooldown_s=COOLDOWN_S,
        **overrides,
    )


async def ask(harness: Harness, question: str) -> None:
    await harness.feed(harness.updates.message(question))


def last_answer(watch: Watch) -> str:
    return watch.screen()[-1]


class TestMainRefusingConnections:
    async def test_the_fallback_answers_and_the_main_is_tried_again_after_the_cool_down(
        self,
        make_dispatcher: DispatcherFactory,
        fallback_llm: FakeLLM,
        main_gate: TcpGate,
        clock: FakeClock,
        bot_session: Any,
    ) -> None:
        watch = Watch.on(bot_session)
        async with with_fallback(make_dispatcher, fallback_llm, clock) as harness:
            await main_gate.refuse()
            fallback_llm.reply_text("Ответ запасной модели.")
            await ask(harness, "первый вопрос")
            assert last_answer(watch) == f"Ответ запасной модели.\n\n{FALLBACK_LINE}"
            assert harness.llm.requests == []
            assert [r["model"] for r in fallback_llm.requests] == [FALLBACK]
            assert fallback_llm.request_headers[0]["Authorization"] == f"Bearer {FALLBACK_KEY}"

            await main_gate.reopen()  # back, but within the cool-down: passed over
            fallback_llm.reply_text("Снова запасная.")
            harness.llm.reply_text("Основная не должна была отвечать.")
            clock.advance(COOLDOWN_S - 1)
            await ask(harness, "второй вопрос")
            assert last_answer(watch) == f"Снова запасная.\n\n{FALLBACK_LINE}"
            assert harness.llm.requests == [], "no retry of the main model on every question"

            clock.advance(2)  # the cool-down is over: the main model is tried again
            await ask(harness, "третий вопрос")
            assert last_answer(watch) == "Основная не должна была отвечать."
            assert len(harness.llm.requests) == 1
            assert len(fallback_llm.requests) == 2

    async def test_admins_see_each_models_breaker_in_status_without_url_or_key(
        self,
        make_dispatcher: DispatcherFactory,
        fallback_llm: FakeLLM,
        main_gate: TcpGate,
        clock: FakeClock,
        caplog: pytest.LogCaptureFixture,
    ) -> None:
        async with with_fallback(make_dispatcher, fallback_llm, clock) as harness:
            await main_gate.refuse()
            fallback_llm.reply_text("Ответ запасной модели.")
            with caplog.at_level(logging.DEBUG):
                await ask(harness, "вопрос")
                clock.advance(12)
                await harness.feed(harness.updates.command("/status", user_id=ADMIN_ID))
        status = harness.session.sent_texts()[-1]
        main = harness.settings.model
        assert (
            RUSSIAN.status_model_paused.format(
                model=f"<code>{escape(main)}</code>", kind="<code>unavailable</code>", wait="0:48"
            )
            in status
        )
        assert RUSSIAN.status_model_on.format(model=f"<code>{FALLBACK}</code>") in status
        logged = "\n".join(r.getMessage() for r in caplog.records)
        assert f"model {main} failed (unavailable" in logged
        for secret in (FALLBACK_KEY, MAIN_KEY, "test-key"):
            assert secret not in logged
            assert secret not in status
        assert "127.0.0.1" not in status, "no server address"

    async def test_a_user_sees_no_breakers_in_status(
        self,
        make_dispatcher: DispatcherFactory,
        fallback_llm: FakeLLM,
        clock: FakeClock,
    ) -> None:
        async with with_fallback(make_dispatcher, fallback_llm, clock) as harness:
            await harness.feed(harness.updates.command("/status"))
        assert RUSSIAN.status_models not in harness.session.sent_texts()[-1]


class TestMetrics:
    async def test_a_fail_over_is_counted_and_the_breaker_shown_per_model(
        self,
        make_dispatcher: DispatcherFactory,
        fallback_llm: FakeLLM,
        main_gate: TcpGate,
        clock: FakeClock,
    ) -> None:
        async with (
            with_fallback(make_dispatcher, fallback_llm, clock) as harness,
            webhook_client(harness) as client,
        ):
            main = harness.settings.model
            _, before = await scrape(client)
            assert value(before, "docs_bot_model_breaker_open", model=main) == 0
            await main_gate.refuse()
            fallback_llm.reply_text("Ответ запасной модели.")
            await ask(harness, "вопрос")
            page, during = await scrape(client)
            await main_gate.reopen()
            harness.llm.reply_text("Основная снова отвечает.")
            clock.advance(COOLDOWN_S)
            await ask(harness, "ещё вопрос")
            _, after = await scrape(client)
        failovers = "docs_bot_model_failovers_total"
        assert value(during, failovers, model=main, fallback=FALLBACK) == 1
        assert value(during, "docs_bot_model_breaker_open", model=main) == 1
        assert value(during, "docs_bot_model_breaker_open", model=FALLBACK) == 0
        assert value(after, "docs_bot_model_breaker_open", model=main) == 0
        assert value(after, failovers, model=main, fallback=FALLBACK) == 1
        for secret in (FALLBACK_KEY, MAIN_KEY, "127.0.0.1"):
            assert secret not in page


class TestWhatMovesOn:
    @pytest.mark.parametrize(
        "failure",
        [
            pytest.param(lambda llm: llm.reply_error(500), id="500"),
            pytest.param(lambda llm: llm.reply_error(503), id="503"),
            pytest.param(
                lambda llm: llm.reply_error(
                    529, {"error": {"message": "Overloaded", "type": "overloaded_error"}}
                ),
                id="529-overloaded",
            ),
            pytest.param(lambda llm: llm.reply_error(429), id="429"),
        ],
    )
    async def test_an_outage_is_answered_by_the_fallback(
        self,
        make_dispatcher: DispatcherFactory,
        fallback_llm: FakeLLM,
        clock: FakeClock,
        bot_session: Any,
        failure: Any,
    ) -> None:
        watch = Watch.on(bot_session)
        async with with_fallback(make_dispatcher, fallback_llm, clock) as harness:
            failure(harness.llm)
            fallback_llm.reply_text("Ответ запасной модели.")
            await ask(harness, "вопрос")
        assert last_answer(watch) == f"Ответ запасной модели.\n\n{FALLBACK_LINE}"
        assert len(harness.llm.requests) == 1
        sent = fallback_llm.requests[0]["messages"]
        assert sent == harness.llm.requests[0]["messages"], "the same question, unchanged"

    async def test_the_answers_tokens_are_counted_for_the_model_that_wrote_it(
        self,
        make_dispatcher: DispatcherFactory,
        fallback_llm: FakeLLM,
        clock: FakeClock,
        tmp_path: Path,
    ) -> None:
        limits = tmp_path / "limits.toml"
        limits.write_text("[defaults]\nuser_day = 100000\n", encoding="utf-8")
        async with with_fallback(
            make_dispatcher, fallback_llm, clock, limits_file=limits
        ) as harness:
            harness.llm.reply_error(503)
            fallback_llm.reply_text("Ответ запасной модели.", usage=(70, 30))
            await ask(harness, "вопрос")
            sums = await harness.dp["budgets"].store.sums(0.0)
        assert [(s.model, s.kind, s.tokens.prompt, s.tokens.completion) for s in sums] == [
            (FALLBACK, "answer", 70, 30)
        ]

    @pytest.mark.parametrize(
        ("failure", "shown"),
        [
            pytest.param(
                lambda llm: llm.reply_error(400, {"error": {"message": "bad 'tools' field"}}),
                RUSSIAN.error_bad_reply,
                id="400",
            ),
            pytest.param(
                lambda llm: llm.reply_error(
                    400, {"error": {"message": "maximum context length is 4096 tokens"}}
                ),
                RUSSIAN.error_too_long,
                id="400-context-length",
            ),
            pytest.param(lambda llm: llm.reply_error(401), RUSSIAN.error_auth, id="401"),
            pytest.param(lambda llm: llm.reply_error(403), RUSSIAN.error_auth, id="403"),
            pytest.param(lambda llm: llm.reply_error(404), RUSSIAN.error_auth, id="404"),
        ],
    )
    async def test_a_refused_request_is_not_moved_on(
        self,
        *,
        make_dispatcher: DispatcherFactory,
        fallback_llm: FakeLLM,
        clock: FakeClock,
        bot_session: Any,
        failure: Any,
        shown: str,
    ) -> None:
        watch = Watch.on(bot_session)
        async with with_fallback(make_dispatcher, fallback_llm, clock) as harness:
            failure(harness.llm)
            fallback_llm.reply_text("Запасная не должна была отвечать.")
            await ask(harness, "вопрос")
            states = harness.services.agent.model_states()
        assert last_answer(watch) == shown
        assert fallback_llm.requests == []
        assert not any(state.open for state in states), "a refusal is no outage"


class TestStreamCutMidway:
    async def test_what_came_stays_and_the_fallback_writes_the_rest_marked(
        self,
        make_dispatcher: DispatcherFactory,
        fallback_llm: FakeLLM,
        clock: FakeClock,
        bot_session: Any,
    ) -> None:
        watch = Watch.on(bot_session)
        started = "Для шарлотки нужны три яйца, стакан сахара и стакан муки."
        rest = "Выпекайте сорок минут, до золотистой корочки."

        def taken_over(_: object) -> bool:
            return any(HANDOVER_LINE in d.text for d in watch.drafts())

        async with with_fallback(make_dispatcher, fallback_llm, clock) as harness:
            harness.llm.reply(Reply(body=text_reply(started).body, cut_after=4))
            slow_stream(fallback_llm, chars=4)
            hold = StreamHold(after_chars=12)
            fallback_llm.streaming.hold = hold
            fallback_llm.reply_text(rest)
            asking = asyncio.create_task(ask(harness, "как испечь шарлотку?"))
            await hold.reached()
            await harness.session.wait_for(taken_over)  # while the rest is still streaming
            hold.release()
            await asking
        going_on = fallback_llm.requests[0]
        assert going_on["messages"][-1] == {"role": "system", "content": CONTINUE_NOTE}
        cut = going_on["messages"][-2]
        assert cut["role"] == "assistant"
        partial = cut["content"]
        assert partial, "part of the answer had come"
        assert started.startswith(partial)
        assert partial != started
        assert going_on["messages"][:-2] == harness.llm.requests[0]["messages"]
        assert going_on["tool_choice"] == "none", "the rest is text, not a new search"
        drafts = [without_cursor(d.text) for d in watch.drafts()]
        assert drafts[0] == partial.strip(), "the reader saw what came before the break"
        assert all(d.startswith(partial.strip()) for d in drafts), "nothing taken back"
        assert last_answer(watch) == f"{partial.strip()}\n\n{HANDOVER_LINE}\n\n{rest}"
        assert FALLBACK_LINE not in last_answer(watch), "one line says who wrote it"

    async def test_a_cut_with_the_fallback_down_too_keeps_what_came_marked_as_cut(
        self,
        make_dispatcher: DispatcherFactory,
        fallback_llm: FakeLLM,
        clock: FakeClock,
        bot_session: Any,
    ) -> None:
        watch = Watch.on(bot_session)
        started = "Для шарлотки нужны три яйца, стакан сахара и стакан муки."
        async with with_fallback(make_dispatcher, fallback_llm, clock) as harness:
            harness.llm.reply(Reply(body=text_reply(started).body, cut_after=4))
            fallback_llm.reply_error(503)
            await ask(harness, "как испечь шарлотку?")
        partial = fallback_llm.requests[0]["messages"][-2]["content"]
        shown = last_answer(watch)
        assert shown.startswith(partial.strip())
        assert shown.endswith(RUSSIAN.error_stream_cut)
