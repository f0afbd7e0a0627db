"""The album memory on both backends; on PostgreSQL the items of one album that reach two
workers at once are "first" on exactly one."""

from __future__ import annotations

import asyncio

import pytest

from bot.storage import PostgresDatabase
from bot.storage.albums import AlbumMemory
from bot.storage.albums.memory import Albums
from bot.storage.albums.postgres import PostgresAlbums
from tests.fakes.clock import FakeClock

TTL_S = 60.0


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def sqlite_albums(clock: FakeClock) -> AlbumMemory:
    return Albums(TTL_S, clock=clock)


@pytest.fixture
def postgres_albums(postgres_database: PostgresDatabase, clock: FakeClock) -> AlbumMemory:
    return PostgresAlbums(postgres_database, TTL_S, clock=clock)


@pytest.fixture
def albums(backend: str, request: pytest.FixtureRequest) -> AlbumMemory:
    made: AlbumMemory = request.getfixturevalue(f"{backend}_albums")
    return made


class TestAlbumMemory:
    async def test_the_first_item_decides_for_the_rest_of_its_album(
        self, albums: AlbumMemory
    ) -> None:
        assert await albums.first_item("g1", "refused")
        assert not await albums.first_item("g1", "refused")
        assert await albums.recall("g1") == "refused"
        assert await albums.first_item("g2", "told"), "another album is new"
        assert await albums.first_item(None, "told"), "a lone message is always first"
        assert await albums.first_item(None, "told")

    async def test_a_remembered_value_is_replaced_and_forgotten_after_the_ttl(
        self, albums: AlbumMemory, clock: FakeClock
    ) -> None:
        await albums.remember("g", "")
        assert await albums.recall("g") == ""
        await albums.remember("g", "recipes")
        assert await albums.recall("g") == "recipes"
        assert await albums.recall(None) is None
        clock.advance(TTL_S)
        assert await albums.recall("g") is None
        assert await albums.first_item("g", "told"), "a long past album counts as new"


async def test_one_item_of_an_album_is_first_across_workers(postgres_url: str) -> None:
    one = await PostgresDatabase.open(postgres_url)
    two = await PostgresDatabase.open(postgres_url)
    try:
        memories = [PostgresAlbums(one), PostgresAlbums(two)]
        firsts = await asyncio.gather(
            *(memories[n % 2].first_item("album-1", "told") for n in range(10))
        )
        assert firsts.count(True) == 1
    finally:
        await one.close()
        await two.close()
