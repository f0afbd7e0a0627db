"""Copying DATA_DIR's entries without ever overwriting one: databases online, files as files.

A database is copied with SQLite's online backup API, which reads one consistent snapshot even
while the bot writes to it (a plain file copy of a live database can catch half a transaction,
or miss what still sits in its write-ahead log), and the copy is checked before it counts. A
backup's files are read back as they are, links refused, and checked against their SHA-256.
Every entry is written under a temporary name and put in place only if nothing has that name.
"""

from __future__ import annotations

import errno
import hashlib
import io
import os
import shutil
import sqlite3
import stat
from pathlib import Path

from tools.sqlite import connect, quick_check

_BACKUP_WAIT_S = 30.0
"""How long the backup waits for the bot holding a database it copies."""
_PARTIAL = ".partial"
_CHUNK = 1024 * 1024


class NotPlainFile(Exception):
    """An entry is a link, a folder or a device where a plain file is expected."""


class ChecksumMismatch(Exception):
    """A file's bytes are not those its checksum names."""


def is_database(path: Path) -> bool:
    """Whether `path` is one of the bot's SQLite databases (by name, as the stores name them)."""
    return path.is_file() and path.name.endswith(".sqlite3")


def copy_database(source: Path, target: Path) -> None:
    """A consistent copy of the live database `source` at `target` (which must not exist)."""
    partial = _partial(target)
    try:
        src = connect(source, busy_wait_s=_BACKUP_WAIT_S)
        try:
            dst = connect(partial)
            try:
                src.backup(dst)
                verdict = quick_check(dst)
            finally:
                dst.close()
        finally:
            src.close()
        if verdict != "ok":
            msg = f"the copy of {source.name} failed its check: {verdict}"
            raise sqlite3.DatabaseError(msg)
        _place_file(partial, target)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise


def copy_file(source: Path, target: Path) -> None:
    """`source` copied to `target` (which must not exist), times and mode kept."""
    partial = _partial(target)
    try:
        shutil.copy2(source, partial)
        _place_file(partial, target)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise


def read_plain(path: Path) -> io.BufferedReader:
    """`path` opened for reading, refusing a link or anything but a plain file: what a backup
    holds is read as it is, never followed elsewhere."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise NotPlainFile(f"{path.name} is a link") from None
        raise
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise NotPlainFile(f"{path.name} is not a plain file")
    return open(fd, "rb")


def sha256_of(path: Path) -> str:
    """The SHA-256 of the plain file `path`, in hex."""
    with read_plain(path) as source:
        return hashlib.file_digest(source, "sha256").hexdigest()


def database_verdict(path: Path) -> str:
    """SQLite's quick check of the database file `path`, read as it is: nothing is written
    beside it, whatever its journal mode ("ok" when sound)."""
    connection = connect(path, access="snapshot")
    try:
        return quick_check(connection)
    finally:
        connection.close()


def copy_checked(source: Path, target: Path, sha256: str | None) -> None:
    """The plain file `source` copied to `target` (which must not exist); when `sha256` is
    given, the bytes copied must have it, or nothing is kept."""
    partial = _partial(target)
    try:
        with read_plain(source) as reader, partial.open("xb") as writer:
            digest = hashlib.sha256()
            while chunk := reader.read(_CHUNK):
                digest.update(chunk)
                writer.write(chunk)
        if sha256 is not None and digest.hexdigest() != sha256:
            msg = f"{source.name} changed while it was copied"
            raise ChecksumMismatch(msg)
        _place_file(partial, target)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise


def remove(path: Path) -> None:
    """Take away an entry this run created (when the run as a whole failed)."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def _partial(target: Path) -> Path:
    return target.with_name(target.name + _PARTIAL)


def _place_file(partial: Path, target: Path) -> None:
    """Give the finished copy its name, failing (never replacing) if that name is taken."""
    try:
        os.link(partial, target)
    except FileExistsError:
        raise
    except OSError:  # a filesystem without hard links: look, then rename
        if target.exists():
            raise FileExistsError(target) from None
        partial.rename(target)
        return
    partial.unlink()
