"""What goes wrong with the shared database, as messages a person can act on.

Free of the PostgreSQL driver, so the entrance can catch these without importing it; what a
lost connection raises is `bot.storage.lost.LOST`.
"""

from __future__ import annotations


class StorageError(Exception):
    """The database cannot be used; the text says why, without the password."""


class DatabaseUnavailable(StorageError):
    """The database server did not answer, or not yet (down, starting, out of connections): it
    may pass by itself, so a restart later is worth it, unlike a refused login."""


class SchemaVersionError(StorageError):
    """The database's schema is newer than this code, or an upgrade step failed."""
