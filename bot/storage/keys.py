"""The 64-bit numbers PostgreSQL advisory locks are taken on, derived from text, and a
transaction that holds some of them.

The numbers must be the same in every process and on every machine, so they come from a hash
of the text (BLAKE2b), never from Python's `hash()`, which changes from process to process.
A namespace keeps the kinds of key apart: a conversation key never meets a worker's id.
"""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import asyncpg
    from asyncpg.pool import PoolConnectionProxy

MIGRATION_LOCK = 0x646F63735F6D6967
"""Held while the schema is checked and upgraded, so workers starting together take turns."""


def advisory_key(namespace: str, text: str) -> int:
    """A signed 64-bit lock number for `text` in `namespace`, stable across processes."""
    digest = hashlib.blake2b(f"{namespace}\0{text}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


@asynccontextmanager
async def locked_transaction(
    pool: asyncpg.Pool, *keys: int
) -> AsyncIterator[PoolConnectionProxy[asyncpg.Record]]:
    """A pooled connection in a transaction holding the advisory locks `keys` until it ends.

    The locks are taken in ascending order, so two transactions that want some of the same
    keys wait for each other rather than deadlock.
    """
    async with pool.acquire() as connection, connection.transaction():
        for key in sorted(set(keys)):
            await connection.execute("SELECT pg_advisory_xact_lock($1)", key)
        yield connection
