"""Source button ids on both backends; on PostgreSQL an id issued by one worker is found by
another."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.process.data_files import DataFiles
from bot.storage import PostgresDatabase
from bot.storage.source_links import LIFETIME_S, SourceLink, SourceLinks, is_link_id
from bot.storage.source_links.postgres import PostgresSourceLinks
from bot.storage.source_links.sqlite import SqliteSourceLinks
from tests.fakes.clock import FakeClock

PATH = "документы/рецепт_шарлотки.txt"


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

    async def test_each_path_gets_a_short_random_id(self, links: SourceLinks) -> None:
        ids = await links.issue(-100, [PATH, "hr/отпуск.md"])
        assert len(ids) == 2 and len(set(ids)) == 2
        assert all(is_link_id(i) and len(i) == 12 for i in ids)
        assert await links.find(ids[0]) == SourceLink(PATH, -100, 1_750_000_000.0)
        assert (await links.find(ids[1]) or SourceLink("", 0, 0)).path == "hr/отпуск.md"

    async def test_the_same_path_asked_again_gets_a_new_id(self, links: SourceLinks) -> None:
        (first,) = await links.issue(1, [PATH])
        (second,) = await links.issue(1, [PATH])
        assert first != second

    @pytest.mark.parametrize(
        "bad", ["", "short", "x" * 13, "../../etc/pas", "abc def ghij", "é" * 12]
    )
    async def test_malformed_and_unknown_ids_find_nothing(
        self, links: SourceLinks, bad: str
    ) -> None:
        await links.issue(1, [PATH])
        assert await links.find(bad) is None
        assert await links.find("A" * 12) is None

    async def test_an_id_lives_thirty_days(self, links: SourceLinks, clock: FakeClock) -> None:
        (link_id,) = await links.issue(1, [PATH])
        clock.advance(LIFETIME_S - 1)
        assert await links.find(link_id) is not None
        clock.advance(2)
        assert await links.find(link_id) is None


class TestPageLinks:
    async def test_each_page_gets_its_own_id_in_order(self, links: SourceLinks) -> None:
        ids = await links.issue_pages(-100, [(PATH, 12), (PATH, 3), ("b.pdf", 1)])
        assert len(set(ids)) == 3 and all(is_link_id(i) for i in ids)
        found = [await links.find_page(link_id) for link_id in ids]
        assert found == [
            SourceLink(PATH, -100, clock_now(found), 12),
            SourceLink(PATH, -100, clock_now(found), 3),
            SourceLink("b.pdf", -100, clock_now(found), 1),
        ]

    async def test_a_page_id_is_not_a_document_id_nor_the_other_way(
        self, links: SourceLinks
    ) -> None:
        (page,) = await links.issue_pages(1, [(PATH, 2)])
        (document,) = await links.issue(1, [PATH])
        assert await links.find(page) is None
        assert await links.find_page(document) is None
        found = await links.find(document)
        assert found is not None and found.page is None

    @pytest.mark.parametrize("bad", ["", "short", "x" * 13, "../../etc/pas", "A" * 12])
    async def test_malformed_and_unknown_page_ids_find_nothing(
        self, links: SourceLinks, bad: str
    ) -> None:
        await links.issue_pages(1, [(PATH, 1)])
        assert await links.find_page(bad) is None

    async def test_a_page_id_lives_thirty_days(self, links: SourceLinks, clock: FakeClock) -> None:
        (link_id,) = await links.issue_pages(1, [(PATH, 4)])
        clock.advance(LIFETIME_S - 1)
        assert await links.find_page(link_id) is not None
        clock.advance(2)
        assert await links.find_page(link_id) is None

    async def test_forgetting_a_chat_drops_its_pages_too(self, links: SourceLinks) -> None:
        await links.issue(5, [PATH])
        (mine,) = await links.issue_pages(5, [(PATH, 1)])
        (theirs,) = await links.issue_pages(6, [(PATH, 1)])
        assert await links.forget_chat(5) == 2
        assert await links.find_page(mine) is None
        assert await links.find_page(theirs) is not None


def clock_now(found: list[SourceLink | None]) -> float:
    """The one creation time of links issued together."""
    (created,) = {link.created_at for link in found if link is not None}
    return created


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


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return DataFiles(tmp_path / "data").source_links


class TestSqliteFile:
    """What only the SQLite store has: its file in DATA_DIR."""

    async def test_expired_rows_are_dropped_when_new_ones_are_written(
        self, clock: FakeClock, db_path: Path
    ) -> None:
        links = SqliteSourceLinks(db_path, clock=clock)
        await links.issue(1, [PATH, PATH])
        clock.advance(LIFETIME_S + 1)
        await links.issue(1, [PATH])
        await links.close()
        with sqlite3.connect(db_path) as db:
            assert db.execute("SELECT COUNT(*) FROM source_links").fetchone() == (1,)

    async def test_ids_survive_a_restart(self, db_path: Path, clock: FakeClock) -> None:
        first = SqliteSourceLinks(db_path, clock=clock)
        (link_id,) = await first.issue(7, [PATH])
        await first.close()
        second = SqliteSourceLinks(db_path, clock=clock)
        try:
            assert await second.find(link_id) == SourceLink(PATH, 7, clock.now)
        finally:
            await second.close()

    async def test_only_the_path_and_the_chat_are_kept(self, db_path: Path) -> None:
        links = SqliteSourceLinks(db_path)
        await links.issue(7, [PATH])
        await links.close()
        with sqlite3.connect(db_path) as db:
            columns = [row[1] for row in db.execute("PRAGMA table_info(source_links)")]
        assert columns == ["id", "path", "chat_id", "created_at"]

    async def test_nothing_is_touched_before_first_use_and_closing_twice_is_fine(
        self, db_path: Path
    ) -> None:
        store = SqliteSourceLinks(db_path)
        await store.close()
        await store.close()
        assert not await asyncio.to_thread(db_path.parent.exists)
        with pytest.raises(sqlite3.ProgrammingError):
            await store.issue(1, [PATH])

    async def test_a_file_from_before_page_buttons_gets_them_and_keeps_its_ids(
        self, db_path: Path, clock: FakeClock
    ) -> None:
        await asyncio.to_thread(_file_without_pages, db_path, clock.now)
        links = SqliteSourceLinks(db_path, clock=clock)
        try:
            assert await links.find("OldLinkId_01") == SourceLink(PATH, 7, clock.now)
            (page,) = await links.issue_pages(7, [(PATH, 9)])
            assert await links.find_page(page) == SourceLink(PATH, 7, clock.now, 9)
        finally:
            await links.close()

    def test_the_file_is_among_the_bot_databases(self, tmp_path: Path) -> None:
        files = DataFiles(tmp_path)
        assert files.source_links in files.bot_databases()


def _file_without_pages(path: Path, now: float) -> None:
    """A source links file as the release before page buttons left it, with one id."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(path) as db:
        db.execute(
            "CREATE TABLE source_links (id TEXT PRIMARY KEY, path TEXT NOT NULL, "
            "chat_id INTEGER NOT NULL, created_at REAL NOT NULL)"
        )
        db.execute("INSERT INTO source_links VALUES ('OldLinkId_01', ?, 7, ?)", (PATH, now))
    db.close()
