"""Source button ids on both backends; on PostgreSQL an id issued by one worker is found by
another."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.storage import PostgresDatabase
from bot.storage.source_links import LIFETIME_S, SourceLinks
from bot.storage.source_links.postgres import PostgresSourceLinks
from bot.storage.source_links.sqlite import SqliteSourceLinks
from tests.fakes.clock import FakeClock

PATH = "guides/setup.md"


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def sqlite_links(tmp_path: Path, clock: FakeClock) -> AsyncIterator[SourceLinks]:
    store = SqliteSourceLinks(tmp_path / "source_links.sqlite3", clock=clock)
    try:
        yield store
    finally:
        await store.close()


@pytest.fixture
def postgres_links(postgres_database: PostgresDatabase, clock: FakeClock) -> SourceLinks:
    return PostgresSourceLinks(postgres_database, clock=clock)


@pytest.fixture
def links(backend: str, request: pytest.FixtureRequest) -> SourceLinks:
    store: SourceLinks = request.getfixturevalue(f"{backend}_links")
    return store


class TestSourceLinks:
    async def test_each_path_gets_its_own_id_in_order(self, links: SourceLinks) -> None:
        ids = await links.issue(-100, [PATH, "b.md", PATH])
        assert len(set(ids)) == 3
        found = [await links.find(link_id) for link_id in ids]
        assert [(f.path, f.chat_id) for f in found if f] == [
            (PATH, -100),
            ("b.md", -100),
            (PATH, -100),
        ]

    @pytest.mark.parametrize("bad", ["", "short", "x" * 13, "a/b/c/d/e/f/", "AAAAAAAAAAAA"])
    async def test_unknown_and_malformed_ids_find_nothing(
        self, links: SourceLinks, bad: str
    ) -> None:
        await links.issue(1, [PATH])
        assert await links.find(bad) is None

    async def test_an_id_lives_thirty_days_and_then_is_dropped(
        self, links: SourceLinks, clock: FakeClock
    ) -> None:
        [old] = await links.issue(1, [PATH])
        clock.advance(LIFETIME_S)
        found = await links.find(old)
        assert found is not None and found.created_at == clock.now - LIFETIME_S
        clock.advance(1)
        assert await links.find(old) is None
        await links.issue(1, ["new.md"])
        clock.now -= 10
        assert await links.find(old) is None, "expired rows go when new ones are written"

    async def test_forgetting_a_chat_drops_only_its_ids(self, links: SourceLinks) -> None:
        [mine] = await links.issue(5, [PATH])
        [theirs] = await links.issue(6, [PATH])
        assert await links.forget_chat(5) == 1
        assert await links.find(mine) is None
        assert await links.find(theirs) is not None


async def test_an_id_issued_by_one_worker_is_found_by_another(
    postgres_database: PostgresDatabase, postgres_url: str
) -> None:
    other = await PostgresDatabase.open(postgres_url)
    try:
        [link_id] = await PostgresSourceLinks(postgres_database).issue(-7, [PATH])
        found = await PostgresSourceLinks(other).find(link_id)
        assert found is not None and (found.path, found.chat_id) == (PATH, -7)
    finally:
        await other.close()
