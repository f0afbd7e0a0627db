"""Upgrading an older DATA_DIR in place at start, one numbered step at a time.

Each step brings the folder from the version before it to its own, inside a transaction per
database it touches; the stamp is written after each step, so a step that fails is rolled back
and the folder stays at the last version that was reached whole, which the release that wrote
it still reads. The bot then stops with a message naming the step and the cause. A store whose
file does not exist yet needs no step: it is created with the newest schema when first opened.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from bot.datadir.version import (
    DATA_VERSION,
    DataVersionError,
    read_stamp,
    refuse_newer,
    write_stamp,
)
from bot.process.data_files import DataFiles
from tools.sqlite import connect
from tools.sqlite import transaction as immediate

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class DataDirStep:
    """The step to `version`: what it does, in a few words, and the work itself."""

    version: int
    summary: str
    apply: Callable[[DataFiles], None]


@contextmanager
def transaction(path: Path) -> Iterator[sqlite3.Connection]:
    """One immediate transaction on the database at `path`: committed when the block ends,
    rolled back (schema changes too) when it raises."""
    db = connect(path)
    try:
        with immediate(db):
            yield db
    finally:
        db.close()


def _index_open_turns(files: DataFiles) -> None:
    """Start-up marks turns a crash left open; an index of them spares reading the whole log."""
    if not files.history.exists():
        return
    with transaction(files.history) as db:
        db.execute("CREATE INDEX IF NOT EXISTS turns_open ON turns (id) WHERE state = 'open'")
        db.execute("PRAGMA user_version = 2")


def _add_column(path: Path, table: str, column: str, definition: str) -> None:
    """Add a column to a store's table, unless the file, the table or the column is not there
    to change (a store not used yet is created with it)."""
    if not path.exists():
        return
    with transaction(path) as db:
        names = {str(row[1]) for row in db.execute(f"PRAGMA table_info({table})")}
        if names and column not in names:
            db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {definition}")


def _reports_columns(files: DataFiles) -> None:
    """What keeps a scoped admin's reports within their folders (who subscribed a group to
    change notices, the files an unanswered question's answer read, the forum topic each use
    of the model was asked in), and whether a use's tokens were the bot's estimate (the server
    reported none; the uses already recorded were all reported)."""
    _add_column(files.notices, "notice_subscriptions", "subscribed_by", "INTEGER")
    _add_column(files.unanswered, "unanswered", "files", "TEXT NOT NULL DEFAULT '[]'")
    _add_column(files.usage, "usage", "thread_id", "INTEGER")
    _add_column(files.usage, "usage", "estimated", "INTEGER NOT NULL DEFAULT 0")


def _image_tokens(files: DataFiles) -> None:
    """The tokens pictures took in each use of the model (none before pictures were sent)."""
    _add_column(files.usage, "usage", "image_tokens", "INTEGER NOT NULL DEFAULT 0")


STEPS: tuple[DataDirStep, ...] = (
    DataDirStep(2, "an index of the history's open questions", _index_open_turns),
    DataDirStep(
        3,
        "who subscribed a group to notices, files read for unanswered questions, usage by topic "
        "and whether its tokens were estimated",
        _reports_columns,
    ),
    DataDirStep(4, "the tokens pictures took in each use of the model", _image_tokens),
)
"""Every step, oldest first; the last one's version is `DATA_VERSION`."""


def upgrade(
    files: DataFiles,
    *,
    steps: Sequence[DataDirStep] = STEPS,
    current: int = DATA_VERSION,
) -> int:
    """Bring DATA_DIR to `current` and stamp it; returns the version it was at.

    Raises `DataVersionError` for data newer than `current`, an unreadable stamp, or a step
    that failed (the folder then stays at the version before that step).
    """
    stamp = read_stamp(files)
    if stamp.version is None:  # a new DATA_DIR: the stores create the newest schema
        write_stamp(files, current)
        return current
    found = stamp.version
    refuse_newer(found, files.root, current)
    reached = found
    for step in steps:
        if not found < step.version <= current:
            continue
        log.warning(
            "upgrading DATA_DIR from data version %d to %d: %s",
            reached,
            step.version,
            step.summary,
        )
        try:
            step.apply(files)
        except Exception as exc:  # whatever the step raised, its transaction was rolled back
            # and the folder is whole at `reached`: say so and stop
            msg = (
                f"upgrading DATA_DIR {files.root} to data version {step.version} "
                f"({step.summary}) failed: {exc}. That step was rolled back: the data "
                f"stays at version {reached}, which the release that wrote it still reads. "
                "Fix the cause and start again"
            )
            raise DataVersionError(msg) from exc
        reached = step.version
        write_stamp(files, reached)
    if reached != current or not stamp.stamped:
        write_stamp(files, current)
    return found
