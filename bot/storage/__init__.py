"""Every store of the bot's state, and what they stand on: PostgreSQL when DATABASE_URL is set,
else the SQLite files in DATA_DIR.

Each concern is one package of the same shape (aiogram's fsm/storage is the model):

- `__init__.py`: the `Protocol` its users call and the records it hands back, nothing else;
- `sqlite.py`: the SQLite class, on the one SQLite engine (`SqliteThread`, sqlite_thread.py);
- `postgres.py`: the PostgreSQL class, on the shared `PostgresDatabase` (postgres.py).

The concerns: `audit/` (the admins' audit log), `confirmations/` (actions waiting for their
confirm button), `source_links/` (the ids behind source buttons), `rate_limits/` (questions
per user across workers; one process counts in memory, so it has no SQLite class), `claims/`
(exactly-once webhook updates), `albums/` (what was decided for an album's first item; one
process remembers in memory, memory.py), `pending_status/` (status messages on screen, tidied
at the next start), `scopes/` (chat scopes set from Telegram, each conversation's last scope),
`access/` (grants, pairing codes, strangers' requests; its SQLite statements are grouped by
table in sqlite_*.py beside sqlite.py), `history/` (the conversation log and its `Usage`;
on the shared engine too, its SQLite class opening the file at once to recover it after
a crash, with `in_use.py`), `embeddings/` (the vectors search by meaning has paid for, shared
by every machine; PostgreSQL only: on one machine the toolbox keeps them in DATA_DIR itself),
`feedback/` (delivered answers and their askers' 👍/👎, kept like the history),
`unanswered/` (questions the documents could not answer, and when their digest went out),
`experts/` (questions sent to the experts' group and their replies, kept like the history),
`usage/` (tokens spent on the model per question, reserved against budgets, kept like the
history), `notices/` (subscriptions to change notices, and the changes waiting for their
digests), `buttons/` (which message carries which button data, what every tap is checked
against), `breakers/` (the models' open breakers, so every worker learns of a model that is
down; one process keeps them in memory, so it has no SQLite class).

`backend` is the one place that chooses SQLite or PostgreSQL: `open_backend` opens the
database, the history and the update claims, and its `Backend` builds the other stores as
`Stores`
(`backend/sqlite.py` and `backend/postgres.py` are its two sides).

What they stand on (and `errors`, `keys` for advisory lock keys and a transaction holding
them, `lost` for what a lost connection raises, `session` for this process's lock session,
`listening` for a channel every worker hears (LISTEN/NOTIFY), `urls` for database URLs shown
without their passwords):

- `SqliteThread` (sqlite_thread.py): one file behind one worker thread, opened on first use by
  `connect(path, schema)` (`tools.sqlite`, the one way any SQLite file is opened), which creates
  the store's tables; `open_with` opens it at once inside a store's own recovery (the history);
  `transaction` for work that takes several statements.
- `PostgresDatabase` (postgres.py): the asyncpg pool, this process's `LockSession` and its
  `owner` name. `open` upgrades the schema first (migrations.py: a `schema_version` table, one
  transaction per step, a newer schema refused with `SchemaVersionError`).
- `AdvisoryConversationLocks` (conversation_lock.py): one conversation at a time across
  processes; `bot.agent.KeyedLocks(across=...)` takes it.

How a store plugs in (`audit/` is the example to copy):

1. Make `bot/storage/<concern>/__init__.py` with a `Protocol` of what its users call (ending
   with `async def close`) and its frozen dataclass records. No SQL and no driver here.
2. Write `sqlite.py`: a class taking the file's `Path` and `clock: Callable[[], float] =
   time.time` (Unix time; tests pass `tests.fakes.clock.FakeClock`), holding
   `SqliteThread(path, _SCHEMA, name=...)` whose `_SCHEMA` is `CREATE TABLE IF NOT EXISTS`
   statements; every operation is one `await self._db.run(lambda db: ...)`, in
   `with transaction(db):` when it needs several statements. Name its file in
   `bot.process.data_files.DataFiles`.
3. Write `postgres.py`: a class taking a `PostgresDatabase` and running each operation as one
   statement on `database.pool` (a transaction, `async with pool.acquire() as c, c.
   transaction():`, when it needs several). Use the database's clock (`clock_timestamp()`)
   for anything several machines compare, unless a `clock` is given. Rows that belong to a
   process name `database.owner`; `database.alive(owner)` tells whether that process still
   runs. Only the PostgreSQL branch of the composition root imports this module, so a bot on
   SQLite never loads the driver.
4. Add its tables as a new `Migration` at the end of `migrations.MIGRATIONS`.
5. Build it on both sides of `backend.py`, the one place the backend is chosen: add it to
   `Stores`, make it in `SqliteBackend.stores` (backend/sqlite.py) and in `PostgresBackend.stores`
   (backend/postgres.py, which only a process with DATABASE_URL imports), and add it to
   `closed_by`, which pushes each close on the stack `close_services` unwinds.
6. Test it with one `TestX` class in `tests/storage/test_<concern>.py`, run against both
   backends: a `sqlite_x` and a `postgres_x` fixture, and an `x` fixture picking by the
   `backend` fixture of tests/storage/conftest.py ("sqlite" or "postgres";
   `postgres_database` is a fresh, migrated database per test).
7. List the PostgreSQL module in tests/test_startup_imports.py's `POSTGRES_STORES`.

The names below load their module on first use (`__getattr__`): the PostgreSQL driver is
imported only by a process that opens a database, so start-up without DATABASE_URL, `--help`
and the terminal chat never pay for it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bot.storage.claims import UpdateClaims
    from bot.storage.claims.postgres import PostgresUpdateClaims
    from bot.storage.claims.sqlite import SqliteUpdateClaims
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
    "PostgresUpdateClaims": "claims.postgres",
    "SchemaVersionError": "errors",
    "SqliteUpdateClaims": "claims.sqlite",
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
