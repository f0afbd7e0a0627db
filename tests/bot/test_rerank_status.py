"""The reranker's state in admins' `/status`: in use, passed over after a failure (its breaker
open, with the outcome and the wait), or due to be tried again; never its URL or key. Real
Dispatcher and services, the fake rerank server on 127.0.0.1, a clock the test moves."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from bot.telegram.texts import ENGLISH, RUSSIAN
from tests.fakes.accounts import ADMIN_ID, USER_ID
from tests.fakes.clock import FakeClock
from tests.fakes.fake_reranker import FakeReranker
from tests.fakes.fixtures import DispatcherFactory
from tests.fakes.harness import Harness
from tests.fakes.ports import free_port

KEY = "rr-status-secret-9090"
COOLDOWN_S = 60.0


@pytest.fixture
def sandbox_dir(tmp_path: Path) -> Path:
    root = tmp_path / "sandbox"
    root.mkdir()
    for name in ("отпуск.txt", "отпуск-2.txt"):
        (root / name).write_text("Отпуск длится 28 дней.", encoding="utf-8")
    return root


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(now=1_000.0)


async def search(harness: Harness) -> bool:
    """One search by the bot's own toolbox; whether it was reranked."""
    await harness.services.toolbox.wait_ready()
    result = await harness.services.toolbox.execute("search_files", {"query": "отпуск"})
    return bool(json.loads(result.text).get("reranked"))


async def status(harness: Harness, *, user_id: int = ADMIN_ID, language: str = "ru") -> str:
    await harness.feed(harness.updates.command("/status", user_id=user_id, language_code=language))
    return harness.session.sent_texts()[-1]


class TestStatus:
    async def test_an_answering_reranker_is_in_use_for_admins_only(
        self, make_dispatcher: DispatcherFactory, reranker: FakeReranker
    ) -> None:
        async with make_dispatcher(rerank_url=reranker.jina_url, rerank_api_key=KEY) as harness:
            assert await search(harness)
            admin = await status(harness)
            english = await status(harness, language="en")
            user = await status(harness, user_id=USER_ID)
        assert RUSSIAN.status_reranker_on in admin
        assert ENGLISH.status_reranker_on in english
        assert "Реранкер" not in user, "the reranker's state is for admins"

    async def test_a_failed_reranker_is_passed_over_then_due_without_url_or_key(
        self, make_dispatcher: DispatcherFactory, clock: FakeClock
    ) -> None:
        url = f"http://127.0.0.1:{free_port()}/v1/rerank"
        async with make_dispatcher(
            clock=clock, rerank_url=url, rerank_api_key=KEY, fallback_cooldown_s=COOLDOWN_S
        ) as harness:
            assert not await search(harness)
            clock.advance(12)
            paused = await status(harness)
            english = await status(harness, language="en")
            clock.advance(COOLDOWN_S)
            due = await status(harness)
        assert (
            RUSSIAN.status_reranker_paused.format(kind="<code>error</code>", wait="0:48") in paused
        )
        assert (
            ENGLISH.status_reranker_paused.format(kind="<code>error</code>", wait="0:48")
            in english
        )
        assert RUSSIAN.status_reranker_due in due
        port = str(urlsplit(url).port)
        for text in (paused, english, due):
            assert KEY not in text and port not in text, "no key, no address"

    async def test_nothing_is_said_without_a_reranker(self, harness: Harness) -> None:
        admin = await status(harness)
        assert "Реранкер" not in admin
