"""Search by meaning's progress where admins look: `/status` and the metrics page. Real
Dispatcher and services, the fake server's `/embeddings` (a stem-hashing encoder)."""

from __future__ import annotations

import asyncio

from tests.fakes.accounts import ADMIN_ID
from tests.fakes.fake_llm import FakeLLM
from tests.fakes.fixtures import DispatcherFactory
from tests.fakes.harness import Harness
from tests.monitoring.test_endpoints import scrape, value, webhook_client


def _last_text(harness: Harness) -> str:
    return str(harness.session.called("sendMessage")[-1].text)


async def _built(harness: Harness) -> int:
    toolbox = harness.services.toolbox
    await asyncio.wait_for(toolbox.wait_vectors(), 60)
    return toolbox.vector_status().passages_done


class TestStatus:
    async def test_the_passages_done_are_shown(self, make_dispatcher: DispatcherFactory) -> None:
        async with make_dispatcher(embedding_model="fake-embed") as harness:
            done = await _built(harness)
            await harness.feed(harness.updates.command("/status"))
            text = _last_text(harness)
        assert done > 0
        assert f"Поиск по смыслу: {done} из {done} фрагментов" in text

    async def test_an_admin_sees_why_the_server_fails(
        self, make_dispatcher: DispatcherFactory, fake_llm: FakeLLM
    ) -> None:
        fake_llm.embeddings.fail_next(401, times=1000)
        async with make_dispatcher(embedding_model="fake-embed") as harness:
            toolbox = harness.services.toolbox
            await asyncio.wait_for(toolbox.wait_vectors(), 60)  # one look, which failed
            assert toolbox.vector_status().last_error is not None
            await harness.feed(harness.updates.command("/status", user_id=ADMIN_ID))
            admin = _last_text(harness)
            await harness.feed(harness.updates.command("/status"))
            user = _last_text(harness)
        assert "Поиск по смыслу: 0 из" in admin and "Поиск по смыслу: 0 из" in user
        assert "Сервер эмбеддингов:" in admin and "401" in admin
        assert "Сервер эмбеддингов" not in user, "the server's failure is for admins"
        assert "sk-test" not in admin

    async def test_nothing_is_said_without_embeddings(self, harness: Harness) -> None:
        await harness.feed(harness.updates.command("/status"))
        assert "смыслу" not in _last_text(harness)


class TestMetrics:
    async def test_the_build_is_a_gauge(self, make_dispatcher: DispatcherFactory) -> None:
        async with (
            make_dispatcher(embedding_model="fake-embed") as harness,
            webhook_client(harness) as client,
        ):
            done = await _built(harness)
            _, samples = await scrape(client)
        assert value(samples, "docs_bot_meaning_passages", state="done") == done
        assert value(samples, "docs_bot_meaning_passages", state="total") == done
        assert value(samples, "docs_bot_meaning_build_calls") >= 1
