"""The PostgreSQL schema at start: built fresh, upgraded step by step, a failed step rolled
back whole, a newer schema refused."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from bot.storage import (
    MIGRATIONS,
    SCHEMA_VERSION,
    Migration,
    PostgresDatabase,
    SchemaVersionError,
    StorageError,
    migrate,
)
from bot.storage.history.postgres import PostgresHistory
from bot.storage.source_links.postgres import PostgresSourceLinks

NEXT = SCHEMA_VERSION + 1
PAGE_LINKS = 10
ADD_NOTES = Migration(NEXT, "notes", ("CREATE TABLE notes (id BIGINT PRIMARY KEY)",))
BROKEN = Migration(
    NEXT,
    "a step that fails halfway",
    (
        "CREATE TABLE half_made (id BIGINT)",
        "ALTER TABLE turns ADD COLUMN flag BOOLEAN",
        "SELECT no_such_function()",
    ),
)


async def tables(url: str) -> set[str]:
    connection = await asyncpg.connect(url)
    try:
        rows = await connection.fetch(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"
        )
        return {row["tablename"] for row in rows}
    finally:
        await connection.close()


async def versions(url: str) -> list[int]:
    connection = await asyncpg.connect(url)
    try:
        rows = await connection.fetch("SELECT version FROM schema_version ORDER BY version")
        return [row["version"] for row in rows]
    finally:
        await connection.close()


class TestMigrations:
    async def test_a_new_database_gets_the_whole_schema(self, postgres_url: str) -> None:
        database = await PostgresDatabase.open(postgres_url)
        await database.close()
        assert {"conversations", "turns", "messages", "update_claims"} <= await tables(
            postgres_url
        )
        assert await versions(postgres_url) == [m.version for m in MIGRATIONS]

    async def test_opening_again_changes_nothing(self, postgres_url: str) -> None:
        for _ in range(2):
            database = await PostgresDatabase.open(postgres_url)
            await database.close()
        assert await versions(postgres_url) == [m.version for m in MIGRATIONS]

    async def test_workers_starting_together_migrate_once(self, postgres_url: str) -> None:
        opened = await asyncio.gather(*(PostgresDatabase.open(postgres_url) for _ in range(4)))
        for database in opened:
            await database.close()
        assert await versions(postgres_url) == [m.version for m in MIGRATIONS]

    async def test_an_older_schema_is_upgraded(self, postgres_url: str) -> None:
        database = await PostgresDatabase.open(postgres_url)
        await database.close()
        upgraded = await PostgresDatabase.open(postgres_url, migrations=(*MIGRATIONS, ADD_NOTES))
        await upgraded.close()
        assert "notes" in await tables(postgres_url)
        assert await versions(postgres_url) == [*(m.version for m in MIGRATIONS), NEXT]

    async def test_a_database_from_before_page_buttons_gets_them(self, postgres_url: str) -> None:
        before = tuple(m for m in MIGRATIONS if m.version < PAGE_LINKS)
        database = await PostgresDatabase.open(postgres_url, migrations=before)
        (document,) = await PostgresSourceLinks(database).issue(3, ["a.pdf"])
        await database.close()
        assert "page_links" not in await tables(postgres_url)
        upgraded = await PostgresDatabase.open(postgres_url)
        try:
            links = PostgresSourceLinks(upgraded)
            assert await links.find(document) is not None
            (page,) = await links.issue_pages(3, [("a.pdf", 2)])
            found = await links.find_page(page)
            assert found is not None and (found.path, found.page) == ("a.pdf", 2)
        finally:
            await upgraded.close()

    async def test_a_failing_step_leaves_the_old_schema_working(self, postgres_url: str) -> None:
        database = await PostgresDatabase.open(postgres_url)
        await (await PostgresHistory.open(database)).begin_turn("k", {"content": "kept"})
        await database.close()

        with pytest.raises(SchemaVersionError) as caught:
            await PostgresDatabase.open(postgres_url, migrations=(*MIGRATIONS, BROKEN))
        assert f"stays at version {SCHEMA_VERSION}" in str(caught.value)
        assert "no_such_function" in str(caught.value)
        assert "half_made" not in await tables(postgres_url)
        assert await versions(postgres_url) == [m.version for m in MIGRATIONS]

        again = await PostgresDatabase.open(postgres_url)
        try:
            history = await PostgresHistory.open(again)
            assert await history.turn_states("k") == ["interrupted"]
            turn = await history.begin_turn("k", {"content": "new"})
            await history.finish_turn(turn, done=True)
            assert await history.load_turns("k", 5) == [[{"content": "new"}]]
        finally:
            await again.close()

    async def test_a_newer_schema_is_refused_untouched(self, postgres_url: str) -> None:
        database = await PostgresDatabase.open(postgres_url, migrations=(*MIGRATIONS, ADD_NOTES))
        await database.close()
        with pytest.raises(SchemaVersionError) as caught:
            await PostgresDatabase.open(postgres_url)
        message = str(caught.value)
        assert f"schema version {NEXT}, newer than this bot's {SCHEMA_VERSION}" in message
        assert "notes" in await tables(postgres_url)

    async def test_migrate_reports_where_it_started(self, postgres_url: str) -> None:
        connection = await asyncpg.connect(postgres_url)
        try:
            assert await migrate(connection) == 0
            assert await migrate(connection) == SCHEMA_VERSION
        finally:
            await connection.close()


class TestUnreachable:
    async def test_the_message_hides_the_password(self) -> None:
        url = "postgresql://bot:hunter2secret@127.0.0.1:1/bot"
        with pytest.raises(StorageError) as caught:
            await PostgresDatabase.open(url)
        assert "hunter2secret" not in str(caught.value)
        assert "postgresql://bot:***@127.0.0.1:1/bot" in str(caught.value)
