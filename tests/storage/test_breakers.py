"""The models' open breakers in PostgreSQL: a row per open breaker, timed by the database's
clock, and every change heard by every worker (one process keeps them in memory, so there is
no SQLite side to run against)."""

from __future__ import annotations

import asyncio

import pytest

from bot.storage import PostgresDatabase
from bot.storage.breakers import OpenBreaker
from bot.storage.breakers.postgres import PostgresBreakers


class TestPostgresBreakers:
    async def test_an_open_breaker_is_stored_with_its_time_left_and_closes(
        self, postgres_database: PostgresDatabase
    ) -> None:
        store = PostgresBreakers(postgres_database)
        assert await store.open_now() == []
        await store.opened("main", 60.0, "unavailable")
        [found] = await store.open_now()
        assert (found.model, found.reason) == ("main", "unavailable")
        assert 59.0 < found.retry_in_s <= 60.0
        await store.opened("main", 30.0, "rate_limited")  # failed again: the newest counts
        assert [(o.model, o.reason) for o in await store.open_now()] == [("main", "rate_limited")]
        await store.closed("main")
        assert await store.open_now() == []

    async def test_a_cool_down_past_on_the_database_clock_is_not_open(
        self, postgres_database: PostgresDatabase
    ) -> None:
        store = PostgresBreakers(postgres_database)
        await store.opened("main", -1.0, "unavailable")
        assert await store.open_now() == []

    async def test_every_worker_hears_a_change_with_the_model_named(
        self, postgres_database: PostgresDatabase, postgres_url: str
    ) -> None:
        other = await PostgresDatabase.open(postgres_url)
        heard: asyncio.Queue[tuple[str, list[OpenBreaker]]] = asyncio.Queue()
        listening = PostgresBreakers(other)

        async def changed(model: str) -> None:
            await heard.put((model, await listening.open_now()))

        try:
            await listening.watch(changed)
            writing = PostgresBreakers(postgres_database)
            await writing.opened("main", 60.0, "unavailable")
            model, found = await asyncio.wait_for(heard.get(), 10)
            assert model == "main"
            assert [o.model for o in found] == ["main"]
            await writing.closed("main")
            assert await asyncio.wait_for(heard.get(), 10) == ("main", [])
        finally:
            await listening.close()
            await other.close()

    async def test_a_database_that_is_gone_leaves_the_breaker_local_and_says_so(
        self, postgres_url: str, caplog: pytest.LogCaptureFixture
    ) -> None:
        database = await PostgresDatabase.open(postgres_url)
        store = PostgresBreakers(database)
        await database.close()
        await store.opened("main", 60.0, "unavailable")
        await store.closed("main")
        assert [r.getMessage().split(":")[0] for r in caplog.records] == [
            "could not tell the other workers that main is down",
            "could not tell the other workers that main answers again",
        ]
