"""What goes wrong with the shared database, as messages a person can act on."""

from __future__ import annotations

import asyncpg

LOST: tuple[type[Exception], ...] = (
    OSError,
    asyncpg.PostgresError,
    asyncpg.InterfaceError,
    asyncpg.InternalClientError,
)
"""What a query raises when its connection or server is gone (or the server refused it)."""


class StorageError(Exception):
    """The database cannot be used; the text says why, without the password."""


class SchemaVersionError(StorageError):
    """The database's schema is newer than this code, or an upgrade step failed."""
