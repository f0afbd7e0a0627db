"""`backup.json`: what a backup holds, by name and by SHA-256, and what a backup may hold at all.

A backup holds the bot's own files and nothing else: its databases (`DataFiles.bot_databases`),
the admins' menus, the data version stamp and each source's state (`sources/<name>.json`, the
one folder a backup holds), each a plain file. `backup` writes the manifest
last, with a checksum per file; `restore` reads it and refuses any other name, any folder and
any link before it writes a thing. Backups taken before checksums were kept have none: they
are still restored, since every name is one of the bot's files, every entry a plain file and
every database is checked by SQLite, but their files cannot be told apart from changed ones,
and `restore` says so.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from bot.datadir.version import DataVersionError, parse_version, refuse_newer
from bot.process.data_files import DataFiles
from bot.process.version import bot_version

MANIFEST = "backup.json"
_SHA256 = re.compile(r"[0-9a-f]{64}")
_SOURCE_STATE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,62}\.json")
"""A source's state file: its name as the sources file allows it, then `.json`."""


class Refused(Exception):
    """The backup or restore was not started; the text says why and what to do."""


@dataclass(frozen=True, slots=True)
class Contents:
    """What a backup may hold: the names of the bot's databases and of its other files."""

    databases: frozenset[str]
    files: frozenset[str]
    index_prefix: str
    """What the search index's files and folder are named with (`search-index.`)."""
    folder: str
    """The sources' state folder (`sources`), whose `<name>.json` files a backup holds."""

    @classmethod
    def of(cls, files: DataFiles) -> Contents:
        """The bot's files under any DATA_DIR (only their names matter)."""
        return cls(
            databases=frozenset(p.name for p in files.bot_databases()),
            files=frozenset({files.admin_menus.name, files.data_version.name}),
            index_prefix=files.index.stem + ".",
            folder=files.sources.name,
        )

    def holds_file(self, name: str) -> bool:
        """Whether a backup may hold the file `name` (a path relative to DATA_DIR)."""
        return name in self.files or self.is_source_state(name)

    def is_source_state(self, name: str) -> bool:
        """Whether `name` is a source's state, `sources/<name>.json` (its lock is not)."""
        folder, _, state = name.partition("/")
        return folder == self.folder and _SOURCE_STATE.fullmatch(state) is not None

    def shown_files(self) -> str:
        """The files a backup may hold, for a refusal."""
        return ", ".join([*sorted(self.files), f"{self.folder}/<source>.json"])

    def is_index(self, name: str) -> bool:
        """Whether `name` is one of the search index's entries, which no backup holds."""
        return name.startswith(self.index_prefix)

    def is_stray_index_file(self, name: str) -> bool:
        """An index file an earlier release listed by mistake (its lock): dropped, never
        restored. An index folder (`name/`) is refused like any other folder."""
        return self.is_index(name) and not name.endswith("/")


@dataclass(frozen=True, slots=True)
class Manifest:
    """A backup's manifest, read and checked against `Contents`."""

    data_version: int
    databases: tuple[str, ...]
    files: tuple[str, ...]
    sha256: dict[str, str] | None
    """Each entry's checksum; None in a backup taken before checksums were kept."""

    @property
    def entries(self) -> tuple[str, ...]:
        return (*self.databases, *self.files)


def write_manifest(path: Path, manifest: Manifest) -> None:
    """Write the manifest of a finished backup."""
    body = {
        "data_version": manifest.data_version,
        "written_by": f"docs-bot {bot_version()}",
        "taken_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "databases": list(manifest.databases),
        "files": list(manifest.files),
        "sha256": manifest.sha256 or {},
    }
    path.write_text(json.dumps(body, indent=2) + "\n", encoding="utf-8")


def read_manifest(source: Path, contents: Contents) -> Manifest:
    """The manifest of the backup at `source`; raises `Refused` for anything a real backup
    would not hold. Index files listed by older releases by mistake are dropped."""
    where = source / MANIFEST
    try:
        text = where.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        msg = f"{where} is not a backup manifest (not UTF-8 text)"
        raise Refused(msg) from exc
    try:
        version = parse_version(text, str(where))
        refuse_newer(version, source)
        body = json.loads(text)
    except DataVersionError as exc:
        raise Refused(str(exc)) from exc
    databases = _names(
        body,
        "databases",
        where,
        allowed=contents.databases.__contains__,
        shown=", ".join(sorted(contents.databases)),
        dropped=lambda _: False,
    )
    files = _names(
        body,
        "files",
        where,
        allowed=contents.holds_file,
        shown=contents.shown_files(),
        dropped=contents.is_stray_index_file,
    )
    return Manifest(version, databases, files, _checksums(body, (*databases, *files), where))


def _names(
    body: dict[str, object],
    key: str,
    where: Path,
    *,
    allowed: Callable[[str], bool],
    shown: str,
    dropped: Callable[[str], bool],
) -> tuple[str, ...]:
    names = body.get(key, [])
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        msg = f"{where}: '{key}' is not a list of names"
        raise Refused(msg)
    for name in names:
        if not allowed(name) and not dropped(name):
            msg = (
                f"{where} names {name!r} among its {key}, which no backup holds "
                f"(a backup holds only {shown})"
            )
            raise Refused(msg)
    if len(set(names)) != len(names):
        msg = f"{where} names an entry twice among its {key}"
        raise Refused(msg)
    return tuple(n for n in names if not dropped(n))


def _checksums(
    body: dict[str, object], entries: tuple[str, ...], where: Path
) -> dict[str, str] | None:
    if "sha256" not in body:
        return None
    sums = body["sha256"]
    if not isinstance(sums, dict):
        msg = f"{where}: 'sha256' is not a table of checksums"
        raise Refused(msg)
    for name in entries:
        value = sums.get(name)
        if not isinstance(value, str) or _SHA256.fullmatch(value) is None:
            msg = f"{where} has no checksum for {name}: the manifest is incomplete"
            raise Refused(msg)
    stray = sorted(set(sums) - set(entries))
    if stray:
        msg = f"{where} has checksums for {', '.join(stray)}, which it does not list"
        raise Refused(msg)
    return {name: str(sums[name]) for name in entries}
