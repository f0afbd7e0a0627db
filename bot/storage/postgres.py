"""The PostgreSQL side of the shared state: a pool for queries, and this process's session.

`PostgresDatabase.open` connects, upgrades the schema (`bot.storage.migrations`), takes this
process's identity lock and builds the pool. Stores are handed the database and run their
queries on `pool`; work that must outlive a query (a conversation held for a whole question)
uses `session` or a `connect()`ion of its own. Every message says where the database is without
its password, and tells a server that cannot be reached (`DatabaseUnavailable`, which may pass)
from one that turns the bot away (a wrong password, a database that does not exist: the admin
must fix DATABASE_URL).
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
from collections.abc import Sequence

import asyncpg

from bot.storage.errors import DatabaseUnavailable, StorageError
from bot.storage.keys import advisory_key
from bot.storage.migrations import MIGRATIONS, Migration, migrate
from bot.storage.session import LockSession
from bot.storage.urls import redact_url, scrub

log = logging.getLogger(__name__)

POOL_SIZE = 10
"""Connections one process keeps for queries at most: a question needs one for a few
milliseconds at a time, so ten serve hundreds of questions at once, and four workers with
their sessions stay well inside PostgreSQL's default of 100 connections."""

_WORKER = "worker"
_SESSION_SETTINGS = {"synchronous_commit": "off"}
"""A commit returns before its WAL record is flushed: the durability SQLite's WAL mode with
synchronous=NORMAL gives the history in DATA_DIR. A crash of the worker loses nothing; a crash
of the database server may lose the last fraction of a second of commits, never consistency.
Each question commits several times, and waiting for a disk flush each time would cost more
than the rest of its storage work together (bench/bench_storage.py measures it)."""
_PASSING = (
    OSError,  # refused, timed out, unknown host
    asyncpg.PostgresConnectionError,
    asyncpg.InsufficientResourcesError,  # too many connections
    asyncpg.OperatorInterventionError,  # starting up or shutting down
)
"""What a server that cannot take the bot right now raises; anything else at connect is an
answer that no retry changes (a wrong password, no such database or role, no pg_hba entry)."""


def new_owner() -> str:
    """A name for this process, unique among all workers on all machines: host, pid, random."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"


class PostgresDatabase:
    """An open database: the query pool, this process's lock session, and its owner name."""

    def __init__(self, url: str, pool: asyncpg.Pool, session: LockSession, *, owner: str) -> None:
        self._url = url
        self.pool = pool
        self.session = session
        self.owner = owner

    @classmethod
    async def open(
        cls,
        url: str,
        *,
        migrations: Sequence[Migration] = MIGRATIONS,
        pool_size: int = POOL_SIZE,
        owner: str | None = None,
    ) -> PostgresDatabase:
        """Connect to `url`, bring its schema up to date, and claim this process's identity.

        Raises `StorageError` (or `SchemaVersionError`) with the reason, never the password.
        """
        owner = owner or new_owner()
        connection = await _connect(url)
        try:
            await migrate(connection, migrations)
            session = await LockSession.open(
                connection,
                reconnect=lambda: _connect(url),
                identity=advisory_key(_WORKER, owner),
            )
            pool = await asyncpg.create_pool(
                url, min_size=1, max_size=pool_size, server_settings=_SESSION_SETTINGS
            )
        except _PASSING as exc:
            await connection.close()
            raise _unavailable(url, exc) from exc
        except asyncpg.PostgresError as exc:
            await connection.close()
            msg = f"the database at {redact_url(url)} cannot be used: {scrub(str(exc), url)}"
            raise StorageError(msg) from exc
        except BaseException:
            await connection.close()
            raise
        log.info("shared state in PostgreSQL at %s", redact_url(url))
        return cls(url, pool, session, owner=owner)

    async def connect(self) -> asyncpg.Connection:
        """A connection of its own, outside the pool, for a wait of unknown length."""
        return await _connect(self._url)

    async def alive(self, owner: str) -> bool:
        """Whether the process named `owner` is still connected (its identity lock is held)."""
        if owner == self.owner:
            return True
        key = advisory_key(_WORKER, owner)
        async with self.pool.acquire() as connection:
            free = await connection.fetchval("SELECT pg_try_advisory_lock($1)", key)
            if free:
                await connection.execute("SELECT pg_advisory_unlock($1)", key)
        return not free

    async def close(self) -> None:
        """Close the pool, then the session (releasing this process's locks)."""
        try:
            await self.pool.close()
        finally:
            await self.session.close()


async def _connect(url: str) -> asyncpg.Connection:
    try:
        return await asyncpg.connect(url)
    except Exception as exc:
        failure = connect_failure(url, exc)
        if failure is None:
            raise
        raise failure from exc


def connect_failure(url: str, exc: Exception) -> StorageError | None:
    """What a failed connection to `url` means for the admin, in the words `run`, `pair` and
    `check` all use: `DatabaseUnavailable` when a retry may find the server, `StorageError`
    when the URL or the login must be fixed; None for anything else (a bug, not an answer)."""
    if isinstance(exc, _PASSING):
        return _unavailable(url, exc)
    if isinstance(exc, asyncpg.PostgresError):
        reason = scrub(str(exc), url)
        return StorageError(f"the database at {redact_url(url)} does not let the bot in: {reason}")
    if isinstance(exc, ValueError):  # asyncpg's reading of the URL
        reason = scrub(str(exc), url)
        return StorageError(f"the database URL {redact_url(url)} cannot be used: {reason}")
    return None


def _unavailable(url: str, exc: Exception) -> DatabaseUnavailable:
    reason = scrub(str(exc), url) or type(exc).__name__  # a timeout says nothing of its own
    return DatabaseUnavailable(f"the database at {redact_url(url)} cannot be reached: {reason}")
