"""Each storage interface under test on both backends: `backend` is "sqlite" or "postgres".

A fixture named `sqlite_X` / `postgres_X` builds the store on one backend; the parametrized
`X` fixture picks by `backend`, so the PostgreSQL server starts only for the tests that use it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.agent import History, HistoryStore
from bot.storage import PostgresDatabase, PostgresUpdateClaims, SqliteUpdateClaims, UpdateClaims
from bot.storage.history.postgres import PostgresHistory

BACKENDS = ["sqlite", "postgres"]


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    return name


@pytest.fixture
async def sqlite_history(tmp_path: Path) -> AsyncIterator[History]:
    store = await HistoryStore.open(tmp_path / "history.sqlite3")
    try:
        yield store
    finally:
        await store.close()


@pytest.fixture
async def postgres_history(postgres_database: PostgresDatabase) -> AsyncIterator[History]:
    store = await PostgresHistory.open(postgres_database)
    try:
        yield store
    finally:
        await store.close()


@pytest.fixture
def history(backend: str, request: pytest.FixtureRequest) -> History:
    store: History = request.getfixturevalue(f"{backend}_history")
    return store


@pytest.fixture
async def sqlite_claims(tmp_path: Path) -> AsyncIterator[UpdateClaims]:
    claims = await SqliteUpdateClaims.open(tmp_path / "update_claims.sqlite3")
    try:
        yield claims
    finally:
        await claims.close()


@pytest.fixture
def postgres_claims(postgres_database: PostgresDatabase) -> UpdateClaims:
    return PostgresUpdateClaims(postgres_database)


@pytest.fixture
def claims(backend: str, request: pytest.FixtureRequest) -> UpdateClaims:
    store: UpdateClaims = request.getfixturevalue(f"{backend}_claims")
    return store
