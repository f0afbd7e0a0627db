"""Actions waiting for their confirm button on both backends; on PostgreSQL a tap reaching two
workers at once does the action once."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.storage import PostgresDatabase
from bot.storage.confirmations import LIFETIME_S, Confirmations, Pending
from bot.storage.confirmations.postgres import PostgresConfirmations
from bot.storage.confirmations.sqlite import SqliteConfirmations
from tests.fakes.clock import FakeClock

REMOVE = Pending(7, -100, "rm", ("recipes/old.md", "заметки/черновик.txt"))


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def sqlite_confirmations(tmp_path: Path, clock: FakeClock) -> AsyncIterator[Confirmations]:
    store = SqliteConfirmations(tmp_path / "confirmations.sqlite3", clock=clock)
    try:
        yield store
    finally:
        await store.close()


@pytest.fixture
def postgres_confirmations(postgres_database: PostgresDatabase, clock: FakeClock) -> Confirmations:
    return PostgresConfirmations(postgres_database, clock=clock)


@pytest.fixture
def confirmations(backend: str, request: pytest.FixtureRequest) -> Confirmations:
    store: Confirmations = request.getfixturevalue(f"{backend}_confirmations")
    return store


class TestConfirmations:
    async def test_only_the_asker_in_the_same_chat_takes_it_and_only_once(
        self, confirmations: Confirmations
    ) -> None:
        confirm_id = await confirmations.ask(REMOVE)
        assert await confirmations.take(confirm_id, user_id=8, chat_id=-100) is None
        assert await confirmations.take(confirm_id, user_id=7, chat_id=-200) is None
        assert await confirmations.take(confirm_id, user_id=7, chat_id=-100) == REMOVE
        assert await confirmations.take(confirm_id, user_id=7, chat_id=-100) is None
        assert await confirmations.take("not an id", user_id=7, chat_id=-100) is None

    async def test_an_old_confirmation_is_refused(
        self, confirmations: Confirmations, clock: FakeClock
    ) -> None:
        live = await confirmations.ask(REMOVE)
        clock.advance(LIFETIME_S)
        assert await confirmations.take(live, user_id=7, chat_id=-100) == REMOVE
        old = await confirmations.ask(REMOVE)
        clock.advance(LIFETIME_S + 1)
        assert await confirmations.take(old, user_id=7, chat_id=-100) is None

    async def test_forgetting_a_user_drops_only_theirs(self, confirmations: Confirmations) -> None:
        await confirmations.ask(REMOVE)
        await confirmations.ask(REMOVE)
        kept = await confirmations.ask(Pending(9, 9, "forget", ()))
        assert await confirmations.forget_user(7) == 2
        assert await confirmations.take(kept, user_id=9, chat_id=9) == Pending(9, 9, "forget", ())


async def test_a_tap_reaching_two_workers_is_taken_once(postgres_url: str) -> None:
    one = await PostgresDatabase.open(postgres_url)
    two = await PostgresDatabase.open(postgres_url)
    try:
        confirm_id = await PostgresConfirmations(one).ask(REMOVE)
        stores = [PostgresConfirmations(one), PostgresConfirmations(two)]
        taken = await asyncio.gather(
            *(stores[n % 2].take(confirm_id, user_id=7, chat_id=-100) for n in range(6))
        )
        assert taken.count(REMOVE) == 1
        assert taken.count(None) == 5
    finally:
        await one.close()
        await two.close()
