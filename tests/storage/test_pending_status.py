"""Status messages in flight on both backends; with several workers, only a gone worker's
records are left-overs."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest
from aiogram import Bot

from bot.storage import PostgresDatabase, StorageError
from bot.storage.pending_status import PendingStatus, PendingStatusStore
from bot.storage.pending_status.postgres import PostgresPendingStatusStore
from bot.storage.pending_status.sqlite import SqlitePendingStatusStore
from bot.telegram.output.pending_status import tidy_leftovers
from tests.fakes.fake_telegram import FakeTelegramSession


@pytest.fixture
async def sqlite_pending(tmp_path: Path) -> AsyncIterator[PendingStatusStore]:
    store = SqlitePendingStatusStore(tmp_path / "pending_status.sqlite3")
    try:
        yield store
    finally:
        await store.close()


@pytest.fixture
async def postgres_pending(
    postgres_database: PostgresDatabase,
) -> AsyncIterator[PendingStatusStore]:
    store = PostgresPendingStatusStore(postgres_database)
    try:
        yield store
    finally:
        await store.close()


@pytest.fixture
def pending(backend: str, request: pytest.FixtureRequest) -> PendingStatusStore:
    store: PendingStatusStore = request.getfixturevalue(f"{backend}_pending")
    return store


Records = Callable[[], Awaitable[list[PendingStatus]]]


@pytest.fixture
def records(backend: str, pending: PendingStatusStore, request: pytest.FixtureRequest) -> Records:
    """Every record in the store, newest first, whoever owns it."""
    if isinstance(pending, SqlitePendingStatusStore):
        return pending.all
    database: PostgresDatabase = request.getfixturevalue("postgres_database")

    async def read() -> list[PendingStatus]:
        await pending.leftovers()  # behind every write asked for before
        rows = await database.pool.fetch(
            "SELECT chat_id, message_id, lang, thread_id FROM pending_status ORDER BY added DESC"
        )
        return [PendingStatus(*row) for row in rows]

    return read


def _status(n: int) -> PendingStatus:
    return PendingStatus(-100 - n, n, "ru" if n % 2 else "en", n * 10 or None)


class TestPendingStatus:
    async def test_a_remove_asked_right_after_its_add_is_not_overtaken(
        self, pending: PendingStatusStore, records: Records
    ) -> None:
        for n in range(20):
            pending.add(_status(n))
            if n % 2:
                await pending.remove(_status(n).chat_id, n)
        assert await records() == [_status(n) for n in range(18, -1, -2)]

    async def test_dropped_records_are_gone(
        self, pending: PendingStatusStore, records: Records
    ) -> None:
        await asyncio.gather(*(pending.add(_status(n)) for n in range(3)))
        await pending.drop([_status(0), _status(2)])
        assert await records() == [_status(1)]


async def test_at_start_every_record_of_the_one_process_is_a_leftover(tmp_path: Path) -> None:
    store = SqlitePendingStatusStore(tmp_path / "pending_status.sqlite3")
    await asyncio.gather(*(store.add(_status(n)) for n in range(2)))
    await store.close()
    again = SqlitePendingStatusStore(tmp_path / "pending_status.sqlite3")
    try:
        assert await again.leftovers() == [_status(1), _status(0)]
    finally:
        await again.close()


async def test_only_the_records_of_gone_workers_are_leftovers(postgres_url: str) -> None:
    gone, running, starting = [await PostgresDatabase.open(postgres_url) for _ in range(3)]
    try:
        await PostgresPendingStatusStore(gone).add(_status(1))
        await PostgresPendingStatusStore(gone).add(_status(2))
        await PostgresPendingStatusStore(running).add(_status(3))
        await gone.close()
        store = PostgresPendingStatusStore(starting)
        await store.add(_status(4))
        leftovers = await store.leftovers()
        assert leftovers == [_status(2), _status(1)]
        await store.drop(leftovers)
        assert await store.leftovers() == []
        assert await PostgresPendingStatusStore(running).leftovers() == [], "its own are live"
        count = await starting.pool.fetchval("SELECT count(*) FROM pending_status")
        assert count == 2, "the running worker's record and this one's stay"
    finally:
        await running.close()
        await starting.close()


async def test_a_failing_database_is_a_storage_error_and_start_up_goes_on(
    postgres_database: PostgresDatabase, bot: Bot, bot_session: FakeTelegramSession
) -> None:
    store = PostgresPendingStatusStore(postgres_database)
    await store.add(_status(1))
    await postgres_database.pool.execute("DROP TABLE pending_status")
    try:
        with pytest.raises(StorageError, match="pending_status"):
            await store.leftovers()
        with pytest.raises(StorageError, match="pending_status"):
            await store.drop([_status(1)])
        assert await tidy_leftovers(bot, store) == 0
        assert bot_session.called("editMessageText") == []
    finally:
        await store.close()
