"""`python -m bot restore SRC`: put a backup back into an empty DATA_DIR.

It never overwrites anything: DATA_DIR must be missing or empty, and each entry is put in place
only under a name nothing has. A backup is trusted with nothing: before a single file is
written, every entry of SRC must be one the manifest lists, every listed name one of the bot's
own files (`bot.datadir.manifest`), each a plain file (never a link, and no folder but the
sources' state folder, itself never a link), each with the
SHA-256 the manifest gives and each database sound by SQLite's check. What is copied is checked
against its checksum again. A backup newer than this bot is refused too (this bot would refuse
to start on it). The search index is not in a backup: the bot rebuilds it from the documents
when it starts. Needs only DATA_DIR, like `pair`, and no aiogram.
"""

from __future__ import annotations

import asyncio
import sqlite3
import sys
from dataclasses import dataclass, field
from pathlib import Path

from bot.datadir.copying import (
    ChecksumMismatch,
    NotPlainFile,
    copy_checked,
    database_verdict,
    read_plain,
    remove,
    sha256_of,
)
from bot.datadir.manifest import MANIFEST, Contents, Manifest, Refused, read_manifest
from bot.datadir.postgres_note import postgres_note
from bot.datadir.version import DataVersionError, parse_version
from bot.process.data_files import DataFiles
from bot.settings.model import Settings


@dataclass
class RestoreReport:
    """What was put back."""

    data_version: int
    entries: list[str] = field(default_factory=list)
    verified: bool = True
    """False for a backup taken before checksums were kept."""


def restore_backup(source: Path, data_dir: Path) -> RestoreReport:
    """Copy the backup at `source` into `data_dir`; raises `Refused` before copying anything."""
    manifest = _checked(source)
    if data_dir.exists() and (not data_dir.is_dir() or any(data_dir.iterdir())):
        msg = (
            f"DATA_DIR {data_dir} is not empty: restore never overwrites anything. Move its "
            "files away first, or set DATA_DIR to a new folder"
        )
        raise Refused(msg)
    data_dir.mkdir(parents=True, exist_ok=True)
    report = RestoreReport(manifest.data_version, verified=manifest.sha256 is not None)
    made: list[Path] = []
    try:
        for name in manifest.entries:
            folder = (data_dir / name).parent
            if folder != data_dir and not folder.exists():  # the sources' state folder
                made.append(folder)
                folder.mkdir()
            made.append(data_dir / name)
            sha256 = manifest.sha256[name] if manifest.sha256 is not None else None
            copy_checked(source / name, data_dir / name, sha256)
            report.entries.append(name)
    except (ChecksumMismatch, NotPlainFile) as exc:  # SRC changed since it was checked
        for path in made:
            remove(path)
        raise Refused(str(exc)) from exc
    except BaseException:
        for path in made:
            remove(path)
        raise
    return report


def _checked(source: Path) -> Manifest:
    """The backup's manifest, once everything at `source` agrees with it; raises `Refused`."""
    if not source.exists():
        msg = f"{source} does not exist: name the folder `python -m bot backup` wrote"
        raise Refused(msg)
    if not source.is_dir():
        msg = f"{source} is not a folder: name the folder `python -m bot backup` wrote"
        raise Refused(msg)
    if not (source / MANIFEST).is_file() or (source / MANIFEST).is_symlink():
        msg = f"{source} is not a backup made by `python -m bot backup` (it has no {MANIFEST})"
        raise Refused(msg)
    contents = Contents.of(DataFiles(source))
    manifest = read_manifest(source, contents)
    listed = {MANIFEST, *manifest.entries}
    for entry in sorted(source.iterdir()):
        if entry.name == contents.folder and entry.is_dir() and not entry.is_symlink():
            _check_folder(entry, listed)
            continue
        stray = contents.is_stray_index_file(entry.name) and entry.is_file()
        if entry.name not in listed and not (stray and not entry.is_symlink()):
            kind = "folder" if entry.is_dir() and not entry.is_symlink() else "entry"
            msg = f"the backup holds the {kind} {entry.name}, which its {MANIFEST} does not list"
            raise Refused(msg)
    for name in manifest.entries:
        _check_entry(source, name, manifest)
    return manifest


def _check_folder(folder: Path, listed: set[str]) -> None:
    """The sources' state folder holds only what the manifest lists (each entry is checked
    as a plain file with the others)."""
    for entry in sorted(folder.iterdir()):
        name = f"{folder.name}/{entry.name}"
        if name not in listed:
            msg = f"the backup holds the entry {name}, which its {MANIFEST} does not list"
            raise Refused(msg)


def _check_entry(source: Path, name: str, manifest: Manifest) -> None:
    path = source / name
    if not path.exists() and not path.is_symlink():
        msg = f"the backup is incomplete: {name} is missing from {source}"
        raise Refused(msg)
    try:
        digest = sha256_of(path)
    except NotPlainFile as exc:
        msg = f"the backup's {exc}: a backup holds only plain files"
        raise Refused(msg) from exc
    if manifest.sha256 is not None and digest != manifest.sha256[name]:
        msg = (
            f"{name} does not match its checksum in {MANIFEST}: the backup was changed or "
            "damaged after it was taken"
        )
        raise Refused(msg)
    if name.endswith(".sqlite3"):
        try:
            verdict = database_verdict(path)
        except sqlite3.DatabaseError as exc:
            verdict = str(exc)
        if verdict != "ok":
            msg = f"{name} in the backup is not a sound database: {verdict}"
            raise Refused(msg)
    elif name == DataFiles(source).data_version.name:
        with read_plain(path) as stamp:
            text = stamp.read().decode("utf-8", errors="replace")
        try:
            version = parse_version(text, name)
        except DataVersionError as exc:
            raise Refused(str(exc)) from exc
        if version != manifest.data_version:
            msg = (
                f"the backup's {name} says data version {version}, its {MANIFEST} "
                f"{manifest.data_version}: the backup is not one piece"
            )
            raise Refused(msg)


async def serve(settings: Settings, src: str) -> int:
    """Restore the backup at `src` into DATA_DIR; 2 when refused, 1 when copying failed."""
    source = Path(src)
    try:
        report = await asyncio.to_thread(restore_backup, source, settings.data_dir)
    except Refused as exc:
        print(f"restore refused: {exc}", file=sys.stderr)  # noqa: T201
        return 2
    except (OSError, sqlite3.Error, ValueError) as exc:
        print(f"restore failed, DATA_DIR was left as it was: {exc}", file=sys.stderr)  # noqa: T201
        return 1
    count = len(report.entries)
    print(  # noqa: T201 - the terminal is the audience
        f"Restored {count} entr{'y' if count == 1 else 'ies'} "
        f"(data version {report.data_version}) from {source} into DATA_DIR "
        f"{settings.data_dir}: {', '.join(report.entries)}.\n"
        "The search index was not in the backup; the bot rebuilds it from the documents "
        "when it starts."
    )
    if not report.verified:
        print(  # noqa: T201
            "This backup was taken before backups carried checksums: its files were checked "
            "to be the bot's own plain files and its databases by SQLite, but a change to them "
            "since the backup was taken cannot be told."
        )
    note = postgres_note(settings, restoring=True)
    if note is not None:
        print(note)  # noqa: T201
    return 0
