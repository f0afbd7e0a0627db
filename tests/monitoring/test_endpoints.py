"""`GET /healthz` and `GET /metrics` on the webhook server, driven through the real Dispatcher."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import aiohttp
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from prometheus_client.parser import text_string_to_metric_families

from bot.monitoring import monitoring_server
from bot.telegram.run import health_and_metrics
from bot.telegram.webhook import build_webhook_app
from tests.fakes.accounts import USER_ID
from tests.fakes.fixtures import DispatcherFactory
from tests.fakes.harness import Harness

SECRET = "s3cret_token-value"
UNIQUE = "квокказанзибар"
OTHER_USER = 4321

Client = TestClient[web.Request, web.Application]
Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


@asynccontextmanager
async def webhook_client(harness: Harness) -> AsyncIterator[Client]:
    """A client of the webhook server, health and metrics included, as `run` wires it."""
    routes = health_and_metrics(harness.services)
    app = build_webhook_app(harness.dp, harness.bot, "/telegram", SECRET, routes)
    async with TestClient(TestServer(app, host="127.0.0.1")) as client:
        yield client


async def scrape(client: Client) -> tuple[str, Samples]:
    answer = await client.get("/metrics")
    assert answer.status == 200
    assert answer.headers["Content-Type"].startswith("text/plain")
    text = await answer.text()
    samples: Samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            samples[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return text, samples


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def moved(before: Samples, after: Samples, name: str, **labels: str) -> float:
    return value(after, name, **labels) - value(before, name, **labels)


class TestHealth:
    async def test_healthz_turns_503_while_the_history_file_is_away_and_200_once_back(
        self, make_dispatcher: DispatcherFactory
    ) -> None:
        async with make_dispatcher() as harness, webhook_client(harness) as client:
            healthy = await client.get("/healthz")
            assert healthy.status == 200
            documents = harness.services.toolbox.status().documents
            assert documents > 0
            assert await healthy.json() == {
                "status": "ok",
                "index": "ready",
                "documents": documents,
            }

            history = harness.services.files.history
            aside = history.with_name("moved-away.sqlite3")
            history.rename(aside)
            try:
                down = await client.get("/healthz")
                assert down.status == 503
                body = await down.json()
                assert body["status"] == "unavailable"
                assert "history.sqlite3 is missing from DATA_DIR" in body["reason"]
                assert str(history.parent) not in body["reason"]
            finally:
                aside.rename(history)

            back = await client.get("/healthz")
            assert back.status == 200

    async def test_a_closed_history_store_is_unhealthy(
        self, make_dispatcher: DispatcherFactory
    ) -> None:
        async with make_dispatcher() as harness, webhook_client(harness) as client:
            await harness.services.history.close()
            down = await client.get("/healthz")
            assert down.status == 503
            assert await down.json() == {
                "status": "unavailable",
                "reason": "the history store is closed",
            }


class TestMetrics:
    async def test_counters_move_by_exactly_what_one_question_did(
        self, make_dispatcher: DispatcherFactory
    ) -> None:
        async with make_dispatcher() as harness, webhook_client(harness) as client:
            _, before = await scrape(client)
            harness.llm.reply_text("Четыре.")
            await harness.feed(harness.updates.message("Сколько будет дважды два?"))
            _, first = await scrape(client)
            answered = moved(
                before, first, "docs_bot_questions_total", outcome="answered", kind="none"
            )
            assert answered == 1
            assert moved(before, first, "docs_bot_model_calls_total", outcome="ok") == 1
            assert moved(before, first, "docs_bot_answer_seconds_count") == 1
            for tool in ("search_files", "read_file", "list_files"):
                assert (
                    moved(before, first, "docs_bot_tool_calls_total", tool=tool, outcome="ok") == 0
                )
            assert moved(before, first, "docs_bot_model_tokens_total", direction="prompt") > 0

            harness.llm.reply_tool_calls(("search_files", {"query": UNIQUE}))
            harness.llm.reply_text(f"О слове {UNIQUE} в документах ничего нет.")
            await harness.feed(harness.updates.message(f"Что такое {UNIQUE}?"))
            text, second = await scrape(client)
            documents = harness.services.toolbox.status().documents

        assert (
            moved(first, second, "docs_bot_questions_total", outcome="answered", kind="none") == 1
        )
        assert moved(first, second, "docs_bot_model_calls_total", outcome="ok") == 2
        assert (
            moved(first, second, "docs_bot_tool_calls_total", tool="search_files", outcome="ok")
            == 1
        )
        assert (
            moved(first, second, "docs_bot_tool_calls_total", tool="read_file", outcome="ok") == 0
        )
        assert moved(first, second, "docs_bot_tool_seconds_count", tool="search_files") == 1
        assert value(second, "docs_bot_index_documents") == documents
        assert value(second, "docs_bot_index_ready") == 1
        assert value(second, "docs_bot_index_build_seconds") > 0
        assert value(second, "docs_bot_questions_in_progress", state="running") == 0
        assert UNIQUE not in text
        labels = {v for _, pairs in second for _, v in pairs}
        assert not [v for v in labels if str(USER_ID) in v or UNIQUE in v]

    async def test_failures_refusals_and_telegram_errors_are_counted_by_kind(
        self, make_dispatcher: DispatcherFactory
    ) -> None:
        async with (
            make_dispatcher(rate_limit_per_hour=1) as harness,
            webhook_client(harness) as client,
        ):
            _, before = await scrape(client)
            harness.llm.reply_error(500, "upstream broke")
            await harness.feed(harness.updates.message("Первый вопрос?"))
            await harness.feed(harness.updates.message("Второй вопрос?"))
            harness.session.add_error("sendMessage", 403, "Forbidden: bot was blocked by the user")
            harness.llm.reply_text("Ответ.")
            await harness.feed(harness.updates.message("Вопрос от другого?", user_id=OTHER_USER))
            _, after = await scrape(client)

        failed = moved(
            before, after, "docs_bot_questions_total", outcome="failed", kind="unavailable"
        )
        assert failed == 1
        refused = moved(
            before, after, "docs_bot_questions_total", outcome="refused", kind="rate_limited"
        )
        assert refused == 1
        assert moved(before, after, "docs_bot_model_calls_total", outcome="failed") == 1
        blocked = moved(
            before, after, "docs_bot_telegram_errors_total", method="sendMessage", kind="forbidden"
        )
        assert blocked == 1


class TestPollingServer:
    async def test_metrics_listen_serves_both_endpoints(
        self, make_dispatcher: DispatcherFactory, unused_tcp_port: int
    ) -> None:
        async with (
            make_dispatcher() as harness,
            monitoring_server("127.0.0.1", unused_tcp_port, health_and_metrics(harness.services)),
            aiohttp.ClientSession() as http,
        ):
            base = f"http://127.0.0.1:{unused_tcp_port}"
            async with http.get(f"{base}/healthz") as health:
                assert health.status == 200
                assert (await health.json())["status"] == "ok"
            async with http.get(f"{base}/metrics") as metrics:
                assert metrics.status == 200
                names = {f.name for f in text_string_to_metric_families(await metrics.text())}
        assert {"docs_bot_questions", "docs_bot_index_documents"} <= names

    def test_the_address_is_parsed_like_webhook_listen(self) -> None:
        from bot.entrance.loading import load_settings  # noqa: PLC0415

        assert load_settings().metrics_address is None
        assert load_settings(metrics_listen="[::1]:9108").metrics_address == ("::1", 9108)


class TestPage:
    async def test_no_created_series_beside_the_counters(
        self, make_dispatcher: DispatcherFactory
    ) -> None:
        async with make_dispatcher() as harness, webhook_client(harness) as client:
            harness.llm.reply_text("Четыре.")
            await harness.feed(harness.updates.message("Сколько будет дважды два?"))
            text, samples = await scrape(client)
        assert value(samples, "docs_bot_questions_total", outcome="answered", kind="none") == 1
        assert "docs_bot_answer_seconds_bucket" in {name for name, _ in samples}
        assert "_created" not in text
