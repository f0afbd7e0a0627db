"""`python -m bot backup DEST`: a consistent copy of DATA_DIR, taken while the bot runs.

Every database is copied with SQLite's online backup API (one snapshot each, so questions in
flight are either in it or not, never half), the admins' menus, the data version stamp and each
source's state (`sources/<name>.json`: what its mirror placed, its last pass, a deletion waiting
for a confirmation) as they are; the sources' lock files are not data. Nothing else: the
search index is left out (the bot rebuilds it from the documents at start, so copying it would
only make the backup bigger and older than the documents), and so are SQLite's side files, the
history's in-use marker and the heartbeat (the copy already holds what the side files hold; the
others only say a bot is running). Anything else in DATA_DIR is not the bot's and is named as
left out. The documents folder is not in the backup either.
`backup.json` is written last and names each file with its SHA-256; `restore` reads it.

Like `pair`, this needs only DATA_DIR, never a token or key, and imports no aiogram.
"""

from __future__ import annotations

import asyncio
import shlex
import sqlite3
import sys
from dataclasses import dataclass, field
from pathlib import Path

from bot.datadir.copying import copy_database, copy_file, remove, sha256_of
from bot.datadir.manifest import MANIFEST, Contents, Manifest, Refused, write_manifest
from bot.datadir.postgres_note import postgres_note
from bot.datadir.version import DataVersionError, read_stamp, refuse_newer
from bot.process.data_files import DataFiles
from bot.settings.model import Settings
from tools.sqlite import SIDE_FILE_SUFFIXES

__all__ = ["MANIFEST", "BackupReport", "Refused", "serve", "take_backup"]

_MARKER_SUFFIX = ".in-use"
_PARTIAL_SUFFIX = ".partial"
_LOCK_SUFFIX = ".lock"


@dataclass
class BackupReport:
    """What went into the backup, and what was left out on purpose."""

    data_version: int
    databases: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    index: list[str] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)
    """Entries of DATA_DIR that are not the bot's."""


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
    contents = Contents.of(files)
    dest.mkdir(parents=True, exist_ok=True)
    made: list[Path] = []
    try:
        for entry in sorted(data_dir.iterdir()):
            kind = _kind(entry, files, contents)
            shown = entry.name + ("/" if entry.is_dir() else "")
            target = dest / entry.name
            if kind == "index":
                report.index.append(shown)
            elif kind == "other":
                report.left_out.append(shown)
            elif kind == "database":
                made.append(target)
                copy_database(entry, target)
                report.databases.append(entry.name)
            elif kind == "file":
                made.append(target)
                copy_file(entry, target)
                report.files.append(entry.name)
            elif kind == "sources":
                _copy_sources(entry, dest, contents, report, made)
        names = (*report.databases, *report.files)
        sums = {name: sha256_of(dest / name) for name in names}
        made.append(dest / MANIFEST)
        manifest = Manifest(
            report.data_version, tuple(report.databases), tuple(report.files), sums
        )
        write_manifest(dest / MANIFEST, manifest)
    except BaseException:
        for path in made:
            remove(path)
        raise
    return report


def _check_empty(folder: Path, name: str) -> None:
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        msg = f"{name} {folder} exists and is not an empty folder; name a new or empty one"
        raise Refused(msg)


def _copy_sources(
    folder: Path, dest: Path, contents: Contents, report: BackupReport, made: list[Path]
) -> None:
    """Each source's state file, as it is (each is written whole and renamed into place);
    the locks and a state being written (a dot-name) are the running bot's, not data."""
    for entry in sorted(folder.iterdir()):
        name = f"{folder.name}/{entry.name}"
        if entry.name.endswith(_LOCK_SUFFIX) or entry.name.startswith("."):
            continue
        if entry.is_symlink() or not entry.is_file() or not contents.is_source_state(name):
            report.left_out.append(name + ("/" if entry.is_dir() else ""))
            continue
        if not (dest / folder.name).exists():
            made.append(dest / folder.name)
            (dest / folder.name).mkdir()
        copy_file(entry, dest / name)
        report.files.append(name)


def _kind(entry: Path, files: DataFiles, contents: Contents) -> str:
    """How an entry of DATA_DIR is backed up: database, file, sources, index, skip or other."""
    name = entry.name
    if contents.is_index(name):
        return "index"
    if name == contents.folder and entry.is_dir() and not entry.is_symlink():
        return "sources"
    side = name.endswith((*SIDE_FILE_SUFFIXES, _MARKER_SUFFIX, _PARTIAL_SUFFIX))
    if side or name == files.heartbeat.name:  # the running bot's, not data
        return "skip"
    if entry.is_file() and name in contents.databases:
        return "database"
    if entry.is_file() and name in contents.files:
        return "file"
    return "other"


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
    if report.left_out:
        lines.append(f"Not backed up, not the bot's files: {', '.join(report.left_out)}.")
    lines.append(
        f"Not backed up: the documents folder (SANDBOX_DIR {settings.sandbox_dir}). "
        "Copy it on its own, e.g.\n"
        f"  tar -czf documents.tar.gz -C {shlex.quote(str(settings.sandbox_dir))} ."
    )
    lines.append(f"Restore into an empty DATA_DIR with: python -m bot restore {target}")
    note = postgres_note(settings, restoring=False)
    if note is not None:
        lines.append(note)
    print("\n".join(lines))  # noqa: T201 - the terminal is the audience
    return 0
