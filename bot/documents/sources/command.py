"""`python -m bot sources list|sync [NAME]|check [NAME]`: the sources from the terminal.

`list` prints each source from its kept state (nothing is opened, no credential is read);
`sync` runs one pass of each source (or NAME) and exits 0 only when every pass left its folder
matching its source, with one line per failed source on standard error; `check` opens each
source and takes a listing, changing nothing, one ✓/✗ line each, as `python -m bot check` does.

Like `pair`, it needs neither the token nor the key, and works while the bot runs: a source the
bot is syncing at that moment is skipped (the lock in `bot.documents.sources.locks`), deletions
go to the same trash and the same audit log. The search index is the running bot's to write, so
this command does not touch it: the bot's folder watcher picks the changed files up within
seconds, and a bot started later indexes them at its start.
"""

from __future__ import annotations

import sys
import time
from contextlib import AsyncExitStack
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from bot.documents.sources.config import (
    Credentials,
    SourceSecretError,
    SourcesFileError,
    load_sources,
)
from bot.documents.sources.locks import SyncLocks
from bot.documents.sources.runner import Sources, SourceStatus
from bot.process import exit_codes
from bot.process.data_files import DataFiles
from bot.settings.model import Settings
from bot.storage.audit import AuditLog

if TYPE_CHECKING:
    from bot.storage.session import LockSession

OK = 0


async def serve(settings: Settings, *, action: str = "list", name: str | None = None) -> int:
    """Run `action` on every source or on `name`; the exit code."""
    configs = load_sources(settings.sources_file)
    if not configs:
        if action == "list":
            _say("no sources: SOURCES_FILE is not set or lists none")
            return OK
        _complain("no sources to " + action + ": SOURCES_FILE is not set or lists none")
        return exit_codes.FIX_SETTINGS
    names = [config.name for config in configs]
    if name is not None and name not in names:
        _complain(f"no source is named {name!r} in SOURCES_FILE (there are: {', '.join(names)})")
        return exit_codes.FIX_SETTINGS
    chosen = [name] if name is not None else names
    files = DataFiles(settings.data_dir)
    if action == "list":
        sources = Sources(
            configs,
            root=settings.sandbox_dir,
            data=files.sources,
            max_delete_percent=settings.source_max_delete_percent,
        )
        for status in await sources.statuses():
            if status.name in chosen:
                _say(describe(status, now=time.time()))
        return OK
    async with AsyncExitStack() as stack:
        audit, session = await _storage(settings, files, stack)
        sources = Sources(
            configs,
            root=settings.sandbox_dir,
            data=files.sources,
            max_delete_percent=settings.source_max_delete_percent,
            audit=audit,
            locks=SyncLocks(files.sources, session),
            credentials=Credentials.beside(settings),
        )
        stack.push_async_callback(sources.close)
        if action == "check":
            return await check_each(sources, chosen)
        return await sync_each(sources, chosen)


async def check_each(sources: Sources, names: list[str]) -> int:
    """Take each source's listing, one ✓/✗ line each; 0 when all could be listed."""
    failed = False
    for name in names:
        checked = await sources.check(name)
        if checked.error is None:
            _say(f"✓ {name}: {checked.items} item(s) listed")
        else:
            failed = True
            _say(f"✗ {name}: {checked.error}")
    return exit_codes.TRY_AGAIN if failed else OK


async def sync_each(sources: Sources, names: list[str]) -> int:
    """One pass of each source, a line of counts each, a line on standard error for each
    that failed; 0 when all succeeded, 2 when a source cannot be opened (a credential, its
    kind), else 1."""
    failed = False
    unusable = False
    for name in names:
        try:
            outcome = await sources.sync(name)
        except (SourceSecretError, SourcesFileError) as exc:
            unusable = True
            _complain(str(exc))
            continue
        if outcome is None:
            failed = True
            _complain(f"{name}: another process is syncing it now; try again in a moment")
            continue
        report = outcome.report
        if report.ok or report.added or report.changed or report.moved or report.removed:
            _say(f"{name}: {_counts(report.added, report.changed, report.moved, report.removed)}")
        if not report.ok:
            failed = True
            _complain(f"{name}: {report.error}")
    if unusable:
        return exit_codes.FIX_SETTINGS
    return exit_codes.TRY_AGAIN if failed else OK


def describe(status: SourceStatus, *, now: float) -> str:
    """One source in a few lines: what it is, its last pass, what waits for a confirmation."""
    every = _period(status.every_s)
    lines = [f"{status.name} ({status.kind}) → {status.folder}/, every {every}"]
    if status.last is None:
        lines.append("  never synced")
    else:
        last = status.last
        done = last.added or last.changed or last.moved or last.removed or last.unchanged
        result = (
            f"{_counts(last.added, last.changed, last.moved, last.removed)}, "
            f"{last.unchanged} unchanged"
            if last.ok or done
            else "failed"
        )
        lines.append(f"  last pass {_when(last.at, now)}: {result}")
        success = _when(status.last_success, now) if status.last_success else "never"
        lines.append(f"  last success {success}")
        if last.error:
            lines.append(f"  last error: {last.error}")
    if status.pending is not None:
        lines.append(
            f"  waiting for an admin: {status.pending.count} of {status.pending.total} files "
            "to delete"
        )
    return "\n".join(lines)


def _counts(added: int, changed: int, moved: int, removed: int) -> str:
    return f"{added} added, {changed} changed, {moved} moved, {removed} removed"


def _when(at: float, now: float) -> str:
    stamp = datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%d %H:%M UTC")
    return f"{stamp} ({_period(max(now - at, 0.0))} ago)"


def _period(seconds: float) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds / size:.3g}{unit}"
    return f"{seconds:.0f}s"


async def _storage(
    settings: Settings, files: DataFiles, stack: AsyncExitStack
) -> tuple[AuditLog, LockSession | None]:
    """The audit log the bot writes to, and (with DATABASE_URL) the lock session."""
    if settings.database_url is None:
        from bot.storage.audit.sqlite import SqliteAuditLog  # noqa: PLC0415

        files.root.mkdir(parents=True, exist_ok=True)
        audit = SqliteAuditLog(files.audit)
        stack.push_async_callback(audit.close)
        return audit, None
    from bot.storage import PostgresDatabase  # noqa: PLC0415  (the driver: only with a database)
    from bot.storage.audit.postgres import PostgresAuditLog  # noqa: PLC0415

    database = await PostgresDatabase.open(settings.database_url.get_secret_value())
    stack.push_async_callback(database.close)
    return PostgresAuditLog(database), database.session


def _say(text: str) -> None:
    print(text)  # noqa: T201 - the terminal is the audience


def _complain(text: str) -> None:
    print(text, file=sys.stderr)  # noqa: T201 - the terminal is the audience
