"""Model usage on both backends: a question is counted once, a reservation holds only while
there is room, a warning is claimed once, and old rows go with the history's sweep."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.storage import PostgresDatabase
from bot.storage.usage import Allowance, Tokens, UsageStore, Use, question_key
from bot.storage.usage.postgres import PostgresUsage
from bot.storage.usage.sqlite import SqliteUsage
from tests.fakes.clock import FakeClock

USER = 7
CHAT = 7


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(100_000.0)


@pytest.fixture
async def sqlite_usage(tmp_path: Path, clock: FakeClock) -> AsyncIterator[UsageStore]:
    store = SqliteUsage(tmp_path / "usage.sqlite3", clock=clock)
    try:
        yield store
    finally:
        await store.close()


@pytest.fixture
async def postgres_usage(
    postgres_database: PostgresDatabase, clock: FakeClock
) -> AsyncIterator[UsageStore]:
    store = PostgresUsage(postgres_database, clock=clock)
    try:
        yield store
    finally:
        await store.close()


@pytest.fixture
def usage(backend: str, request: pytest.FixtureRequest) -> UsageStore:
    store: UsageStore = request.getfixturevalue(f"{backend}_usage")
    return store


def answer(
    message_id: int, prompt: int, completion: int, cached: int = 0, *, estimated: bool = False
) -> Use:
    return Use(
        "model-a",
        "answer",
        Tokens(prompt, cached, completion),
        user_id=USER,
        chat_id=CHAT,
        question=question_key(CHAT, message_id),
        estimated=estimated,
    )


def daily(tokens: int, near: int | None = None) -> Allowance:
    return Allowance("user", USER, 0.0, tokens, tokens if near is None else near)


class TestUsage:
    async def test_a_question_is_counted_once_and_summed_per_day(
        self, usage: UsageStore, clock: FakeClock
    ) -> None:
        assert await usage.record(answer(1, 100, 20, cached=60))
        assert not await usage.record(answer(1, 100, 20, cached=60))
        clock.advance(86_400)
        assert await usage.record(answer(2, 10, 5))
        assert await usage.record(Use("embed", "embeddings", Tokens(30, 0, 0)))
        spent = await usage.spent(who="user", id=USER, since=0.0)
        assert spent == Tokens(110, 60, 25)
        assert spent.total == 135
        assert await usage.spent(who="chat", id=CHAT, since=clock()) == Tokens(10, 0, 5)
        sums = await usage.sums(0.0)
        by_day = {(s.kind, s.day): s.tokens for s in sums}
        assert by_day == {
            ("answer", 1): Tokens(100, 60, 20),
            ("answer", 2): Tokens(10, 0, 5),
            ("embeddings", 2): Tokens(30, 0, 0),
        }

    async def test_image_tokens_are_kept_and_summed(
        self, usage: UsageStore, clock: FakeClock
    ) -> None:
        key = question_key(CHAT, 1)
        assert await usage.reserve(key, user_id=USER, chat_id=CHAT, allowances=[]) is None
        seen = Use("model-a", "answer", Tokens(1_000, 0, 40, images=765), USER, CHAT, key)
        assert await usage.record(seen)
        assert await usage.record(
            Use("model-a", "answer", Tokens(900, 0, 10, images=85), USER, CHAT, "own-row")
        )
        assert await usage.record(answer(2, 100, 20))

        spent = await usage.spent(who="user", id=USER, since=0.0)
        assert spent == Tokens(2_000, 0, 70, images=850)
        [day] = await usage.sums(0.0)
        assert day.tokens.images == 850

    async def test_estimated_tokens_are_summed_apart(
        self, usage: UsageStore, clock: FakeClock
    ) -> None:
        assert await usage.record(answer(1, 100, 20))
        key = question_key(CHAT, 2)
        assert await usage.reserve(key, user_id=USER, chat_id=CHAT, allowances=[]) is None
        assert await usage.record(answer(2, 50, 10, estimated=True))
        clock.advance(86_400)
        assert await usage.record(answer(3, 7, 3))
        spent = await usage.spent(who="user", id=USER, since=0.0)
        assert spent == Tokens(157, 0, 33, estimated=60)
        by_day = {s.day: s.tokens for s in await usage.sums(0.0)}
        assert by_day == {1: Tokens(150, 0, 30, estimated=60), 2: Tokens(7, 0, 3)}

    async def test_a_reservation_is_refused_once_the_budget_is_spent(
        self, usage: UsageStore
    ) -> None:
        key = question_key(CHAT, 1)
        assert (
            await usage.reserve(key, user_id=USER, chat_id=CHAT, allowances=[daily(100)]) is None
        )
        assert await usage.record(answer(1, 80, 20))
        refusal = await usage.reserve(
            question_key(CHAT, 2), user_id=USER, chat_id=CHAT, allowances=[daily(100)]
        )
        assert refusal is not None
        assert (refusal.allowance.tokens, refusal.busy) == (100, False)

    async def test_near_the_end_a_second_question_waits_for_the_first(
        self, usage: UsageStore
    ) -> None:
        budget = [daily(1000, near=100)]
        await usage.record(answer(1, 100, 0))
        first = await usage.reserve(
            question_key(CHAT, 2), user_id=USER, chat_id=CHAT, allowances=budget
        )
        second = await usage.reserve(
            question_key(CHAT, 3), user_id=USER, chat_id=CHAT, allowances=budget
        )
        assert first is None
        assert second is not None and second.busy
        await usage.release(question_key(CHAT, 2))
        assert (
            await usage.reserve(
                question_key(CHAT, 3), user_id=USER, chat_id=CHAT, allowances=budget
            )
            is None
        )

    async def test_two_reservations_at_once_leave_one_in_flight(self, usage: UsageStore) -> None:
        budget = [daily(1000, near=0)]
        results = await asyncio.gather(
            *(
                usage.reserve(question_key(CHAT, n), user_id=USER, chat_id=CHAT, allowances=budget)
                for n in range(1, 6)
            )
        )
        assert sum(result is None for result in results) == 1

    async def test_a_released_reservation_counts_nothing(self, usage: UsageStore) -> None:
        key = question_key(CHAT, 1)
        await usage.reserve(key, user_id=USER, chat_id=CHAT, allowances=[daily(10)])
        await usage.release(key)
        assert await usage.spent(who="user", id=USER, since=0.0) == Tokens()
        assert await usage.sums(0.0) == []

    async def test_a_warning_is_claimed_once_per_period(self, usage: UsageStore) -> None:
        assert await usage.claim_warning("user:7:day", "2026-12-02")
        assert not await usage.claim_warning("user:7:day", "2026-12-02")
        assert await usage.claim_warning("user:7:day", "2026-12-03")

    async def test_old_rows_are_deleted(self, usage: UsageStore, clock: FakeClock) -> None:
        await usage.record(answer(1, 10, 1))
        await usage.claim_warning("user:7:day", "old")
        clock.advance(1000)
        await usage.record(answer(2, 20, 2))
        assert await usage.delete_older(clock() - 10) == 1
        assert await usage.spent(who="user", id=USER, since=0.0) == Tokens(20, 0, 2)
        assert await usage.claim_warning("user:7:day", "old")
