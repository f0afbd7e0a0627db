"""The Telegram wing's stores that several workers must share, on the backend the services
chose: PostgreSQL when `services.database` is set, else the SQLite files in DATA_DIR. Each
store's close goes on `services.closing`, so `close_services` closes them, before the database
they stand on.

The PostgreSQL classes (and their driver) are imported only when a database is open, so a bot
on SQLite starts without them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.config import Settings
from bot.data_files import DataFiles
from bot.services import Services
from bot.storage.access import AccessStore
from bot.storage.access.sqlite import SqliteAccessStore
from bot.storage.albums import AlbumMemory
from bot.storage.albums.memory import Albums
from bot.storage.audit import AuditLog
from bot.storage.audit.sqlite import SqliteAuditLog
from bot.storage.confirmations import Confirmations
from bot.storage.confirmations.sqlite import SqliteConfirmations
from bot.storage.pending_status import PendingStatusStore
from bot.storage.pending_status.sqlite import SqlitePendingStatusStore
from bot.storage.rate_limits import RateWindow
from bot.storage.scopes import ScopeStore
from bot.storage.scopes.sqlite import SqliteScopeStore
from bot.storage.source_links import SourceLinks
from bot.storage.source_links.sqlite import SqliteSourceLinks
from bot.telegram.tuning import Tuning

if TYPE_CHECKING:
    from bot.storage.postgres import PostgresDatabase


@dataclass(frozen=True, slots=True)
class SharedStores:
    """Status messages in flight, access, source button ids, the album memory, actions
    waiting for their confirm button, the audit log, the chats' scopes and (shared only) the
    rate window; None there means each process counts in its own memory."""

    pending_status: PendingStatusStore
    access: AccessStore
    source_links: SourceLinks
    rate_window: RateWindow | None
    albums: AlbumMemory
    confirmations: Confirmations
    audit: AuditLog
    scopes: ScopeStore


def shared_stores(settings: Settings, services: Services, tuning: Tuning) -> SharedStores:
    """The stores on the services' backend, closed with the services; none of them touches a
    disk before first use."""
    if services.database is not None:
        stores = _postgres_stores(settings, services.database, tuning)
    else:
        stores = _sqlite_stores(services.files, tuning)
    for store in (
        stores.pending_status,
        stores.access,
        stores.source_links,
        stores.confirmations,
        stores.audit,
        stores.scopes,
    ):
        services.closing.push_async_callback(store.close)
    return stores


def _sqlite_stores(files: DataFiles, tuning: Tuning) -> SharedStores:
    """The stores in their SQLite files in DATA_DIR."""
    return SharedStores(
        SqlitePendingStatusStore(files.pending_status),
        SqliteAccessStore(files.access),
        SqliteSourceLinks(files.source_links, clock=tuning.wall_clock),
        None,
        Albums(),
        SqliteConfirmations(files.confirmations, clock=tuning.wall_clock),
        SqliteAuditLog(files.audit, clock=tuning.wall_clock),
        SqliteScopeStore(files.scopes),
    )


def _postgres_stores(
    settings: Settings, database: PostgresDatabase, tuning: Tuning
) -> SharedStores:
    """The same stores in the shared database."""
    # the PostgreSQL stores import its driver: only a process with DATABASE_URL loads them
    from bot.storage.access.postgres import PostgresAccessStore  # noqa: PLC0415
    from bot.storage.albums.postgres import PostgresAlbums  # noqa: PLC0415
    from bot.storage.audit.postgres import PostgresAuditLog  # noqa: PLC0415
    from bot.storage.confirmations.postgres import PostgresConfirmations  # noqa: PLC0415
    from bot.storage.pending_status.postgres import (  # noqa: PLC0415
        PostgresPendingStatusStore,
    )
    from bot.storage.rate_limits.postgres import PostgresRateWindow  # noqa: PLC0415  # noqa: PLC0415
    from bot.storage.scopes.postgres import PostgresScopeStore  # noqa: PLC0415
    from bot.storage.source_links.postgres import PostgresSourceLinks  # noqa: PLC0415

    per_hour = settings.rate_limit_per_hour
    return SharedStores(
        PostgresPendingStatusStore(database),
        PostgresAccessStore(database),
        PostgresSourceLinks(database),
        PostgresRateWindow(database, per_hour) if per_hour > 0 else None,
        PostgresAlbums(database),
        PostgresConfirmations(database),
        PostgresAuditLog(database, clock=tuning.wall_clock),
        PostgresScopeStore(database),
    )
