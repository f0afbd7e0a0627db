"""Copying DATA_DIR's entries without ever overwriting one: databases online, files as files.

A database is copied with SQLite's online backup API, which reads one consistent snapshot even
while the bot writes to it (a plain file copy of a live database can catch half a transaction,
or miss what still sits in its write-ahead log), and the copy is checked before it counts. Every
entry is written under a temporary name and put in place only if nothing has that name.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

SIDE_FILE_SUFFIXES = ("-wal", "-shm", "-journal")
"""SQLite's own files beside a database; the online backup already holds what they hold."""
_PARTIAL = ".partial"


def is_database(path: Path) -> bool:
    """Whether `path` is one of the bot's SQLite databases (by name, as the stores name them)."""
    return path.is_file() and path.name.endswith(".sqlite3")


def copy_database(source: Path, target: Path) -> None:
    """A consistent copy of the live database `source` at `target` (which must not exist)."""
    partial = _partial(target)
    try:
        src = sqlite3.connect(source, timeout=30.0)
        try:
            dst = sqlite3.connect(partial)
            try:
                src.backup(dst)
                verdict = dst.execute("PRAGMA quick_check").fetchone()[0]
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


def copy_folder(source: Path, target: Path) -> None:
    """The folder `source` and everything in it, copied to `target` (which must not exist)."""
    partial = _partial(target)
    try:
        shutil.copytree(source, partial, symlinks=True)
        if target.exists():
            raise FileExistsError(target)
        partial.rename(target)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
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
