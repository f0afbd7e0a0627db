"""The pytest fixtures over the throwaway PostgreSQL: one server per run, a database per test.

`postgres_server` starts the server once (or takes TEST_DATABASE_URL) and skips, saying why,
where there is no PostgreSQL. `postgres_url` is a fresh, empty database for one test;
`postgres_database` is that database opened the way the bot opens it (schema migrated).
`postgres_with_password` is a server of its own whose logins need a password.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import asyncpg
import pytest

from bot.storage import PostgresDatabase
from tests.fakes.postgres import PostgresMissing, PostgresServer


def _started(password: str | None = None) -> Iterator[PostgresServer]:
    """A server for the whole run, stopped at its end; the test is skipped when there is none."""
    try:
        server = PostgresServer.start(password=password)
    except PostgresMissing as exc:
        pytest.skip(str(exc))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """The run's PostgreSQL server; tests that need it are skipped when there is none."""
    yield from _started()


@pytest.fixture(scope="session")
def postgres_with_password() -> Iterator[PostgresServer]:
    """A server that asks every login for its password (`admin_url` carries the right one)."""
    yield from _started(password="right-Pa55word")


@pytest.fixture
async def postgres_url(postgres_server: PostgresServer) -> AsyncIterator[str]:
    """The URL of a new, empty database, dropped afterwards on a server the tests did not
    start (a started one is thrown away whole)."""
    name = postgres_server.next_name()
    admin = await asyncpg.connect(postgres_server.admin_url)
    try:
        await admin.execute(f'CREATE DATABASE "{name}" TEMPLATE template0')
    finally:
        await admin.close()
    yield postgres_server.url_of(name)
    if postgres_server.folder is None:
        admin = await asyncpg.connect(postgres_server.admin_url)
        try:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await admin.close()


@pytest.fixture
async def postgres_database(postgres_url: str) -> AsyncIterator[PostgresDatabase]:
    """A fresh database opened as the bot opens it: schema migrated, this process's session."""
    database = await PostgresDatabase.open(postgres_url)
    try:
        yield database
    finally:
        await database.close()
