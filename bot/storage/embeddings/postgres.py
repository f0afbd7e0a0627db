"""Embeddings in PostgreSQL: (model, digest) → the packed vector, shared by every machine.

A second machine building its own vector index (each machine keeps one, like the search index)
finds the vectors the first one paid for and makes no embeddings call for them. The builder
calls from its own thread; each call is run on the event loop that owns the asyncpg pool and
waited for, with a bound, so a database that stops answering fails the batch (the builder
retries it later) instead of hanging the builder.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from bot.storage.errors import StorageError

if TYPE_CHECKING:
    from bot.storage.postgres import PostgresDatabase

_T = TypeVar("_T")

WAIT_S = 30.0
"""How long the builder's thread waits for one statement."""


class PostgresEmbeddingCache:
    """The embeddings cache in the shared database (blocking calls, from a worker thread)."""

    def __init__(
        self,
        database: PostgresDatabase,
        loop: asyncio.AbstractEventLoop,
        *,
        wait_s: float = WAIT_S,
    ) -> None:
        self._pool = database.pool
        self._loop = loop
        self._wait_s = wait_s

    def get_many(self, model: str, digests: Sequence[str]) -> dict[str, bytes]:
        """The vectors held for these digests under `model` (missing ones left out)."""
        if not digests:
            return {}
        rows = self._wait(
            self._pool.fetch(
                "SELECT digest, vector FROM embeddings WHERE model = $1 AND digest = ANY($2)",
                model,
                list(digests),
            )
        )
        return {str(row["digest"]): bytes(row["vector"]) for row in rows}

    def put_many(self, model: str, items: Mapping[str, bytes]) -> None:
        """Keep these vectors; one another machine wrote first is left as it is."""
        if not items:
            return
        self._wait(
            self._pool.executemany(
                "INSERT INTO embeddings (model, digest, vector) VALUES ($1, $2, $3) "
                "ON CONFLICT (model, digest) DO NOTHING",
                [(model, digest, vector) for digest, vector in items.items()],
            )
        )

    def _wait(self, work: Coroutine[Any, Any, _T]) -> _T:
        if self._loop.is_closed():
            work.close()
            msg = "the embeddings store is closed"
            raise StorageError(msg)
        future = asyncio.run_coroutine_threadsafe(work, self._loop)
        try:
            return future.result(self._wait_s)
        except TimeoutError as exc:
            future.cancel()
            msg = f"the database did not answer within {self._wait_s:g} s"
            raise StorageError(msg) from exc
