"""`/usage` through the Dispatcher: its numbers are the fake model's `usage` summed, cached
prompt tokens are priced apart, tokens the bot estimated (a stream with no usage) are marked,
and admins get the month with a chart as a PNG."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from aiogram.methods import SendPhoto
from aiogram.types import BufferedInputFile

from bot.settings.budgets import Budgets
from tests.agent.test_stream_dialects import answer_stream
from tests.bot.access_support import texts_to, tuning
from tests.fakes.accounts import ADMIN_ID, USER_ID
from tests.fakes.clock import FakeClock
from tests.fakes.fake_llm import Reply, completion_body
from tests.fakes.harness import Harness
from tests.monitoring.test_endpoints import scrape, value, webhook_client

NOON = datetime(2026, 12, 2, 10, 0, tzinfo=UTC).timestamp()
ESTIMATED_RU = "≈ — оценка: сервер модели не сообщил число токенов"
ESTIMATED_EN = "≈ — estimated: the model server did not report token counts"
LIMITS = """
currency = "$"

[defaults]
user_day = 10000
user_month = 200000

[prices."gpt-4.1-mini"]
input = 2.0
cached = 0.5
output = 8.0
"""


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(NOON)


@pytest.fixture
async def priced(make_dispatcher: Any, tmp_path: Path, clock: FakeClock) -> AsyncIterator[Harness]:
    path = tmp_path / "limits.toml"
    path.write_text(LIMITS, encoding="utf-8")
    async with make_dispatcher(tuning=tuning(clock), limits_file=path) as harness:
        yield harness


def cached_reply(text: str, prompt: int, cached: int, completion: int) -> Reply:
    """An answer whose usage says `cached` of its prompt tokens were a cached prefix."""
    message = {"role": "assistant", "content": text, "tool_calls": None, "refusal": None}
    body = completion_body(message, usage=(prompt, completion))
    body["usage"]["prompt_tokens_details"] = {"cached_tokens": cached}
    return Reply(body=body)


async def ask(harness: Harness, reply: Reply, user_id: int = USER_ID, **kw: Any) -> None:
    harness.llm.reply(reply)
    await harness.feed(harness.updates.message("Что в договоре?", user_id=user_id, **kw))


async def usage(harness: Harness, user_id: int = USER_ID, language_code: str = "ru") -> str:
    await harness.feed(
        harness.updates.command("/usage", user_id=user_id, language_code=language_code)
    )
    return texts_to(harness, user_id)[-1]


class TestOwnUsage:
    async def test_the_numbers_are_the_models_usage_summed_and_priced(
        self, priced: Harness
    ) -> None:
        await ask(priced, cached_reply("Первый ответ.", 1000, 600, 100))
        await ask(priced, cached_reply("Второй ответ.", 400, 0, 50))
        text = await usage(priced, language_code="en")
        # 1,550 tokens: 800 fresh prompt at $2, 600 cached at $0.5, 150 completion at $8 a
        # million = $0.0016 + $0.0003 + $0.0012.
        assert "Today: 1,550 tokens, $0.0031 of 10,000 tokens (15%)" in text
        assert "This month: 1,550 tokens, $0.0031 of 200,000 tokens (0%)" in text

    async def test_yesterday_counts_for_the_month_only(
        self, priced: Harness, clock: FakeClock
    ) -> None:
        await ask(priced, cached_reply("Ответ.", 300, 0, 20))
        clock.advance(24 * 3600)
        await ask(priced, cached_reply("Ответ.", 100, 0, 10))
        text = await usage(priced)
        assert "Сегодня: 110 токенов" in text
        assert "В этом месяце: 430 токенов" in text

    async def test_without_a_limits_file_tokens_only_and_no_budget(
        self, make_dispatcher: Any
    ) -> None:
        async with make_dispatcher() as harness:
            await ask(harness, cached_reply("Ответ.", 300, 100, 20))
            text = await usage(harness, language_code="en")
        assert "Today: 320 tokens\n" in text
        assert "$" not in text
        assert "No budget limits your questions." in text


class TestEstimatedUsage:
    """A server that streams no usage (llama-cpp-python's) has its tokens estimated by the bot;
    /usage marks every figure holding such tokens and says why under them."""

    async def test_a_stream_without_usage_is_marked_with_a_footnote(self, priced: Harness) -> None:
        priced.llm.reply_raw(answer_stream("Ответ без счёта."), content_type="text/event-stream")
        await priced.feed(priced.updates.message("Что в договоре?"))
        assert priced.llm.requests[0]["stream"] is True
        text = await usage(priced)
        assert "Сегодня: ≈" in text
        assert "В этом месяце: ≈" in text
        assert "из 10\u00a0000 токенов" in text
        assert text.endswith("\n\n" + ESTIMATED_RU)

    async def test_reported_usage_is_not_marked(self, priced: Harness) -> None:
        reported = {"prompt_tokens": 300, "completion_tokens": 20, "total_tokens": 320}
        body = answer_stream("Ответ со счётом.", usage=reported)
        priced.llm.reply_raw(body, content_type="text/event-stream")
        await priced.feed(priced.updates.message("Что в договоре?"))
        text = await usage(priced, language_code="en")
        assert "Today: 320 tokens" in text
        assert "≈" not in text
        assert "estimated" not in text

    async def test_the_admins_month_marks_only_what_holds_estimates(self, priced: Harness) -> None:
        priced.llm.reply_raw(answer_stream("Ответ без счёта."), content_type="text/event-stream")
        await priced.feed(priced.updates.message("Что в договоре?"))
        await ask(priced, cached_reply("Ответ.", 100, 0, 20), user_id=ADMIN_ID)
        text = await usage(priced, user_id=ADMIN_ID, language_code="en")
        assert "Total: ≈" in text
        assert f"<code>{USER_ID}</code>: ≈" in text
        assert f"<code>{ADMIN_ID}</code>: 120 tokens" in text
        assert "2026-12-02: ≈" in text
        assert text.endswith("\n\n" + ESTIMATED_EN)


class TestAdminUsage:
    async def test_top_users_per_model_per_day_and_a_png_chart(self, priced: Harness) -> None:
        await ask(priced, cached_reply("Ответ.", 1000, 0, 200))
        await ask(priced, cached_reply("Ответ.", 100, 0, 20), user_id=ADMIN_ID)
        text = await usage(priced, user_id=ADMIN_ID, language_code="en")
        assert "Use of the model in 2026-12" in text
        assert "Total: 1,320 tokens" in text
        users = text.split("Top users")[1].split("Top chats")[0]
        assert users.index(f"<code>{USER_ID}</code>: 1,200 tokens") < users.index(
            f"<code>{ADMIN_ID}</code>: 120 tokens"
        )
        # 1,100 prompt tokens at $2 and 220 completion tokens at $8 a million: $0.00396.
        assert "<code>gpt-4.1-mini</code>: 1,320 tokens, $0.0040" in text
        assert "2026-12-02: 1,320 tokens" in text
        photos = priced.session.called("sendPhoto")
        assert len(photos) == 1
        photo = photos[0]
        assert isinstance(photo, SendPhoto) and photo.chat_id == ADMIN_ID
        assert isinstance(photo.photo, BufferedInputFile)
        assert photo.photo.data.startswith(b"\x89PNG\r\n\x1a\n")

    async def test_a_user_gets_only_their_own(self, priced: Harness) -> None:
        await ask(priced, cached_reply("Ответ.", 100, 0, 20), user_id=ADMIN_ID)
        text = await usage(priced)
        assert "Сегодня: 0 токенов" in text
        assert priced.session.called("sendPhoto") == []

    async def test_an_admin_with_a_scope_sees_the_people_within_it(
        self, make_dispatcher: Any, tmp_path: Path
    ) -> None:
        outsider = 3003
        scopes = tmp_path / "scopes.toml"
        scopes.write_text(
            f'{ADMIN_ID} = ["документы"]\n{USER_ID} = ["документы"]\n', encoding="utf-8"
        )
        async with make_dispatcher(
            scopes_file=scopes, allowed_user_ids=frozenset({USER_ID, outsider})
        ) as harness:
            await ask(harness, cached_reply("Ответ.", 100, 0, 20))
            await ask(harness, cached_reply("Ответ.", 5000, 0, 500), user_id=outsider)
            text = await usage(harness, user_id=ADMIN_ID, language_code="en")
        assert "Only the people and chats within your folders are counted." in text
        assert f"<code>{USER_ID}</code>: 120 tokens" in text
        assert str(outsider) not in text
        assert "Total: 120 tokens" in text


class TestOtherUses:
    async def test_a_voice_questions_transcription_counts_for_its_asker(
        self, priced: Harness
    ) -> None:
        priced.session.add_file("documents/voice1", b"OggS-recorded-speech")
        priced.llm.speech.reply_text("Что в договоре?", usage=(40, 8))
        await ask(priced, cached_reply("Ответ.", 100, 0, 20))
        await priced.feed(priced.updates.voice())
        assert priced.llm.speech.uploads
        text = await usage(priced, language_code="en")
        assert "Today: 168 tokens" in text

    async def test_the_embeddings_search_by_meaning_pays_for_are_counted(
        self, make_dispatcher: Any
    ) -> None:
        async with make_dispatcher(embedding_model="fake-embed") as harness:
            await asyncio.wait_for(harness.services.toolbox.wait_vectors(), 60)
            sink = harness.services.usage
            assert sink is not None
            await sink.settled()
            budgets: Budgets = harness.dp["budgets"]
            sums = await budgets.store.sums(0.0)
            paid = harness.llm.embeddings.tokens
        embedded = [one for one in sums if one.kind == "embeddings"]
        assert paid > 0
        assert sum(one.tokens.prompt for one in embedded) == paid
        assert {(one.model, one.user_id) for one in embedded} == {("fake-embed", None)}


class TestMetricsAndRetention:
    async def test_the_metrics_count_tokens_by_model_and_kind_and_their_cost(
        self, priced: Harness
    ) -> None:
        async with webhook_client(priced) as client:
            await ask(priced, cached_reply("Ответ.", 1000, 400, 100))
            await ask(priced, cached_reply("Ответ.", 1000, 400, 100))
            _, samples = await scrape(client)
        labels = {"model": "gpt-4.1-mini", "kind": "answer"}
        assert value(samples, "docs_bot_usage_tokens_total", type="prompt", **labels) == 2000
        assert value(samples, "docs_bot_usage_tokens_total", type="cached", **labels) == 800
        assert value(samples, "docs_bot_usage_tokens_total", type="completion", **labels) == 200
        # 1,200 fresh at $2, 800 cached at $0.5, 200 completion at $8 a million.
        assert value(samples, "docs_bot_usage_cost_total", **labels) == pytest.approx(0.0044)

    async def test_history_days_deletes_old_usage(
        self, make_dispatcher: Any, tmp_path: Path, clock: FakeClock
    ) -> None:
        path = tmp_path / "limits.toml"
        path.write_text(LIMITS, encoding="utf-8")
        async with make_dispatcher(
            tuning=tuning(clock), limits_file=path, history_days=1
        ) as harness:
            await ask(harness, cached_reply("Ответ.", 300, 0, 20))
            clock.advance(2 * 24 * 3600)
            await ask(harness, cached_reply("Ответ.", 100, 0, 10))
            await harness.dp["upkeep"].retention.sweep()
            text = await usage(harness)
        assert "В этом месяце: 110 токенов" in text
