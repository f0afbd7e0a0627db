"""The chooser: SQLite or PostgreSQL, decided here and nowhere else."""

from __future__ import annotations

from contextlib import AsyncExitStack

from bot.process.data_files import DataFiles
from bot.storage.backend import Backend


async def open_backend(
    database_url: str | None, files: DataFiles, closing: AsyncExitStack
) -> Backend:
    """PostgreSQL at `database_url` (its schema upgraded), or SQLite in `files` when it is None;
    what is opened is closed by `closing`."""
    if database_url is not None:
        # the PostgreSQL side imports its driver: only a process with DATABASE_URL loads it
        from bot.storage.backend.postgres import open_postgres  # noqa: PLC0415

        return await open_postgres(database_url, closing)
    from bot.storage.backend.sqlite import open_sqlite  # noqa: PLC0415

    return await open_sqlite(files, closing)
