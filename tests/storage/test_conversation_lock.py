"""One conversation at a time across processes: each `PostgresDatabase` here stands for a
worker (its own pool and session), as separate processes would have."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from bot.agent import KeyedLocks
from bot.storage import AdvisoryConversationLocks, PostgresDatabase, advisory_key
from tests.fakes.postgres_fixtures import end_session


@pytest.fixture
async def other_worker(postgres_url: str) -> AsyncIterator[PostgresDatabase]:
    database = await PostgresDatabase.open(postgres_url)
    try:
        yield database
    finally:
        await database.close()


async def held_by_anyone(database: PostgresDatabase, key: str) -> bool:
    number = advisory_key("conversation", key)
    free = await database.pool.fetchval("SELECT pg_try_advisory_lock($1)", number)
    if free:
        await database.pool.execute("SELECT pg_advisory_unlock($1)", number)
    return not free


async def until_someone_waits(database: PostgresDatabase) -> None:
    """Return once a session waits for an advisory lock (the server's own view of it)."""
    async with asyncio.timeout(10):
        while not await database.pool.fetchval(  # noqa: ASYNC110 - no event to await in
            # the server's lock table: ask it until it shows the waiter
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
        ):
            await asyncio.sleep(0.01)


class TestAcrossWorkers:
    async def test_the_second_worker_waits_for_the_first(
        self, postgres_database: PostgresDatabase, other_worker: PostgresDatabase
    ) -> None:
        first = KeyedLocks(across=AdvisoryConversationLocks(postgres_database))
        second = KeyedLocks(across=AdvisoryConversationLocks(other_worker))
        order: list[str] = []
        release = asyncio.Event()
        entered = asyncio.Event()

        async def first_question() -> None:
            async with first.hold("chat:1"):
                order.append("first in")
                entered.set()
                await release.wait()
                order.append("first out")

        async def second_question() -> None:
            await entered.wait()
            async with second.hold("chat:1"):
                order.append("second in")

        task_one = asyncio.create_task(first_question())
        task_two = asyncio.create_task(second_question())
        await entered.wait()
        await until_someone_waits(postgres_database)
        assert not task_two.done()
        release.set()
        await asyncio.gather(task_one, task_two)
        assert order == ["first in", "first out", "second in"]
        assert not await held_by_anyone(postgres_database, "chat:1")

    async def test_other_conversations_do_not_wait(
        self, postgres_database: PostgresDatabase, other_worker: PostgresDatabase
    ) -> None:
        first = KeyedLocks(across=AdvisoryConversationLocks(postgres_database))
        second = KeyedLocks(across=AdvisoryConversationLocks(other_worker))
        async with first.hold("chat:1"), second.hold("chat:2"):
            assert await held_by_anyone(postgres_database, "chat:1")
            assert await held_by_anyone(postgres_database, "chat:2")

    async def test_reentry_in_one_task_passes_through(
        self, postgres_database: PostgresDatabase
    ) -> None:
        locks = KeyedLocks(across=AdvisoryConversationLocks(postgres_database))
        async with locks.hold("chat:1"), locks.hold("chat:1"):
            assert await held_by_anyone(postgres_database, "chat:1")
        assert not await held_by_anyone(postgres_database, "chat:1")

    async def test_a_dead_holder_releases_the_conversation(
        self, postgres_database: PostgresDatabase, other_worker: PostgresDatabase
    ) -> None:
        doomed = AdvisoryConversationLocks(other_worker)
        holding = asyncio.Event()
        never = asyncio.Event()

        async def hold_forever() -> None:
            async with doomed.hold("chat:1"):
                holding.set()
                await never.wait()

        holder = asyncio.create_task(hold_forever())
        await holding.wait()
        waiter = asyncio.create_task(
            _enter(KeyedLocks(across=AdvisoryConversationLocks(postgres_database)), "chat:1")
        )
        await until_someone_waits(postgres_database)
        assert not waiter.done()
        # the holding worker dies: the server ends its session, and with it the lock
        pid = other_worker.session.connection.get_server_pid()
        await end_session(postgres_database.pool, pid)
        await asyncio.wait_for(waiter, timeout=10)
        holder.cancel()
        await asyncio.gather(holder, return_exceptions=True)

    async def test_a_cancelled_wait_leaves_no_lock_behind(
        self, postgres_database: PostgresDatabase, other_worker: PostgresDatabase
    ) -> None:
        holder = AdvisoryConversationLocks(postgres_database)
        waiter_locks = AdvisoryConversationLocks(other_worker)
        async with holder.hold("chat:1"):
            waiter = asyncio.create_task(_enter_plain(waiter_locks, "chat:1"))
            await until_someone_waits(postgres_database)
            waiter.cancel()
            await asyncio.gather(waiter, return_exceptions=True)
        assert not await held_by_anyone(postgres_database, "chat:1")
        async with waiter_locks.hold("chat:1"):
            assert await held_by_anyone(postgres_database, "chat:1")


async def _enter(locks: KeyedLocks, key: str) -> None:
    async with locks.hold(key):
        pass


async def _enter_plain(locks: AdvisoryConversationLocks, key: str) -> None:
    async with locks.hold(key):
        pass


class TestAdvisoryKey:
    def test_stable_and_namespaced(self) -> None:
        assert advisory_key("conversation", "chat:1") == advisory_key("conversation", "chat:1")
        assert advisory_key("conversation", "chat:1") != advisory_key("worker", "chat:1")
        assert -(2**63) <= advisory_key("conversation", "chat:1") < 2**63
