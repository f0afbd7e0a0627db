"""The one place that chooses what the bot's state stands on: PostgreSQL when DATABASE_URL is
set, else the SQLite files in DATA_DIR.

`open_backend` makes the choice once and opens what must work before the first update (the
database, the conversation history and the webhook update claims); the `Backend` it returns
builds every other store on the same side. Each close goes on the `closing` stack the caller
unwinds, the database's first (so it closes last). The PostgreSQL side lives in postgres.py and
is imported only with DATABASE_URL, so a bot on SQLite never loads the driver.

The same shape as a store: this module has the `Backend` protocol and the `Stores` it builds,
`opening.py` the chooser, `sqlite.py` and `postgres.py` the two sides.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from bot.storage.access import AccessStore
from bot.storage.albums import AlbumMemory
from bot.storage.audit import AuditLog
from bot.storage.buttons import Buttons
from bot.storage.claims import UpdateClaims
from bot.storage.confirmations import Confirmations
from bot.storage.experts import ExpertRequests
from bot.storage.feedback import FeedbackStore
from bot.storage.history import History
from bot.storage.notices import NoticeStore
from bot.storage.pending_status import PendingStatusStore
from bot.storage.rate_limits import RateWindow
from bot.storage.scopes import ScopeStore
from bot.storage.source_links import SourceLinks
from bot.storage.unanswered import UnansweredLog
from bot.storage.usage import UsageStore

if TYPE_CHECKING:
    from bot.storage.breakers import SharedBreakers
    from bot.storage.postgres import PostgresDatabase
    from tools.vectors.cache import EmbeddingCache


@dataclass(frozen=True, slots=True)
class Stores:
    """Status messages in flight, access, source button ids, the album memory, actions
    waiting for their confirm button, the audit log, the chats' scopes, (shared only) the
    rate window, None there meaning each process counts in its own memory; the answers'
    feedback."""

    pending_status: PendingStatusStore
    access: AccessStore
    source_links: SourceLinks
    rate_window: RateWindow | None
    albums: AlbumMemory
    confirmations: Confirmations
    audit: AuditLog
    scopes: ScopeStore
    feedback: FeedbackStore
    unanswered: UnansweredLog
    """Questions the documents could not answer, and the digest's schedule."""
    experts: ExpertRequests
    """Questions sent to the experts, and their replies."""
    usage: UsageStore
    """Tokens spent on the model, for budgets and `/usage`."""
    notices: NoticeStore
    """Subscriptions to change notices and the changes waiting for them."""
    buttons: Buttons
    """Which message carries which button data, what every tap is checked against."""


class Backend(Protocol):
    """One side, chosen by `open_backend`: what it opened, and the stores built on it."""

    @property
    def database(self) -> PostgresDatabase | None:
        """The shared PostgreSQL database; None on SQLite."""
        ...

    @property
    def history(self) -> History:
        """The conversation log."""
        ...

    @property
    def claims(self) -> UpdateClaims:
        """Which worker handles a webhook update."""
        ...

    def stores(self, *, clock: Callable[[], float], rate_limit_per_hour: int) -> Stores:
        """The stores on this side, each close on the stack; none touches a disk or the
        database before first use. `clock` gives Unix time where a store keeps its own."""
        ...

    def embedding_cache(self) -> EmbeddingCache | None:
        """Where search by meaning keeps the embeddings it paid for: the shared database, so
        several machines pay once; None for the toolbox's own file in DATA_DIR."""
        ...

    def breakers(self) -> SharedBreakers | None:
        """Where the models' open breakers meet, its close on the stack: the shared database,
        so a model that is down is learnt once; None where each process keeps its own."""
        ...


def closed_by(closing: AsyncExitStack, stores: Stores) -> Stores:
    """`stores`, each one's close pushed on `closing`."""
    for store in (
        stores.pending_status,
        stores.access,
        stores.source_links,
        stores.confirmations,
        stores.audit,
        stores.scopes,
        stores.feedback,
        stores.unanswered,
        stores.experts,
        stores.usage,
        stores.notices,
        stores.buttons,
    ):
        closing.push_async_callback(store.close)
    return stores
