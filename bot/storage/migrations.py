"""The PostgreSQL schema, built and upgraded by the bot at start, one numbered step at a time.

A table `schema_version` holds one row per step applied. Each step runs in its own transaction
together with its row, so a step that fails leaves the schema as the step before left it, which
the release that wrote it still reads. Workers starting together take turns behind an advisory
lock, so each step runs once. A schema newer than this code is refused before anything is
touched, like a newer DATA_DIR.

A new store adds its tables as a new `Migration` at the end of `MIGRATIONS`; steps already
released are never edited.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

import asyncpg

from bot.storage.errors import SchemaVersionError
from bot.storage.keys import MIGRATION_LOCK

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Migration:
    """The step to `version`: what it does, in a few words, and its SQL statements."""

    version: int
    summary: str
    statements: tuple[str, ...]


_HISTORY = (
    """
    CREATE TABLE conversations (
        id BIGSERIAL PRIMARY KEY,
        key TEXT NOT NULL,
        started_at DOUBLE PRECISION NOT NULL
    )
    """,
    "CREATE INDEX conversations_by_key ON conversations (key, id)",
    """
    CREATE TABLE turns (
        id BIGSERIAL PRIMARY KEY,
        conversation_id BIGINT NOT NULL REFERENCES conversations (id),
        state TEXT NOT NULL CHECK (state IN ('open', 'done', 'failed', 'interrupted')),
        owner TEXT NOT NULL,
        started_at DOUBLE PRECISION NOT NULL,
        ended_at DOUBLE PRECISION,
        usage TEXT
    )
    """,
    "CREATE INDEX turns_by_conversation ON turns (conversation_id, state, id)",
    "CREATE INDEX turns_open ON turns (owner) WHERE state = 'open'",
    """
    CREATE TABLE messages (
        id BIGSERIAL PRIMARY KEY,
        turn_id BIGINT NOT NULL REFERENCES turns (id),
        body TEXT NOT NULL,
        created_at DOUBLE PRECISION NOT NULL
    )
    """,
    "CREATE INDEX messages_by_turn ON messages (turn_id, id)",
)

_CLAIMS = (
    """
    CREATE TABLE update_claims (
        update_id BIGINT PRIMARY KEY,
        owner TEXT NOT NULL,
        expires_at TIMESTAMPTZ NOT NULL,
        finished_at TIMESTAMPTZ
    )
    """,
    "CREATE INDEX update_claims_finished ON update_claims (finished_at)",
)

_SCOPES = (
    """
    CREATE TABLE chat_scopes (
        chat_id BIGINT PRIMARY KEY,
        folders TEXT NOT NULL,
        set_by BIGINT NOT NULL,
        set_by_name TEXT NOT NULL DEFAULT '',
        set_at DOUBLE PRECISION NOT NULL
    )
    """,
    """
    CREATE TABLE conversation_scopes (
        conversation TEXT PRIMARY KEY,
        folders TEXT NOT NULL
    )
    """,
)

_ACCESS = (
    """
    CREATE TABLE access_grants (
        user_id BIGINT PRIMARY KEY,
        role TEXT NOT NULL CHECK (role IN ('admin', 'user')),
        name TEXT NOT NULL DEFAULT '',
        username TEXT,
        granted_by BIGINT,
        granted_by_name TEXT NOT NULL DEFAULT '',
        granted_at DOUBLE PRECISION NOT NULL,
        via TEXT NOT NULL CHECK (via IN ('pairing', 'command', 'request'))
    )
    """,
    """
    CREATE TABLE access_pairing_codes (
        code_hash TEXT PRIMARY KEY,
        expires_at DOUBLE PRECISION NOT NULL
    )
    """,
    """
    CREATE TABLE access_pairing_failures (
        user_id BIGINT PRIMARY KEY,
        failures INTEGER NOT NULL,
        first_at DOUBLE PRECISION NOT NULL,
        locked_until DOUBLE PRECISION NOT NULL DEFAULT 0
    )
    """,
    """
    CREATE TABLE access_requests (
        user_id BIGINT PRIMARY KEY,
        name TEXT NOT NULL DEFAULT '',
        username TEXT,
        lang TEXT NOT NULL,
        requested_at DOUBLE PRECISION NOT NULL,
        decision TEXT CHECK (decision IN ('allowed', 'ignored')),
        decided_by_name TEXT NOT NULL DEFAULT ''
    )
    """,
    """
    CREATE TABLE access_request_messages (
        user_id BIGINT NOT NULL,
        chat_id BIGINT NOT NULL,
        message_id BIGINT NOT NULL,
        lang TEXT NOT NULL,
        PRIMARY KEY (chat_id, message_id)
    )
    """,
    "CREATE INDEX access_request_messages_by_user ON access_request_messages (user_id)",
    """
    CREATE TABLE access_languages (
        user_id BIGINT PRIMARY KEY,
        lang TEXT NOT NULL
    )
    """,
)

_SOURCE_LINKS = (
    """
    CREATE TABLE source_links (
        id TEXT PRIMARY KEY,
        path TEXT NOT NULL,
        chat_id BIGINT NOT NULL,
        created_at DOUBLE PRECISION NOT NULL
    )
    """,
    "CREATE INDEX source_links_created ON source_links (created_at)",
    "CREATE INDEX source_links_by_chat ON source_links (chat_id)",
)

_PENDING_STATUS = (
    """
    CREATE TABLE pending_status (
        chat_id BIGINT NOT NULL,
        message_id BIGINT NOT NULL,
        lang TEXT NOT NULL,
        thread_id BIGINT,
        owner TEXT NOT NULL,
        added BIGSERIAL,
        PRIMARY KEY (chat_id, message_id)
    )
    """,
    "CREATE INDEX pending_status_by_owner ON pending_status (owner)",
)

_RATE_LIMITS = (
    """
    CREATE TABLE rate_limits (
        key BIGINT PRIMARY KEY,
        hits DOUBLE PRECISION[] NOT NULL,
        allowed BOOLEAN NOT NULL
    )
    """,
)

_AUDIT = (
    """
    CREATE TABLE audit (
        id BIGSERIAL PRIMARY KEY,
        at DOUBLE PRECISION NOT NULL,
        actor_id BIGINT,
        actor_name TEXT NOT NULL DEFAULT '',
        action TEXT NOT NULL,
        subject TEXT NOT NULL DEFAULT '',
        detail TEXT NOT NULL DEFAULT ''
    )
    """,
)

_ALBUMS = (
    """
    CREATE TABLE album_memory (
        group_id TEXT PRIMARY KEY,
        value TEXT NOT NULL,
        seen_at DOUBLE PRECISION NOT NULL
    )
    """,
    "CREATE INDEX album_memory_seen ON album_memory (seen_at)",
)

_CONFIRMATIONS = (
    """
    CREATE TABLE confirmations (
        id TEXT PRIMARY KEY,
        user_id BIGINT NOT NULL,
        chat_id BIGINT NOT NULL,
        action TEXT NOT NULL,
        args TEXT NOT NULL,
        created_at DOUBLE PRECISION NOT NULL
    )
    """,
    "CREATE INDEX confirmations_created ON confirmations (created_at)",
    "CREATE INDEX confirmations_by_user ON confirmations (user_id)",
)

_PAGE_LINKS = (
    """
    CREATE TABLE page_links (
        id TEXT PRIMARY KEY,
        path TEXT NOT NULL,
        page INTEGER NOT NULL,
        chat_id BIGINT NOT NULL,
        created_at DOUBLE PRECISION NOT NULL
    )
    """,
    "CREATE INDEX page_links_created ON page_links (created_at)",
    "CREATE INDEX page_links_by_chat ON page_links (chat_id)",
)

_EMBEDDINGS = (
    """
    CREATE TABLE embeddings (
        model TEXT NOT NULL,
        digest TEXT NOT NULL,
        vector BYTEA NOT NULL,
        PRIMARY KEY (model, digest)
    )
    """,
)

_FEEDBACK = (
    """
    CREATE TABLE feedback (
        id TEXT PRIMARY KEY,
        chat_id BIGINT NOT NULL,
        user_id BIGINT NOT NULL,
        conversation TEXT NOT NULL,
        question TEXT NOT NULL,
        answer TEXT NOT NULL,
        files TEXT NOT NULL,
        model TEXT NOT NULL,
        prompt_tokens BIGINT NOT NULL,
        completion_tokens BIGINT NOT NULL,
        seconds DOUBLE PRECISION NOT NULL,
        created_at DOUBLE PRECISION NOT NULL,
        vote TEXT CHECK (vote IN ('up', 'down')),
        voted_at DOUBLE PRECISION,
        reason TEXT,
        comment TEXT NOT NULL DEFAULT '',
        prompt_message_id BIGINT
    )
    """,
    "CREATE INDEX feedback_by_user ON feedback (user_id)",
    "CREATE INDEX feedback_by_created ON feedback (created_at)",
    "CREATE INDEX feedback_by_vote ON feedback (vote, voted_at)",
    "CREATE INDEX feedback_by_prompt ON feedback (chat_id, prompt_message_id)",
)

_UNANSWERED = (
    """
    CREATE TABLE unanswered (
        id BIGSERIAL PRIMARY KEY,
        question TEXT NOT NULL,
        chat_id BIGINT NOT NULL,
        user_id BIGINT,
        conversation TEXT NOT NULL,
        language TEXT NOT NULL,
        reason TEXT NOT NULL,
        asked_at DOUBLE PRECISION NOT NULL
    )
    """,
    "CREATE INDEX unanswered_by_time ON unanswered (asked_at)",
    "CREATE INDEX unanswered_by_user ON unanswered (user_id)",
    """
    CREATE TABLE gaps_digest (
        name TEXT PRIMARY KEY,
        last_due DOUBLE PRECISION NOT NULL
    )
    """,
)
_TOPIC_SCOPES = (
    """
    CREATE TABLE topic_scopes (
        chat_id BIGINT NOT NULL,
        thread_id BIGINT NOT NULL,
        folders TEXT NOT NULL,
        set_by BIGINT NOT NULL,
        set_by_name TEXT NOT NULL DEFAULT '',
        set_at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (chat_id, thread_id)
    )
    """,
)

_NOTICES = (
    """
    CREATE TABLE notice_subscriptions (
        chat_id BIGINT NOT NULL,
        thread_id BIGINT NOT NULL,
        folder TEXT NOT NULL,
        user_id BIGINT,
        language TEXT NOT NULL,
        sent_through BIGINT NOT NULL,
        PRIMARY KEY (chat_id, thread_id, folder)
    )
    """,
    "CREATE INDEX notice_subscriptions_by_user ON notice_subscriptions (user_id)",
    """
    CREATE TABLE notice_changes (
        id BIGSERIAL PRIMARY KEY,
        path TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('added', 'changed', 'removed')),
        size BIGINT NOT NULL,
        mtime_ns BIGINT NOT NULL,
        noticed_at DOUBLE PRECISION NOT NULL
    )
    """,
    "CREATE INDEX notice_changes_by_path ON notice_changes (path, id)",
    "CREATE INDEX notice_changes_by_time ON notice_changes (noticed_at)",
)

_NOTICE_FILES = (
    """
    CREATE TABLE notice_files (
        path TEXT PRIMARY KEY,
        size BIGINT NOT NULL,
        mtime_ns BIGINT NOT NULL
    )
    """,
    """
    CREATE TABLE notice_files_remembered (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        remembered_at DOUBLE PRECISION NOT NULL
    )
    """,
)

_BUTTONS = (
    """
    CREATE TABLE buttons (
        chat_id BIGINT NOT NULL,
        message_id BIGINT NOT NULL,
        data TEXT NOT NULL,
        created_at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (chat_id, message_id, data)
    )
    """,
    "CREATE INDEX buttons_created ON buttons (created_at)",
)

_EXPERTS = (
    """
    CREATE TABLE expert_requests (
        id TEXT PRIMARY KEY,
        chat_id BIGINT NOT NULL,
        user_id BIGINT NOT NULL,
        question TEXT NOT NULL,
        language TEXT NOT NULL,
        thread_id BIGINT,
        reply_to BIGINT,
        state TEXT NOT NULL,
        created_at DOUBLE PRECISION NOT NULL,
        asker_name TEXT,
        experts_chat_id BIGINT,
        experts_message_id BIGINT
    )
    """,
    "CREATE INDEX expert_requests_by_message "
    "ON expert_requests (experts_chat_id, experts_message_id)",
    "CREATE INDEX expert_requests_by_user ON expert_requests (user_id)",
    "CREATE INDEX expert_requests_by_created ON expert_requests (created_at)",
    """
    CREATE TABLE expert_replies (
        request_id TEXT NOT NULL REFERENCES expert_requests (id) ON DELETE CASCADE,
        message_id BIGINT NOT NULL,
        expert_id BIGINT NOT NULL,
        expert_name TEXT NOT NULL,
        text TEXT NOT NULL,
        replied_at DOUBLE PRECISION NOT NULL,
        saved_as TEXT,
        PRIMARY KEY (request_id, message_id)
    )
    """,
    "CREATE INDEX expert_replies_by_expert ON expert_replies (expert_id)",
)


_USAGE = (
    """
    CREATE TABLE usage (
        id BIGSERIAL PRIMARY KEY,
        question TEXT UNIQUE,
        user_id BIGINT,
        chat_id BIGINT,
        model TEXT NOT NULL,
        kind TEXT NOT NULL,
        prompt_tokens BIGINT NOT NULL,
        cached_tokens BIGINT NOT NULL,
        completion_tokens BIGINT NOT NULL,
        at DOUBLE PRECISION NOT NULL,
        done BOOLEAN NOT NULL
    )
    """,
    "CREATE INDEX usage_by_user ON usage (user_id, at)",
    "CREATE INDEX usage_by_chat ON usage (chat_id, at)",
    "CREATE INDEX usage_by_time ON usage (at)",
    """
    CREATE TABLE usage_warnings (
        subject TEXT NOT NULL,
        period TEXT NOT NULL,
        at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (subject, period)
    )
    """,
)

_SCOPED_REPORTS = (
    "ALTER TABLE notice_subscriptions ADD COLUMN subscribed_by BIGINT",
    "ALTER TABLE unanswered ADD COLUMN files TEXT NOT NULL DEFAULT '[]'",
    "ALTER TABLE usage ADD COLUMN thread_id BIGINT",
    "ALTER TABLE usage ADD COLUMN estimated BOOLEAN NOT NULL DEFAULT false",
)

_BREAKERS = (
    """
    CREATE TABLE model_breakers (
        model TEXT PRIMARY KEY,
        open_until DOUBLE PRECISION NOT NULL,
        reason TEXT NOT NULL DEFAULT ''
    )
    """,
)

_IMAGE_TOKENS = ("ALTER TABLE usage ADD COLUMN image_tokens BIGINT NOT NULL DEFAULT 0",)

MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "conversation history and webhook update claims", (*_HISTORY, *_CLAIMS)),
    Migration(2, "chats' scopes set with /scope, conversations' last scopes", _SCOPES),
    Migration(3, "grants, pairing codes and access requests", _ACCESS),
    Migration(4, "source button ids", _SOURCE_LINKS),
    Migration(5, "status messages in flight", _PENDING_STATUS),
    Migration(6, "question rate limits", _RATE_LIMITS),
    Migration(7, "the admins' audit log", _AUDIT),
    Migration(8, "album memory", _ALBUMS),
    Migration(9, "actions waiting for their confirm button", _CONFIRMATIONS),
    Migration(10, "page button ids", _PAGE_LINKS),
    Migration(11, "embeddings shared by every machine", _EMBEDDINGS),
    Migration(12, "answers and what their askers thought of them", _FEEDBACK),
    Migration(13, "questions the documents could not answer, the digest's schedule", _UNANSWERED),
    Migration(14, "questions sent to the experts and their replies", _EXPERTS),
    Migration(15, "tokens spent on the model, budget warnings sent", _USAGE),
    Migration(16, "change notices: subscriptions and the changes waiting for them", _NOTICES),
    Migration(17, "forum topics' scopes set with /scope", _TOPIC_SCOPES),
    Migration(18, "change notices: the documents folder as they last saw it", _NOTICE_FILES),
    Migration(
        19,
        "who subscribed a group to notices, files read for unanswered questions, usage by topic "
        "and whether its tokens were estimated",
        _SCOPED_REPORTS,
    ),
    Migration(20, "which message carries which button data", _BUTTONS),
    Migration(21, "the models' open breakers, shared by every worker", _BREAKERS),
    Migration(22, "tokens pictures took in each use of the model", _IMAGE_TOKENS),
)
"""Every step, oldest first; the last one's version is the schema this code reads and writes."""

SCHEMA_VERSION = MIGRATIONS[-1].version

_VERSION_TABLE = """
CREATE TABLE IF NOT EXISTS schema_version (
    version INTEGER PRIMARY KEY,
    summary TEXT NOT NULL,
    applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
)
"""


async def migrate(
    connection: asyncpg.Connection, migrations: Sequence[Migration] = MIGRATIONS
) -> int:
    """Bring the database to the last of `migrations`; returns the version it was at (0: new).

    Raises `SchemaVersionError` for a schema newer than the code, or a step that failed (the
    schema then stays at the version before that step).
    """
    current = migrations[-1].version if migrations else 0
    await connection.execute("SELECT pg_advisory_lock($1)", MIGRATION_LOCK)
    try:
        await connection.execute(_VERSION_TABLE)
        found = await connection.fetchval("SELECT coalesce(max(version), 0) FROM schema_version")
        if found > current:
            msg = (
                f"the database holds schema version {found}, newer than this bot's {current}: "
                "it was written by a newer release. Run that release (or newer) with it, or "
                "point DATABASE_URL at a backup taken before the upgrade; this bot leaves it "
                "untouched"
            )
            raise SchemaVersionError(msg)
        reached = found
        for migration in migrations:
            if migration.version <= found:
                continue
            if found:
                log.warning(
                    "upgrading the database schema from version %d to %d: %s",
                    reached,
                    migration.version,
                    migration.summary,
                )
            try:
                async with connection.transaction():
                    for statement in migration.statements:
                        await connection.execute(statement)
                    await connection.execute(
                        "INSERT INTO schema_version (version, summary) VALUES ($1, $2)",
                        migration.version,
                        migration.summary,
                    )
            except asyncpg.PostgresError as exc:
                msg = (
                    f"upgrading the database to schema version {migration.version} "
                    f"({migration.summary}) failed: {exc}. That step was rolled back: the "
                    f"schema stays at version {reached}, which the release that wrote it "
                    "still reads. Fix the cause and start again"
                )
                raise SchemaVersionError(msg) from exc
            reached = migration.version
        return int(found)
    finally:
        await connection.execute("SELECT pg_advisory_unlock($1)", MIGRATION_LOCK)
