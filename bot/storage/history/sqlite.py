"""Conversations on disk: an append-only SQLite log, one writer thread, crash-safe.

Every question is a *turn*. Its messages are appended as the chain runs, and the turn is marked
`done` when the answer is ready (or `failed` when the question ended in an error). Only `done`
turns are ever sent to the model again, so a turn cut off by a crash or an error — which may
hold a call without its result — can never reach a request. Turns still `open` when the store
is opened were cut off by a crash and are marked `interrupted`. A reset starts a new
conversation under the same key and keeps the old one; only `/forget` (a person's own
conversations) and HISTORY_DAYS (turns older than that) delete anything.

The schema is created whole in a new file; an existing file is left as it is, and changes to its
schema are the DATA_DIR upgrade steps' (`bot.datadir.steps`), run before the store opens.

A marker file beside the database exists while it is open (`in_use.py`); finding it at start
with no process holding it means the last run did not close cleanly, and only then is the
file's integrity checked (a full check of a large log on every start would slow it for nothing;
SQLite reports a damaged page it reads). A process opening the log beside another that has it
open (the terminal chat beside a running bot) shares it: it checks nothing, leaves the other's
questions running, and leaves the marker to the other when it closes.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any, TypeVar

from bot.process.data_files import HISTORY_FILE
from bot.storage.history import HistoryUnavailable, Message, Usage, own_conversation_keys
from bot.storage.history.in_use import InUseMarker
from bot.storage.sqlite_thread import Opener, SqliteThread, erasing, transaction
from tools.sqlite import move_aside

logger = logging.getLogger(__name__)

T = TypeVar("T")

_MARKER_SUFFIX = ".in-use"

_SCHEMA_VERSION = 2
_SCHEMA = """
CREATE TABLE IF NOT EXISTS conversations (
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL,
    started_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS conversations_by_key ON conversations (key, id);
CREATE TABLE IF NOT EXISTS turns (
    id INTEGER PRIMARY KEY,
    conversation_id INTEGER NOT NULL REFERENCES conversations (id),
    state TEXT NOT NULL CHECK (state IN ('open', 'done', 'failed', 'interrupted')),
    started_at REAL NOT NULL,
    ended_at REAL,
    usage TEXT
);
CREATE INDEX IF NOT EXISTS turns_by_conversation ON turns (conversation_id, state, id);
CREATE INDEX IF NOT EXISTS turns_open ON turns (id) WHERE state = 'open';
CREATE TABLE IF NOT EXISTS messages (
    id INTEGER PRIMARY KEY,
    turn_id INTEGER NOT NULL REFERENCES turns (id),
    body TEXT NOT NULL,
    created_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS messages_by_turn ON messages (turn_id, id);
"""


class HistoryStore:
    """The conversation log. All SQLite work runs on the store's one thread, in order (the one
    SQLite engine, `bot.storage.sqlite_thread`)."""

    def __init__(
        self,
        thread: SqliteThread,
        marker: InUseMarker,
        *,
        checked: bool,
        path: Path,
        clock: Callable[[], float],
    ) -> None:
        self._thread = thread
        self._marker = marker
        self._path = path
        self._clock = clock
        self._inode = _inode(path)
        self._closed = False
        self.checked = checked  # integrity checked at open, after an unclean shutdown

    @classmethod
    async def open(cls, path: Path, *, clock: Callable[[], float] = time.time) -> HistoryStore:
        """Open (or create) the store at `path`: a file, or a folder to hold `history.sqlite3`.
        `clock` gives Unix time.

        A file that is not a readable database is moved aside (`*.corrupt-<time>`) and a fresh
        one started, so the bot keeps working; the error is logged.
        """
        database = path / HISTORY_FILE if await asyncio.to_thread(path.is_dir) else path
        thread = SqliteThread(
            database,
            _SCHEMA,
            name="history",
            version=_SCHEMA_VERSION,
            foreign_keys=True,
        )
        try:
            marker, checked = await thread.open_with(
                lambda opener: _open_or_quarantine(opener, database, clock)
            )
        except BaseException:
            await thread.close()
            raise
        return cls(thread, marker, checked=checked, path=database, clock=clock)

    async def close(self) -> None:
        """Finish pending writes and close the file."""
        if self._closed:
            return
        self._closed = True
        await self._thread.close(then=self._marker.release)

    async def ping(self) -> None:
        """Raise `HistoryUnavailable` unless the store can serve: open, its file still where it
        was opened (not moved away or replaced), and answering a trivial query."""
        if self._closed:
            msg = "the history store is closed"
            raise HistoryUnavailable(msg)
        await self._run(self._ping)

    def _ping(self, db: sqlite3.Connection) -> None:
        if _inode(self._path) != self._inode:
            msg = f"{self._path.name} is missing from DATA_DIR or was replaced"
            raise HistoryUnavailable(msg)
        try:
            db.execute("SELECT 1 FROM conversations LIMIT 1").fetchall()
        except sqlite3.Error as exc:
            msg = f"the history database does not answer: {exc}"
            raise HistoryUnavailable(msg) from exc

    async def _run(self, function: Callable[..., T], *args: Any) -> T:
        return await self._thread.run(lambda db: function(db, *args))

    # --- writing -------------------------------------------------------------------------------

    async def begin_turn(self, key: str, question: Message) -> int:
        """Start a turn in the key's current conversation with the user's message; its id."""
        return await self._run(self._begin_turn, key, question)

    def _begin_turn(self, db: sqlite3.Connection, key: str, question: Message) -> int:
        now = self._clock()
        with transaction(db):
            conversation = self._current(db, key)
            cursor = db.execute(
                "INSERT INTO turns (conversation_id, state, started_at) VALUES (?, 'open', ?)",
                (conversation, now),
            )
            turn = _row_id(cursor)
            self._insert(db, turn, [question], now)
        return turn

    async def append(self, turn: int, messages: Sequence[Message]) -> None:
        """Add messages to an open turn, in order."""
        await self._run(self._append, turn, list(messages))

    def _append(self, db: sqlite3.Connection, turn: int, messages: list[Message]) -> None:
        with transaction(db):
            self._insert(db, turn, messages, self._clock())

    async def finish_turn(self, turn: int, *, done: bool, usage: Usage | None = None) -> None:
        """Close a turn: `done` turns are sent to the model later, failed ones never."""
        state = "done" if done else "failed"
        usage_text = json.dumps(asdict(usage)) if usage is not None else None
        await self._run(self._finish, turn, state, usage_text)

    def _finish(self, db: sqlite3.Connection, turn: int, state: str, usage: str | None) -> None:
        with transaction(db):
            db.execute(
                "UPDATE turns SET state = ?, ended_at = ?, usage = ? "
                "WHERE id = ? AND state = 'open'",
                (state, self._clock(), usage, turn),
            )

    async def rewrite_question(self, turn: int, question: Message) -> None:
        """Replace an open turn's first message, the user's."""
        await self._run(self._rewrite_question, turn, question)

    def _rewrite_question(self, db: sqlite3.Connection, turn: int, question: Message) -> None:
        with transaction(db):
            db.execute(
                "UPDATE messages SET body = ? WHERE id = "
                "(SELECT min(id) FROM messages WHERE turn_id = ?) "
                "AND turn_id IN (SELECT id FROM turns WHERE id = ? AND state = 'open')",
                (json.dumps(question, ensure_ascii=False), turn, turn),
            )

    async def reset(self, key: str) -> None:
        """Start a new, empty conversation under `key`; the old one stays on disk."""
        await self._run(self._reset, key)

    def _reset(self, db: sqlite3.Connection, key: str) -> None:
        with transaction(db):
            db.execute(
                "INSERT INTO conversations (key, started_at) VALUES (?, ?)", (key, self._clock())
            )

    # --- reading -------------------------------------------------------------------------------

    async def load_turns(self, key: str, limit: int) -> list[list[Message]]:
        """The last `limit` finished turns of the key's current conversation, oldest first."""
        return await self._run(self._load_turns, key, limit)

    def _load_turns(self, db: sqlite3.Connection, key: str, limit: int) -> list[list[Message]]:
        conversation = self._current_id(db, key)
        if conversation is None:
            return []
        rows = db.execute(
            """
            SELECT m.turn_id, m.body FROM messages AS m
            WHERE m.turn_id IN (
                SELECT id FROM turns WHERE conversation_id = ? AND state = 'done'
                ORDER BY id DESC LIMIT ?
            )
            ORDER BY m.turn_id, m.id
            """,
            (conversation, limit),
        ).fetchall()
        turns: dict[int, list[Message]] = {}
        for turn_id, body in rows:
            turns.setdefault(turn_id, []).append(json.loads(body))
        return list(turns.values())

    async def last_usage(self, key: str) -> Usage | None:
        """The accounting of the key's last finished question, if any."""
        return await self._run(self._last_usage, key)

    def _last_usage(self, db: sqlite3.Connection, key: str) -> Usage | None:
        conversation = self._current_id(db, key)
        if conversation is None:
            return None
        row = db.execute(
            "SELECT usage FROM turns WHERE conversation_id = ? AND state = 'done' "
            "AND usage IS NOT NULL ORDER BY id DESC LIMIT 1",
            (conversation,),
        ).fetchone()
        return Usage(**json.loads(row[0])) if row else None

    async def turn_states(self, key: str) -> list[str]:
        """The state of every turn in the key's current conversation, oldest first."""
        return await self._run(self._turn_states, key)

    def _turn_states(self, db: sqlite3.Connection, key: str) -> list[str]:
        conversation = self._current_id(db, key)
        rows = db.execute(
            "SELECT state FROM turns WHERE conversation_id = ? ORDER BY id", (conversation,)
        ).fetchall()
        return [row[0] for row in rows]

    async def conversation_count(self, key: str) -> int:
        """How many conversations (the current one and the reset ones) the key has."""
        return await self._run(self._conversation_count, key)

    def _conversation_count(self, db: sqlite3.Connection, key: str) -> int:
        row = db.execute("SELECT COUNT(*) FROM conversations WHERE key = ?", (key,))
        return int(row.fetchone()[0])

    # --- deleting ------------------------------------------------------------------------------

    async def forget_user(self, user_id: int) -> int:
        """Delete every conversation of one person: their private chat with the bot and its
        topics, and their own conversations in groups (`own_conversation_keys`). Deleted pages
        are overwritten and the write-ahead log emptied, so the text is gone from the file too.
        Returns how many conversations were deleted."""
        return await self._run(self._forget_user, user_id)

    def _forget_user(self, db: sqlite3.Connection, user_id: int) -> int:
        rows = db.execute(
            "SELECT id FROM conversations WHERE key = ? OR key LIKE ? OR key LIKE ?",
            own_conversation_keys(user_id),
        ).fetchall()
        conversations = [int(row[0]) for row in rows]
        self._delete(db, conversations, turns=None)
        return len(conversations)

    async def delete_older(self, cutoff: float) -> int:
        """Delete the questions and answers of turns begun before `cutoff` (Unix time), and
        conversations left with nothing newer; a question still running is kept. Returns how
        many turns were deleted."""
        return await self._run(self._delete_older, cutoff)

    def _delete_older(self, db: sqlite3.Connection, cutoff: float) -> int:
        turns = [
            int(row[0])
            for row in db.execute(
                "SELECT id FROM turns WHERE started_at < ? AND state != 'open'", (cutoff,)
            ).fetchall()
        ]
        rows = db.execute(
            "SELECT c.id FROM conversations AS c WHERE c.started_at < ? AND NOT EXISTS "
            "(SELECT 1 FROM turns AS t WHERE t.conversation_id = c.id "
            "AND (t.started_at >= ? OR t.state = 'open'))",
            (cutoff, cutoff),
        ).fetchall()
        self._delete(db, [int(row[0]) for row in rows], turns=turns)
        return len(turns)

    def _delete(
        self, db: sqlite3.Connection, conversations: list[int], *, turns: list[int] | None
    ) -> None:
        """Delete these conversations whole, and these turns (None: only the conversations')."""
        if not conversations and not turns:
            return
        with erasing(db), transaction(db):
            for conversation in conversations:
                db.execute(
                    "DELETE FROM messages WHERE turn_id IN "
                    "(SELECT id FROM turns WHERE conversation_id = ?)",
                    (conversation,),
                )
                db.execute("DELETE FROM turns WHERE conversation_id = ?", (conversation,))
                db.execute("DELETE FROM conversations WHERE id = ?", (conversation,))
            for turn in turns or ():
                db.execute("DELETE FROM messages WHERE turn_id = ?", (turn,))
                db.execute("DELETE FROM turns WHERE id = ?", (turn,))

    # --- helpers (writer thread only) ----------------------------------------------------------

    def _current_id(self, db: sqlite3.Connection, key: str) -> int | None:
        row = db.execute(
            "SELECT id FROM conversations WHERE key = ? ORDER BY id DESC LIMIT 1", (key,)
        ).fetchone()
        return int(row[0]) if row else None

    def _current(self, db: sqlite3.Connection, key: str) -> int:
        existing = self._current_id(db, key)
        if existing is not None:
            return existing
        cursor = db.execute(
            "INSERT INTO conversations (key, started_at) VALUES (?, ?)", (key, self._clock())
        )
        return _row_id(cursor)

    def _insert(
        self, db: sqlite3.Connection, turn: int, messages: Sequence[Message], now: float
    ) -> None:
        db.executemany(
            "INSERT INTO messages (turn_id, body, created_at) VALUES (?, ?, ?)",
            [(turn, json.dumps(m, ensure_ascii=False), now) for m in messages],
        )


def _inode(path: Path) -> int | None:
    """The file's inode, None when it is gone: a file moved away or replaced changes it."""
    try:
        return path.stat().st_ino
    except OSError:
        return None


def _row_id(cursor: sqlite3.Cursor) -> int:
    if cursor.lastrowid is None:  # pragma: no cover - sqlite always sets it after an INSERT
        msg = "the history database did not return a row id"
        raise RuntimeError(msg)
    return cursor.lastrowid


def _open_or_quarantine(
    opener: Opener, path: Path, clock: Callable[[], float]
) -> tuple[InUseMarker, bool]:
    """The file opened (on the store's thread), its in-use marker, and whether the integrity
    was checked.

    Only the first process to open the log recovers it (checks it, moves a damaged file aside,
    marks cut-off questions): another one beside it must not touch what that one is using.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    marker = InUseMarker.take(path.with_name(path.name + _MARKER_SUFFIX))
    try:
        check = marker.unclean
        if check:
            logger.warning("the history was not closed cleanly last time; checking %s", path.name)
        try:
            _recover(opener(check=check), clock, first=marker.first)
        except sqlite3.DatabaseError as exc:
            if not path.exists() or not marker.first:
                raise
            aside = move_aside(path, clock())
            logger.error("history file %s is unreadable (%s); moved to %s", path, exc, aside.name)
            _recover(opener(), clock, first=True)
    except BaseException:
        marker.abandon()  # left in place: the next start checks the file
        raise
    marker.opened()
    return marker, check


def _recover(connection: sqlite3.Connection, clock: Callable[[], float], *, first: bool) -> None:
    """Turns still open when nobody else has the log open were cut off by a crash. A failure
    closes the connection, so a damaged file is moved aside with nothing holding it."""
    if not first:
        return
    try:
        with transaction(connection):
            interrupted = connection.execute(
                "UPDATE turns SET state = 'interrupted', ended_at = ? WHERE state = 'open'",
                (clock(),),
            ).rowcount
    except BaseException:
        connection.close()
        raise
    if interrupted:
        logger.warning(
            "%d question(s) were cut off by a restart; left out of history", interrupted
        )
