"""`python -m bot backup DEST`: a consistent copy of DATA_DIR, taken while the bot runs.

Every database is copied with SQLite's online backup API (one snapshot each, so questions in
flight are either in it or not, never half), every other entry as it is. The search index is
left out: it is rebuilt from the documents at start, so copying it would only make the backup
bigger and older than the documents. SQLite's side files and the history's in-use marker are
left out too (the copy already holds their content; the marker only says a bot is running).
`backup.json` is written last and names what the backup holds; `restore` reads it.

Like `pair`, this needs only DATA_DIR, never a token or key, and imports no aiogram.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from bot.config import Settings
from bot.data_files import DataFiles
from bot.datadir.copying import (
    SIDE_FILE_SUFFIXES,
    copy_database,
    copy_file,
    copy_folder,
    is_database,
    remove,
)
from bot.datadir.postgres_note import postgres_note
from bot.datadir.version import DataVersionError, read_stamp, refuse_newer
from bot.version import bot_version

MANIFEST = "backup.json"
_MARKER_SUFFIX = ".in-use"
_PARTIAL_SUFFIX = ".partial"


class Refused(Exception):
    """The backup or restore was not started; the text says why and what to do."""


@dataclass
class BackupReport:
    """What went into the backup, and what was left out on purpose."""

    data_version: int
    databases: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    index: list[str] = field(default_factory=list)


def take_backup(data_dir: Path, dest: Path) -> BackupReport:
    """Copy DATA_DIR into `dest` (new or empty); raises `Refused` before copying anything."""
    files = DataFiles(data_dir)
    if not data_dir.is_dir():
        msg = f"DATA_DIR {data_dir} does not exist: there is nothing to back up"
        raise Refused(msg)
    _check_empty(dest, "DEST")
    try:
        stamp = read_stamp(files)
        if stamp.version is None:
            msg = f"DATA_DIR {data_dir} holds none of the bot's files: there is nothing to back up"
            raise Refused(msg)
        refuse_newer(stamp.version, data_dir)
    except DataVersionError as exc:
        raise Refused(str(exc)) from exc
    report = BackupReport(stamp.version)
    dest.mkdir(parents=True, exist_ok=True)
    made: list[Path] = []
    try:
        for entry in sorted(data_dir.iterdir()):
            kind = _kind(entry, files)
            target = dest / entry.name
            if kind == "index":
                report.index.append(entry.name)
                continue
            if kind == "skip":
                continue
            made.append(target)
            if kind == "database":
                copy_database(entry, target)
                report.databases.append(entry.name)
            elif kind == "folder":
                copy_folder(entry, target)
                report.files.append(entry.name + "/")
            else:
                copy_file(entry, target)
                report.files.append(entry.name)
        made.append(dest / MANIFEST)
        _write_manifest(dest / MANIFEST, report)
    except BaseException:
        for path in made:
            remove(path)
        raise
    return report


def _check_empty(folder: Path, name: str) -> None:
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        msg = f"{name} {folder} exists and is not an empty folder; name a new or empty one"
        raise Refused(msg)


def _kind(entry: Path, files: DataFiles) -> str:
    """How an entry of DATA_DIR is backed up: database, file, folder, index or skip."""
    name = entry.name
    if name in (files.index.name, files.index_terms.name) or name.startswith(
        files.index.name + "-"
    ):
        return "index"
    if name.endswith(SIDE_FILE_SUFFIXES) or name.endswith((_MARKER_SUFFIX, _PARTIAL_SUFFIX)):
        return "skip"
    if name == files.heartbeat.name:  # the running bot's, not data
        return "skip"
    if is_database(entry):
        return "database"
    if entry.is_dir() and not entry.is_symlink():
        return "folder"
    return "file"


def _write_manifest(path: Path, report: BackupReport) -> None:
    manifest = {
        "data_version": report.data_version,
        "written_by": f"docs-bot {bot_version()}",
        "taken_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "databases": report.databases,
        "files": report.files,
    }
    path.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")


async def serve(settings: Settings, dest: str) -> int:
    """Back up DATA_DIR into `dest`; 2 when refused, 1 when copying failed."""
    target = Path(dest)
    try:
        report = await asyncio.to_thread(take_backup, settings.data_dir, target)
    except Refused as exc:
        print(f"backup refused: {exc}", file=sys.stderr)  # noqa: T201
        return 2
    except (OSError, sqlite3.Error) as exc:
        print(f"backup failed, nothing was kept in {target}: {exc}", file=sys.stderr)  # noqa: T201
        return 1
    version = report.data_version
    lines = [f"Backed up DATA_DIR {settings.data_dir} to {target} (data version {version}):"]
    lines += [f"  {name}  (database, online copy)" for name in report.databases]
    lines += [f"  {name}" for name in report.files]
    lines.append(
        "Not backed up: the search index"
        + (f" ({', '.join(report.index)})" if report.index else "")
        + "; the bot rebuilds it from the documents at start."
    )
    lines.append(f"Restore into an empty DATA_DIR with: python -m bot restore {target}")
    note = postgres_note(settings, restoring=False)
    if note is not None:
        lines.append(note)
    print("\n".join(lines))  # noqa: T201 - the terminal is the audience
    return 0
