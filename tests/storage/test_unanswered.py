"""Unanswered questions and the digest's schedule on both backends: what one writes, the other
reads the same way, and a digest is claimed once."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.storage import PostgresDatabase
from bot.storage.unanswered import MAX_QUESTION, UnansweredLog
from bot.storage.unanswered.postgres import PostgresUnanswered
from bot.storage.unanswered.sqlite import SqliteUnanswered
from tests.fakes.clock import FakeClock


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(10_000.0)


@pytest.fixture
async def sqlite_unanswered(tmp_path: Path, clock: FakeClock) -> AsyncIterator[UnansweredLog]:
    store = SqliteUnanswered(tmp_path / "unanswered.sqlite3", clock=clock)
    try:
        yield store
    finally:
        await store.close()


@pytest.fixture
async def postgres_unanswered(
    postgres_database: PostgresDatabase, clock: FakeClock
) -> AsyncIterator[UnansweredLog]:
    store = PostgresUnanswered(postgres_database, clock=clock)
    try:
        yield store
    finally:
        await store.close()


@pytest.fixture
def unanswered(backend: str, request: pytest.FixtureRequest) -> UnansweredLog:
    store: UnansweredLog = request.getfixturevalue(f"{backend}_unanswered")
    return store


async def ask(store: UnansweredLog, question: str, user_id: int, chat_id: int = 0) -> None:
    await store.mark(
        question,
        chat_id=chat_id or user_id,
        user_id=user_id,
        conversation=f"chat:{chat_id or user_id}",
        language="ru",
        reason="nothing_found",
    )


class TestUnanswered:
    async def test_marks_come_back_in_their_window_oldest_first(
        self, unanswered: UnansweredLog, clock: FakeClock
    ) -> None:
        await ask(unanswered, "сколько дней отпуска", 7)
        clock.advance(100)
        await ask(unanswered, "  где взять справку  ", 8, chat_id=-100)
        clock.advance(100)
        await ask(unanswered, "x" * (MAX_QUESTION + 50), 7)
        found = await unanswered.since(10_050.0, 10_200.0)
        assert [q.question for q in found] == ["где взять справку"]
        only = found[0]
        assert (only.chat_id, only.user_id, only.conversation) == (-100, 8, "chat:-100")
        assert (only.language, only.reason, only.asked_at) == ("ru", "nothing_found", 10_100.0)
        everything = await unanswered.since(0.0)
        assert [q.asked_at for q in everything] == [10_000.0, 10_100.0, 10_200.0]
        assert len(everything[-1].question) == MAX_QUESTION

    async def test_the_files_its_answer_read_come_back(self, unanswered: UnansweredLog) -> None:
        await unanswered.mark(
            "сколько дней отпуска",
            chat_id=7,
            user_id=7,
            conversation="chat:7",
            language="ru",
            reason="not_from_documents",
            files=("hr/отпуск.md", "документы/план.md"),
        )
        await ask(unanswered, "где взять справку", 8)
        found = await unanswered.since(0.0)
        assert [q.files for q in found] == [("hr/отпуск.md", "документы/план.md"), ()]

    async def test_old_marks_and_a_persons_marks_are_deleted(
        self, unanswered: UnansweredLog, clock: FakeClock
    ) -> None:
        await ask(unanswered, "старый вопрос", 7)
        clock.advance(1_000)
        await ask(unanswered, "вопрос Анны", 7, chat_id=-100)
        await ask(unanswered, "вопрос Бориса", 8)
        assert await unanswered.delete_older(10_500.0) == 1
        assert await unanswered.forget_user(7) == 1
        assert [q.question for q in await unanswered.since(0.0)] == ["вопрос Бориса"]

    async def test_a_digest_is_claimed_once_and_only_forward(
        self, unanswered: UnansweredLog
    ) -> None:
        assert await unanswered.claim_digest(1_000.0) == 0.0
        assert await unanswered.claim_digest(1_000.0) is None
        assert await unanswered.claim_digest(500.0) is None
        assert await unanswered.claim_digest(2_000.0) == 1_000.0


class TestDigestClaimAcrossProcesses:
    async def test_two_stores_on_one_database_claim_a_digest_once(
        self, postgres_url: str, postgres_database: PostgresDatabase
    ) -> None:
        other = await PostgresDatabase.open(postgres_url)
        try:
            first = PostgresUnanswered(postgres_database)
            second = PostgresUnanswered(other)
            for due in (1_000.0, 2_000.0, 3_000.0):
                won = await asyncio.gather(
                    *(store.claim_digest(due) for store in (first, second, first, second))
                )
                assert sum(result is not None for result in won) == 1
        finally:
            await other.close()
