"""A worker process killed with SIGKILL mid-question: its conversation lock is released, its
open turn is marked interrupted by the next worker to start, and not before it died."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.agent import KeyedLocks
from bot.storage import AdvisoryConversationLocks, PostgresDatabase
from bot.storage.history.postgres import PostgresHistory
from tests.fakes.postgres_fixtures import end_session
from tests.storage.test_conversation_lock import until_someone_waits

ROOT = Path(__file__).resolve().parents[2]

WORKER = """
import asyncio, sys
from bot.storage.history.postgres import PostgresHistory
from bot.storage import AdvisoryConversationLocks, PostgresDatabase

async def main() -> None:
    database = await PostgresDatabase.open(sys.argv[1])
    history = await PostgresHistory.open(database)
    async with AdvisoryConversationLocks(database).hold("chat:1"):
        await history.begin_turn("chat:1", {"role": "user", "content": "cut off"})
        print("held", flush=True)
        await asyncio.Event().wait()

asyncio.run(main())
"""


@pytest.fixture
async def worker(postgres_url: str) -> AsyncIterator[asyncio.subprocess.Process]:
    """Another worker process, mid-question: holding chat:1 with an open turn."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        WORKER,
        postgres_url,
        stdout=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        assert process.stdout is not None
        line = await asyncio.wait_for(process.stdout.readline(), timeout=30)
        assert line == b"held\n"
        yield process
    finally:
        if process.returncode is None:
            process.kill()
        await process.wait()


class TestWorkerKilled:
    async def test_its_lock_is_freed_and_its_question_interrupted(
        self, worker: asyncio.subprocess.Process, postgres_database: PostgresDatabase
    ) -> None:
        history = await PostgresHistory.open(postgres_database)
        assert await history.interrupt_orphans() == 0  # alive: its question is running
        assert await history.turn_states("chat:1") == ["open"]

        locks = KeyedLocks(across=AdvisoryConversationLocks(postgres_database))
        entered = asyncio.Event()

        async def next_message() -> None:
            async with locks.hold("chat:1"):
                entered.set()

        waiter = asyncio.create_task(next_message())
        await until_someone_waits(postgres_database)
        assert not entered.is_set()

        worker.kill()
        await worker.wait()
        await asyncio.wait_for(waiter, timeout=10)
        assert entered.is_set()
        assert await history.interrupt_orphans() == 1
        assert await history.turn_states("chat:1") == ["interrupted"]
        assert await history.load_turns("chat:1", 5) == []


class TestSessionLost:
    async def test_locks_work_on_and_the_identity_is_taken_again(
        self, postgres_database: PostgresDatabase, postgres_url: str
    ) -> None:
        locks = AdvisoryConversationLocks(postgres_database)
        lost = postgres_database.session.connection
        await end_session(postgres_database.pool, lost.get_server_pid())
        for _ in range(2):  # the first notices the loss, the next reopens the session
            async with locks.hold("chat:1"):
                pass
        assert postgres_database.session.connection is not lost
        other = await PostgresDatabase.open(postgres_url)
        try:
            assert await other.alive(postgres_database.owner)
        finally:
            await other.close()
