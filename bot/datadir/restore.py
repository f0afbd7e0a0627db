"""`python -m bot restore SRC`: put a backup back into an empty DATA_DIR.

It never overwrites anything: DATA_DIR must be missing or empty, and each entry is put in place
only under a name nothing has. Only what the backup's `backup.json` names is restored, so a
folder that merely looks like a backup is refused. A backup newer than this bot is refused too
(this bot would refuse to start on it). The search index is not in a backup: the bot rebuilds
it from the documents when it starts. Needs only DATA_DIR, like `pair`, and no aiogram.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import sys
from dataclasses import dataclass, field
from pathlib import Path

from bot.config import Settings
from bot.datadir.backup import MANIFEST, Refused
from bot.datadir.copying import copy_database, copy_file, copy_folder, remove
from bot.datadir.postgres_note import postgres_note
from bot.datadir.version import DataVersionError, parse_version, refuse_newer


@dataclass
class RestoreReport:
    """What was put back."""

    data_version: int
    entries: list[str] = field(default_factory=list)


def restore_backup(source: Path, data_dir: Path) -> RestoreReport:
    """Copy the backup at `source` into `data_dir`; raises `Refused` before copying anything."""
    manifest_path = source / MANIFEST
    if not manifest_path.is_file():
        msg = f"{source} is not a backup made by `python -m bot backup` (it has no {MANIFEST})"
        raise Refused(msg)
    text = manifest_path.read_text(encoding="utf-8")
    try:
        version = parse_version(text, f"{source / MANIFEST}")
        refuse_newer(version, source)
    except DataVersionError as exc:
        raise Refused(str(exc)) from exc
    databases, files = _entries(json.loads(text), source)
    if data_dir.exists() and (not data_dir.is_dir() or any(data_dir.iterdir())):
        msg = (
            f"DATA_DIR {data_dir} is not empty: restore never overwrites anything. Move its "
            "files away first, or set DATA_DIR to a new folder"
        )
        raise Refused(msg)
    data_dir.mkdir(parents=True, exist_ok=True)
    report = RestoreReport(version)
    made: list[Path] = []
    try:
        for name in databases:
            made.append(data_dir / name)
            copy_database(source / name, data_dir / name)
            report.entries.append(name)
        for name in files:
            plain = name.removesuffix("/")
            made.append(data_dir / plain)
            if name.endswith("/"):
                copy_folder(source / plain, data_dir / plain)
            else:
                copy_file(source / plain, data_dir / plain)
            report.entries.append(name)
    except BaseException:
        for path in made:
            remove(path)
        raise
    return report


def _entries(manifest: object, source: Path) -> tuple[list[str], list[str]]:
    """The databases and other entries the manifest names, each checked to be a plain name
    of an entry that is there (nothing can point outside the backup)."""
    if not isinstance(manifest, dict):
        msg = f"{source / MANIFEST} is not a backup manifest"
        raise Refused(msg)
    lists: list[list[str]] = []
    for key in ("databases", "files"):
        names = manifest.get(key, [])
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            msg = f"{source / MANIFEST}: '{key}' is not a list of names"
            raise Refused(msg)
        for name in names:
            plain = name.removesuffix("/")
            if not plain or plain in (".", "..") or "/" in plain or "\\" in plain:
                msg = f"{source / MANIFEST} names {name!r}, which is not a plain name"
                raise Refused(msg)
            if not (source / plain).exists():
                msg = f"the backup is incomplete: {plain} is missing from {source}"
                raise Refused(msg)
        lists.append(names)
    return lists[0], lists[1]


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
    print(  # noqa: T201 - the terminal is the audience
        f"Restored {len(report.entries)} entr{'y' if len(report.entries) == 1 else 'ies'} "
        f"(data version {report.data_version}) from {source} into DATA_DIR "
        f"{settings.data_dir}: {', '.join(report.entries)}.\n"
        "The search index was not in the backup; the bot rebuilds it from the documents "
        "when it starts."
    )
    note = postgres_note(settings, restoring=True)
    if note is not None:
        print(note)  # noqa: T201
    return 0
