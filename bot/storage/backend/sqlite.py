"""The SQLite side of `bot.storage.backend`: every store in its own file in DATA_DIR."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.process.data_files import DataFiles
from bot.storage.access.sqlite import SqliteAccessStore
from bot.storage.albums.memory import Albums
from bot.storage.audit.sqlite import SqliteAuditLog
from bot.storage.backend import Stores, closed_by
from bot.storage.buttons.sqlite import SqliteButtons
from bot.storage.claims import UpdateClaims
from bot.storage.claims.sqlite import SqliteUpdateClaims
from bot.storage.confirmations.sqlite import SqliteConfirmations
from bot.storage.experts.sqlite import SqliteExpertRequests
from bot.storage.feedback.sqlite import SqliteFeedback
from bot.storage.history import History
from bot.storage.history.sqlite import HistoryStore
from bot.storage.notices.sqlite import SqliteNotices
from bot.storage.pending_status.sqlite import SqlitePendingStatusStore
from bot.storage.scopes.sqlite import SqliteScopeStore
from bot.storage.source_links.sqlite import SqliteSourceLinks
from bot.storage.unanswered.sqlite import SqliteUnanswered
from bot.storage.usage.sqlite import SqliteUsage

if TYPE_CHECKING:
    from bot.storage.breakers import SharedBreakers
    from tools.vectors.cache import EmbeddingCache


async def open_sqlite(files: DataFiles, closing: AsyncExitStack) -> SqliteBackend:
    """The history's and the update claims' files opened now, so a file that cannot be opened
    stops the start (the history's recovery after a crash runs here too)."""
    history = await HistoryStore.open(files.history)
    closing.push_async_callback(history.close)
    claims = await SqliteUpdateClaims.open(files.update_claims)
    closing.push_async_callback(claims.close)
    return SqliteBackend(files, history, claims, closing)


@dataclass(frozen=True, slots=True)
class SqliteBackend:
    """The SQLite files in DATA_DIR, one per store."""

    files: DataFiles
    history: History
    claims: UpdateClaims
    closing: AsyncExitStack
    database: None = None

    def stores(self, *, clock: Callable[[], float], rate_limit_per_hour: int) -> Stores:
        """The stores in their files; one process counts questions in memory, so no rate
        window whatever `rate_limit_per_hour` says."""
        del rate_limit_per_hour
        files = self.files
        return closed_by(
            self.closing,
            Stores(
                SqlitePendingStatusStore(files.pending_status),
                SqliteAccessStore(files.access),
                SqliteSourceLinks(files.source_links, clock=clock),
                None,
                Albums(),
                SqliteConfirmations(files.confirmations, clock=clock),
                SqliteAuditLog(files.audit, clock=clock),
                SqliteScopeStore(files.scopes),
                SqliteFeedback(files.feedback, clock=clock),
                unanswered=SqliteUnanswered(files.unanswered, clock=clock),
                experts=SqliteExpertRequests(files.experts, clock=clock),
                usage=SqliteUsage(files.usage, clock=clock),
                notices=SqliteNotices(files.notices, clock=clock),
                buttons=SqliteButtons(files.buttons, clock=clock),
            ),
        )

    def embedding_cache(self) -> EmbeddingCache | None:
        """None: the toolbox keeps embeddings in its own file in DATA_DIR."""
        return None

    def breakers(self) -> SharedBreakers | None:
        """None: one process keeps its models' breakers in memory."""
        return None
