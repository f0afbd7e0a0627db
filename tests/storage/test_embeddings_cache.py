"""Embeddings in the shared database: what one machine paid for, another finds, from the vector
builder's own thread, on a real PostgreSQL started by the tests."""

from __future__ import annotations

import asyncio

import pytest

from bot.storage.embeddings.postgres import PostgresEmbeddingCache
from bot.storage.errors import StorageError
from bot.storage.postgres import PostgresDatabase

MODEL = "text-embedding-3-small"


async def test_what_one_machine_stored_another_finds(
    postgres_database: PostgresDatabase, postgres_url: str
) -> None:
    first = PostgresEmbeddingCache(postgres_database, asyncio.get_running_loop())
    await asyncio.to_thread(first.put_many, MODEL, {"d1": b"\x01\x02", "d2": b"\x7f\x80"})
    other_machine = await PostgresDatabase.open(postgres_url)
    try:
        second = PostgresEmbeddingCache(other_machine, asyncio.get_running_loop())
        found = await asyncio.to_thread(second.get_many, MODEL, ["d1", "d2", "d3"])
        other_model = await asyncio.to_thread(second.get_many, "another-model", ["d1"])
    finally:
        await other_machine.close()
    assert found == {"d1": b"\x01\x02", "d2": b"\x7f\x80"}
    assert other_model == {}, "a vector belongs to the model that made it"


async def test_a_vector_written_first_is_kept(postgres_database: PostgresDatabase) -> None:
    cache = PostgresEmbeddingCache(postgres_database, asyncio.get_running_loop())
    await asyncio.to_thread(cache.put_many, MODEL, {"d1": b"\x01"})
    await asyncio.to_thread(cache.put_many, MODEL, {"d1": b"\x02", "d4": b"\x04"})
    found = await asyncio.to_thread(cache.get_many, MODEL, ["d1", "d4"])
    assert found == {"d1": b"\x01", "d4": b"\x04"}


async def test_nothing_asked_costs_no_statement(postgres_database: PostgresDatabase) -> None:
    cache = PostgresEmbeddingCache(postgres_database, asyncio.get_running_loop())
    await postgres_database.pool.close()  # any statement would now fail
    assert await asyncio.to_thread(cache.get_many, MODEL, []) == {}
    await asyncio.to_thread(cache.put_many, MODEL, {})


async def test_a_database_that_does_not_answer_fails_the_call_in_time(
    postgres_database: PostgresDatabase,
) -> None:
    cache = PostgresEmbeddingCache(postgres_database, asyncio.get_running_loop(), wait_s=0.2)
    async with postgres_database.pool.acquire() as holder, holder.transaction():
        await holder.execute("LOCK TABLE embeddings IN ACCESS EXCLUSIVE MODE")
        with pytest.raises(StorageError, match="did not answer within 0.2 s"):
            await asyncio.to_thread(cache.get_many, MODEL, ["d1"])
