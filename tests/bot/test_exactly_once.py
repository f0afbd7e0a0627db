"""Each webhook update is handled once: claimed before any work, dropped when sent again.

The real webhook route (aiogram's secret check, then the claim) in front of the real
Dispatcher; updates are posted the way Telegram posts them, with the secret-token header.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from bot.storage import PostgresDatabase, PostgresUpdateClaims, SqliteUpdateClaims, UpdateClaims
from bot.telegram.exactly_once import MemoryClaims
from bot.telegram.middlewares import InFlight
from bot.telegram.webhook import build_webhook_app
from tests.fakes import fake_llm as fake_llm_module
from tests.fakes.accounts import USER_ID
from tests.fakes.fake_llm import FakeLLM, Reply, text_reply
from tests.fakes.fixtures import DispatcherFactory
from tests.fakes.harness import Harness
from tests.storage.lease_support import TRY_EVERY_S, leased, tries_until_taken

SECRET = "s3cret_token-value"
HEADER = {"X-Telegram-Bot-Api-Secret-Token": SECRET}


def _update(update_id: int, text: str) -> str:
    user = {"id": USER_ID, "is_bot": False, "first_name": "U", "language_code": "en"}
    message = {
        "message_id": update_id,
        "date": 1,
        "chat": {"id": USER_ID, "type": "private", "first_name": "U"},
        "from": user,
        "text": text,
    }
    return json.dumps({"update_id": update_id, "message": message})


class RenewalsSeen(MemoryClaims):
    """Memory claims that note, on their own clock, when the claim and each renewal came."""

    def __init__(self) -> None:
        super().__init__()
        self.claimed_at: dict[int, float] = {}
        self.renewed_at: list[float] = []
        self.renewed = asyncio.Event()

    async def claim(self, update_id: int, *, owner: str, lease_s: float) -> bool:
        won = await super().claim(update_id, owner=owner, lease_s=lease_s)
        if won:
            self.claimed_at[update_id] = time.monotonic()
        return won

    async def renew(self, update_id: int, *, owner: str, lease_s: float) -> None:
        await super().renew(update_id, owner=owner, lease_s=lease_s)
        self.renewed_at.append(time.monotonic())
        self.renewed.set()


class BrokenClaims(MemoryClaims):
    """The shared table is unreachable."""

    async def claim(self, update_id: int, *, owner: str, lease_s: float) -> bool:
        msg = "connection refused"
        raise OSError(msg)


class HeldModel:
    """The fake model's answer waits until the test releases it."""

    def __init__(self, llm: FakeLLM, answer: str) -> None:
        self.release = asyncio.Event()
        self._answer = answer
        llm.responder = self._respond

    async def _respond(self, _: dict[str, Any]) -> Reply:
        await self.release.wait()
        return text_reply(self._answer)


@asynccontextmanager
async def _served(
    harness: Harness, claims: UpdateClaims, lease_s: float = 60.0
) -> AsyncIterator[TestClient[Any, Any]]:
    app = build_webhook_app(
        harness.dp, harness.bot, "/telegram", SECRET, claims=claims, owner="w1", lease_s=lease_s
    )
    async with TestClient(TestServer(app, host="127.0.0.1")) as client:
        yield client


@pytest.fixture
async def patient_harness(
    make_dispatcher: DispatcherFactory, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[Harness]:
    """A dispatcher whose model client waits longer than the leases here for an answer."""
    real = fake_llm_module.make_client

    def patient(llm: FakeLLM, **kw: Any) -> Any:
        return real(llm, **{**kw, "timeout": 60.0})

    monkeypatch.setattr(fake_llm_module, "make_client", patient)
    async with make_dispatcher() as running:
        yield running


def _answers(harness: Harness, text: str) -> int:
    return sum(
        text in str(getattr(call, "text", ""))
        for call in harness.session.calls
        if call.__api_method__ in {"sendMessage", "editMessageText"}
    )


class Resends:
    """Copies of one update posted as Telegram resends it; each says whether it was taken
    (handled here) or dropped (the route logs each copy it drops before it answers)."""

    def __init__(
        self, client: TestClient[Any, Any], caplog: pytest.LogCaptureFixture, update_id: int
    ) -> None:
        self._client = client
        self._caplog = caplog
        self._update_id = update_id
        caplog.set_level(logging.INFO, logger="bot.telegram.exactly_once")

    def _dropped(self) -> int:
        dropped = f"update {self._update_id} was already taken"
        return sum(dropped in r.getMessage() for r in self._caplog.records)

    async def post(self) -> bool:
        before = self._dropped()
        update = _update(self._update_id, "Вопрос?")
        reply = await self._client.post("/telegram", data=update, headers=HEADER)
        assert reply.status == 200
        return self._dropped() == before


class TestOnce:
    async def test_a_resent_update_is_acknowledged_and_dropped(self, harness: Harness) -> None:
        harness.llm.reply_text("Первый ответ.")
        claims = MemoryClaims()
        async with _served(harness, claims) as client:
            first = await client.post("/telegram", data=_update(7, "Вопрос?"), headers=HEADER)
            assert first.status == 200
            await harness.session.wait_for(lambda _: _answers(harness, "Первый ответ.") > 0)
            again = await client.post("/telegram", data=_update(7, "Вопрос?"), headers=HEADER)
            assert again.status == 200
        assert len(harness.llm.requests) == 1
        assert _answers(harness, "Первый ответ.") == 1
        assert not await claims.claim(7, owner="w2", lease_s=60)

    async def test_copies_arriving_together_are_handled_once(self, harness: Harness) -> None:
        held = HeldModel(harness.llm, "Один ответ.")
        async with _served(harness, MemoryClaims()) as client:
            replies = await asyncio.gather(
                *(
                    client.post("/telegram", data=_update(8, "Вопрос?"), headers=HEADER)
                    for _ in range(5)
                )
            )
            assert [r.status for r in replies] == [200] * 5
            await harness.llm.wait_for_requests(1)
            held.release.set()
            await harness.session.wait_for(lambda _: _answers(harness, "Один ответ.") > 0)
        assert len(harness.llm.requests) == 1

    async def test_the_lease_is_renewed_while_the_question_runs(
        self, patient_harness: Harness
    ) -> None:
        harness = patient_harness
        held = HeldModel(harness.llm, "Долгий ответ.")
        claims = RenewalsSeen()
        lease_s = 3.0
        async with _served(harness, claims, lease_s=lease_s) as client:
            await client.post("/telegram", data=_update(9, "Вопрос?"), headers=HEADER)
            await harness.llm.wait_for_requests(1)
            await asyncio.wait_for(claims.renewed.wait(), 30)
            after = claims.renewed_at[0] - claims.claimed_at[9]
            assert after < lease_s / 2, f"first renewed {after:.2f} s into a {lease_s} s lease"
            assert not await claims.claim(9, owner="w2", lease_s=60)
            held.release.set()
            await harness.session.wait_for(lambda _: _answers(harness, "Долгий ответ.") > 0)
        assert not await claims.claim(9, owner="w2", lease_s=60)

    async def test_a_question_longer_than_its_lease_is_answered_once(
        self, patient_harness: Harness, caplog: pytest.LogCaptureFixture
    ) -> None:
        harness = patient_harness
        held = HeldModel(harness.llm, "Долгий ответ.")
        assert harness.services.claims is not None
        lease_s = 1.5
        other = await SqliteUpdateClaims.open(harness.services.files.update_claims)
        try:
            async with _served(harness, harness.services.claims, lease_s=lease_s) as client:
                started = time.monotonic()
                resends = Resends(client, caplog, 14)
                assert await resends.post()
                await harness.llm.wait_for_requests(1)
                while time.monotonic() - started < 2 * lease_s:  # the model is still writing
                    assert not await resends.post(), "taken again while the question ran"
                    assert not await other.claim(14, owner="w2", lease_s=60), "taken by w2"
                    await asyncio.sleep(TRY_EVERY_S)
                held.release.set()
                await harness.session.wait_for(lambda _: _answers(harness, "Долгий ответ.") > 0)
        finally:
            await other.close()
        assert len(harness.llm.requests) == 1
        assert _answers(harness, "Долгий ответ.") == 1

    async def test_a_failed_question_is_finished_too(self, harness: Harness) -> None:
        harness.llm.reply_error(400)
        claims = MemoryClaims()
        async with _served(harness, claims, lease_s=0.01) as client:
            await client.post("/telegram", data=_update(10, "Вопрос?"), headers=HEADER)
            await harness.llm.wait_for_requests(1)
        # The server has closed, so the handler has ended; its lease is long past.
        assert not await claims.claim(10, owner="w2", lease_s=60)


class TestDeadWorker:
    async def test_its_claim_runs_out_after_the_lease_and_the_resend_is_answered(
        self,
        make_dispatcher: DispatcherFactory,
        postgres_url: str,
        caplog: pytest.LogCaptureFixture,
    ) -> None:
        async with make_dispatcher(database_url=postgres_url, update_lease_s=2.0) as harness:
            harness.llm.reply_text("Ответ после сбоя.")
            lease_s = harness.settings.update_lease_s
            claims = harness.services.claims
            assert isinstance(claims, PostgresUpdateClaims)
            # Another worker claimed the update, then died before its first renewal.
            dead = await PostgresDatabase.open(postgres_url)
            try:
                gone = PostgresUpdateClaims(dead)
                lease = await leased(
                    lambda: gone.claim(21, owner="dead", lease_s=lease_s), lease_s
                )
            finally:
                await dead.close()
            async with _served(harness, claims, lease_s=lease_s) as client:
                resends = Resends(client, caplog, 21)
                early = await tries_until_taken(resends.post, lease)
                await harness.session.wait_for(
                    lambda _: _answers(harness, "Ответ после сбоя.") > 0
                )
                assert not await resends.post(), "an answered update is dropped"
        assert early >= 1, "a resend while the dead worker's lease lasted was dropped"
        assert len(harness.llm.requests) == 1
        assert _answers(harness, "Ответ после сбоя.") == 1


class TestRefused:
    async def test_an_unreachable_claims_table_leaves_the_update_to_a_resend(
        self, harness: Harness
    ) -> None:
        async with _served(harness, BrokenClaims()) as client:
            reply = await client.post("/telegram", data=_update(11, "Вопрос?"), headers=HEADER)
            assert reply.status == 503
        assert not harness.llm.requests

    async def test_a_stopping_worker_claims_nothing(self, harness: Harness) -> None:
        claims = MemoryClaims()
        in_flight: InFlight = harness.dp["in_flight"]
        async with _served(harness, claims) as client:
            in_flight.closing = True
            reply = await client.post("/telegram", data=_update(12, "Вопрос?"), headers=HEADER)
            assert reply.status == 503
            in_flight.closing = False
        assert await claims.claim(12, owner="w2", lease_s=60)

    async def test_a_body_that_is_not_an_update_is_refused(self, harness: Harness) -> None:
        async with _served(harness, MemoryClaims()) as client:
            reply = await client.post("/telegram", data="[1, 2]", headers=HEADER)
            assert reply.status == 400
            wrong = await client.post("/telegram", data=_update(13, "x"), headers={})
            assert wrong.status == 401
