"""State that several worker processes share: PostgreSQL when DATABASE_URL is set, else the
SQLite files in DATA_DIR.

What is here is the infrastructure; each concern keeps its own store beside its code:

- `PostgresDatabase` (postgres.py): the asyncpg pool, this process's `LockSession` and its
  `owner` name. `open` upgrades the schema first (migrations.py: a `schema_version` table, one
  transaction per step, a newer schema refused with `SchemaVersionError`).
- `UpdateClaims` (claims.py): exactly-once webhook updates, `SqliteUpdateClaims` and
  `PostgresUpdateClaims`.
- `AdvisoryConversationLocks` (conversation_lock.py): one conversation at a time across
  processes; `bot.agent.KeyedLocks(across=...)` takes it.

How a store plugs in (the conversation log, bot.agent.history and history_postgres, is the
example):

1. Keep the SQLite class as it is and write a `Protocol` of what its users call.
2. Write the PostgreSQL class beside it, taking a `PostgresDatabase` and running each operation
   as one statement on `database.pool` (a transaction, `async with pool.acquire() as c, c.
   transaction():`, when it needs several). Use the database's clock (`clock_timestamp()`)
   for anything several machines compare. Rows that belong to a process name
   `database.owner`; `database.alive(owner)` tells whether that process still runs.
3. Add its tables as a new `Migration` at the end of `migrations.MIGRATIONS`.
4. Choose the class in the composition root (bot.services.open_services, or the Telegram
   wing's) by `services.database`: None means SQLite.
5. Run its tests against both: the `backend` fixture in tests/storage/conftest.py gives
   "sqlite" or "postgres", and `postgres_database` a fresh, migrated database per test.

The names below load their module on first use (`__getattr__`): the PostgreSQL driver is
imported only by a process that opens a database, so start-up without DATABASE_URL, `--help`
and the terminal chat never pay for it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bot.storage.claims import PostgresUpdateClaims, SqliteUpdateClaims, UpdateClaims
    from bot.storage.conversation_lock import AdvisoryConversationLocks
    from bot.storage.errors import DatabaseUnavailable, SchemaVersionError, StorageError
    from bot.storage.keys import advisory_key
    from bot.storage.migrations import MIGRATIONS, SCHEMA_VERSION, Migration, migrate
    from bot.storage.postgres import POOL_SIZE, PostgresDatabase, new_owner
    from bot.storage.session import LockSession
    from bot.storage.urls import database_secrets, redact_url

_HOMES = {
    "MIGRATIONS": "migrations",
    "POOL_SIZE": "postgres",
    "SCHEMA_VERSION": "migrations",
    "AdvisoryConversationLocks": "conversation_lock",
    "DatabaseUnavailable": "errors",
    "LockSession": "session",
    "Migration": "migrations",
    "PostgresDatabase": "postgres",
    "PostgresUpdateClaims": "claims",
    "SchemaVersionError": "errors",
    "SqliteUpdateClaims": "claims",
    "StorageError": "errors",
    "UpdateClaims": "claims",
    "advisory_key": "keys",
    "database_secrets": "urls",
    "migrate": "migrations",
    "new_owner": "postgres",
    "redact_url": "urls",
}
"""Each public name and the module of this package it lives in."""

__all__ = [
    "MIGRATIONS",
    "POOL_SIZE",
    "SCHEMA_VERSION",
    "AdvisoryConversationLocks",
    "DatabaseUnavailable",
    "LockSession",
    "Migration",
    "PostgresDatabase",
    "PostgresUpdateClaims",
    "SchemaVersionError",
    "SqliteUpdateClaims",
    "StorageError",
    "UpdateClaims",
    "advisory_key",
    "database_secrets",
    "migrate",
    "new_owner",
    "redact_url",
]


def __getattr__(name: str) -> Any:
    """Load a public name's module when the name is first used."""
    home = _HOMES.get(name)
    if home is None:
        msg = f"module {__name__!r} has no attribute {name!r}"
        raise AttributeError(msg)
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value
