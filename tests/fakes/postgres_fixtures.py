"""The pytest fixtures over the throwaway PostgreSQL: a server per test process, a database per
test.

`postgres_server` starts the server once in each test process (each pytest-xdist worker has
its own, on a port of its own) or takes TEST_DATABASE_URL, and skips, saying why, where there
is no PostgreSQL. `postgres_url` is a fresh, empty database for one test; `postgres_database`
is that database opened the way the bot opens it (schema migrated).
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
    """The URL of a new, empty database, dropped afterwards.

    Dropping each one keeps the server's folder small, so stopping the server at the end of
    the run costs the same however many tests used it.
    """
    name = postgres_server.next_name()
    admin = await asyncpg.connect(postgres_server.admin_url)
    try:
        await admin.execute(create_database(name, admin.get_server_version().major))
    finally:
        await admin.close()
    yield postgres_server.url_of(name)
    admin = await asyncpg.connect(postgres_server.admin_url)
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await admin.close()


def create_database(name: str, server_major: int) -> str:
    """CREATE DATABASE for an empty test database; from PostgreSQL 15 on, by copying files,
    which for a small database is faster than the default of writing it through the WAL."""
    statement = f'CREATE DATABASE "{name}" TEMPLATE template0'
    return f"{statement} STRATEGY FILE_COPY" if server_major >= 15 else statement


@pytest.fixture
async def postgres_database(postgres_url: str) -> AsyncIterator[PostgresDatabase]:
    """A fresh database opened as the bot opens it: schema migrated, this process's session."""
    database = await PostgresDatabase.open(postgres_url)
    try:
        yield database
    finally:
        await database.close()


async def end_session(pool: asyncpg.Pool, pid: int) -> None:
    """End the server session `pid` as the server does when its worker dies, and return only
    once it is gone, its locks with it.

    Plain `pg_terminate_backend(pid)` only signals the session's process: under load the
    process may still hold its advisory locks when the next statement asks about them. With a
    timeout (PostgreSQL 14 on) the call waits until the process has exited.
    """
    ended = await pool.fetchval("SELECT pg_terminate_backend($1, 30000)", pid)
    assert ended, f"session {pid} had not ended 30 s after it was told to"
