"""What `backup` and `restore` say when DATABASE_URL is set: the shared state lives in
PostgreSQL, which these commands never touch; the database's own tools copy it."""

from __future__ import annotations

from bot.settings.model import Settings
from bot.storage import redact_url


def postgres_note(settings: Settings, *, restoring: bool) -> str | None:
    """The lines about PostgreSQL, or None without DATABASE_URL (then DATA_DIR holds it all)."""
    if settings.database_url is None:
        return None
    where = redact_url(settings.database_url.get_secret_value())
    held = (
        "the conversation history, update claims, grants and pairing codes, access requests, "
        "source buttons, confirmations, status messages in flight, rate limits, scopes and the "
        "audit log"
    )
    if restoring:
        return (
            f"DATABASE_URL is set: {held} live in PostgreSQL at {where}, not in this backup. "
            "Restore them with pg_restore from a dump taken with pg_dump, e.g.\n"
            '  pg_restore --clean --if-exists -d "$DATABASE_URL" docs-bot.dump'
        )
    return (
        f"Not backed up here: {held}, kept in PostgreSQL at {where} (DATABASE_URL). "
        "Back them up with pg_dump, e.g.\n"
        '  pg_dump -Fc -f docs-bot.dump "$DATABASE_URL"'
    )
