"""`python -m bot pair`: print a new pairing code for whoever is to become the bot's admin.

It needs only DATA_DIR (or DATABASE_URL, when the bot keeps its shared state in PostgreSQL):
the code goes into the access database there (as a hash), where the running bot reads it at the
next attempt, so it works while the bot runs and without a token or key. Every earlier code
stops working. The code is printed, never logged.
"""

from __future__ import annotations

import asyncio
import sqlite3
import sys
import time

import asyncpg

from bot.process.data_files import DataFiles
from bot.settings.model import Settings
from bot.storage import PostgresDatabase, StorageError, redact_url
from bot.storage.access.codes import LIFETIME_S
from bot.storage.access.postgres import issue_code_in
from bot.storage.access.sqlite import issue_code_now


async def serve(settings: Settings) -> int:
    """Make and print a code; 1 when DATA_DIR (or the database) cannot be written."""
    if settings.database_url is not None:
        url = settings.database_url.get_secret_value()
        try:
            code = await _issue_in_postgres(url)
        except StorageError as exc:
            print(f"cannot write the pairing code: {exc}", file=sys.stderr)  # noqa: T201
            return 1
        except (OSError, asyncpg.PostgresError) as exc:
            print(  # noqa: T201
                f"cannot write the pairing code to {redact_url(url)}: {exc}", file=sys.stderr
            )
            return 1
    else:
        path = DataFiles(settings.data_dir).access
        try:
            code = await asyncio.to_thread(issue_code_now, path)
        except (sqlite3.Error, OSError) as exc:
            print(f"cannot write the pairing code to {path}: {exc}", file=sys.stderr)  # noqa: T201
            return 1
    minutes = int(LIFETIME_S // 60)
    print(  # noqa: T201 - the terminal is the audience
        f"Pairing code: {code}\n"
        f"Send /start {code} to the bot in a private chat in Telegram to become its admin.\n"
        f"The code works once, for {minutes} minutes; earlier codes no longer work. "
        "The bot must be running to read it."
    )
    return 0


async def _issue_in_postgres(url: str) -> str:
    database = await PostgresDatabase.open(url)
    try:
        return await issue_code_in(database, time.time())
    finally:
        await database.close()
