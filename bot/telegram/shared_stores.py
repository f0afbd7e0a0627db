"""The Telegram wing's stores that several workers must share, on the backend the services
chose: PostgreSQL when `services.database` is set, else the SQLite files in DATA_DIR."""

from __future__ import annotations

from dataclasses import dataclass

from bot.access import AccessDatabase, AccessStore, SqliteAccessStore
from bot.access.store_postgres import PostgresAccessStore
from bot.config import Settings
from bot.confirmations import Confirmations, SqliteConfirmations
from bot.confirmations_postgres import PostgresConfirmations
from bot.rate_limits import PostgresRateWindow, RateWindow
from bot.services import Services
from bot.source_links import SourceLinks, SqliteSourceLinks
from bot.source_links_postgres import PostgresSourceLinks
from bot.telegram.albums import AlbumMemory, Albums, PostgresAlbums
from bot.telegram.output.pending_status import (
    PendingStatusStore,
    PostgresPendingStatusStore,
    SqlitePendingStatusStore,
)
from bot.telegram.tuning import Tuning


@dataclass(frozen=True, slots=True)
class SharedStores:
    """Status messages in flight, access, source button ids, the album memory, actions
    waiting for their confirm button and (shared only) the rate window; None there means each
    process counts in its own memory."""

    pending_status: PendingStatusStore
    access: AccessStore
    source_links: SourceLinks
    rate_window: RateWindow | None
    albums: AlbumMemory
    confirmations: Confirmations


def shared_stores(settings: Settings, services: Services, tuning: Tuning) -> SharedStores:
    """The stores on the services' backend; none of them touches a disk before first use."""
    database = services.database
    if database is None:
        files = services.files
        return SharedStores(
            SqlitePendingStatusStore(files.pending_status),
            SqliteAccessStore(AccessDatabase(files.access)),
            SqliteSourceLinks(files.source_links, clock=tuning.wall_clock),
            None,
            Albums(),
            SqliteConfirmations(files.confirmations, clock=tuning.wall_clock),
        )
    per_hour = settings.rate_limit_per_hour
    return SharedStores(
        PostgresPendingStatusStore(database),
        PostgresAccessStore(database),
        PostgresSourceLinks(database),
        PostgresRateWindow(database, per_hour) if per_hour > 0 else None,
        PostgresAlbums(database),
        PostgresConfirmations(database),
    )
