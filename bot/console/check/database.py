"""Whether the shared database answers, and whether this bot can use its schema.

Only reads: the schema is created and upgraded by `run` at start, never by a check. The URL is
shown without its password.
"""

from __future__ import annotations

import asyncio

import asyncpg

from bot.console.check.outcome import Outcome, failed, passed, skipped
from bot.settings.model import Settings
from bot.storage import SCHEMA_VERSION, redact_url
from bot.storage.lost import LOST
from bot.storage.postgres import connect_failure
from bot.storage.urls import scrub

SUBJECT = "database"
CONNECT_TIMEOUT_S = 10.0
_NO_CONNECTION: tuple[type[Exception], ...] = (*LOST, TimeoutError, ValueError)
"""What connecting can raise short of a bug; `connect_failure` says what each means."""


async def check_database(settings: Settings, *, offline: bool) -> Outcome:
    """Connect to DATABASE_URL and read its schema version; skipped without one or offline."""
    if settings.database_url is None:
        return skipped(SUBJECT, "DATABASE_URL is empty: the state is kept in DATA_DIR (SQLite)")
    url = settings.database_url.get_secret_value()
    where = redact_url(url)
    if offline:
        return skipped(SUBJECT, f"{where} not tried (--offline)")
    connection = await _connected(url, where)
    if isinstance(connection, Outcome):
        return connection
    try:
        version = await _schema_version(connection)
    except LOST as exc:
        reason = scrub(str(exc), url)
        return failed(SUBJECT, f"{where} answers, but its schema cannot be read: {reason}")
    finally:
        await asyncio.shield(connection.close())
    return _judged(where, version)


async def _connected(url: str, where: str) -> asyncpg.Connection | Outcome:
    """A connection to `url`, or the failed line saying why there is none, in the words `run`
    uses for the same failure."""
    try:
        return await asyncpg.connect(url, timeout=CONNECT_TIMEOUT_S)
    except _NO_CONNECTION as exc:
        failure = connect_failure(url, exc)
        if failure is not None:
            return failed(SUBJECT, str(failure))
        reason = scrub(str(exc), url) or type(exc).__name__
        return failed(SUBJECT, f"{where} cannot be reached: {reason}")


def _judged(where: str, version: int) -> Outcome:
    """The line for a database at schema `version`: newer than the code fails."""
    if version > SCHEMA_VERSION:
        return failed(
            SUBJECT,
            f"{where} holds schema version {version}, newer than this bot's {SCHEMA_VERSION}: "
            "run the release that wrote it",
        )
    if version < SCHEMA_VERSION:
        state = "empty" if version == 0 else f"schema version {version}"
        return passed(SUBJECT, f"{where} answers ({state}; upgraded to {SCHEMA_VERSION} at start)")
    return passed(SUBJECT, f"{where} answers, schema version {version}")


async def _schema_version(connection: asyncpg.Connection) -> int:
    if await connection.fetchval("SELECT to_regclass('schema_version')") is None:
        return 0
    return int(await connection.fetchval("SELECT coalesce(max(version), 0) FROM schema_version"))
