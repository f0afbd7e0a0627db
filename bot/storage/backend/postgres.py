"""The PostgreSQL side of `bot.storage.backend`: every store in the shared database. Only a
process with DATABASE_URL imports this module, and with it the driver."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass

from bot.storage.access.postgres import PostgresAccessStore
from bot.storage.albums.postgres import PostgresAlbums
from bot.storage.audit.postgres import PostgresAuditLog
from bot.storage.backend import Stores, closed_by
from bot.storage.breakers import SharedBreakers
from bot.storage.breakers.postgres import PostgresBreakers
from bot.storage.buttons.postgres import PostgresButtons
from bot.storage.claims import UpdateClaims
from bot.storage.claims.postgres import PostgresUpdateClaims
from bot.storage.confirmations.postgres import PostgresConfirmations
from bot.storage.embeddings.postgres import PostgresEmbeddingCache
from bot.storage.experts.postgres import PostgresExpertRequests
from bot.storage.feedback.postgres import PostgresFeedback
from bot.storage.history import History
from bot.storage.history.postgres import PostgresHistory
from bot.storage.notices.postgres import PostgresNotices
from bot.storage.pending_status.postgres import PostgresPendingStatusStore
from bot.storage.postgres import PostgresDatabase
from bot.storage.rate_limits.postgres import PostgresRateWindow
from bot.storage.scopes.postgres import PostgresScopeStore
from bot.storage.source_links.postgres import PostgresSourceLinks
from bot.storage.unanswered.postgres import PostgresUnanswered
from bot.storage.usage.postgres import PostgresUsage


async def open_postgres(database_url: str, closing: AsyncExitStack) -> PostgresBackend:
    """The database at `database_url`, its schema upgraded, and the history (its dead workers'
    open turns marked) and the update claims in it."""
    database = await PostgresDatabase.open(database_url)
    closing.push_async_callback(database.close)
    history = await PostgresHistory.open(database)
    closing.push_async_callback(history.close)
    claims = PostgresUpdateClaims(database)
    closing.push_async_callback(claims.close)
    return PostgresBackend(database, history, claims, closing)


@dataclass(frozen=True, slots=True)
class PostgresBackend:
    """The shared PostgreSQL database."""

    database: PostgresDatabase
    history: History
    claims: UpdateClaims
    closing: AsyncExitStack

    def stores(self, *, clock: Callable[[], float], rate_limit_per_hour: int) -> Stores:
        """The stores in the database; those several machines compare use its clock, the
        audit log, the feedback and the expert requests (swept by the same clock) `clock`; a
        rate window only when `rate_limit_per_hour` is above zero."""
        database = self.database
        per_hour = rate_limit_per_hour
        return closed_by(
            self.closing,
            Stores(
                PostgresPendingStatusStore(database),
                PostgresAccessStore(database),
                PostgresSourceLinks(database),
                PostgresRateWindow(database, per_hour) if per_hour > 0 else None,
                PostgresAlbums(database),
                PostgresConfirmations(database),
                PostgresAuditLog(database, clock=clock),
                PostgresScopeStore(database),
                PostgresFeedback(database, clock=clock),
                unanswered=PostgresUnanswered(database, clock=clock),
                experts=PostgresExpertRequests(database, clock=clock),
                usage=PostgresUsage(database, clock=clock),
                notices=PostgresNotices(database, clock=clock),
                buttons=PostgresButtons(database),
            ),
        )

    def embedding_cache(self) -> PostgresEmbeddingCache:
        """Embeddings in the shared database, served on this event loop."""
        return PostgresEmbeddingCache(self.database, asyncio.get_running_loop())

    def breakers(self) -> SharedBreakers:
        """The open breakers in the shared database; it stops listening as the stack unwinds."""
        shared = PostgresBreakers(self.database)
        self.closing.push_async_callback(shared.close)
        return shared
