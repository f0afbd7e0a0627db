"""What the index holds of each visible document: indexed, failed (with why), or not yet.

An admin looking at the documents folder wants to know which files the bot can answer from and
which it cannot: a file whose text could not be extracted is stored by name with its error, and
a file the indexer has not reached yet (a scan being recognised, a batch just dropped in) is not
stored at all.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

State = Literal["indexed", "failed", "waiting"]


@dataclass(frozen=True, slots=True)
class DocumentState:
    """One visible document: its path, size in bytes, and how far the index has it."""

    path: str
    size: int
    state: State
    error: str | None = None


def stored_errors(conn: sqlite3.Connection) -> dict[str, str | None]:
    """Every file the index has stored, with its error (None when its text is in)."""
    rows = conn.execute("SELECT path, error FROM files").fetchall()
    return {str(path): (None if error is None else str(error)) for path, error in rows}


def document_states(
    visible: Mapping[str, tuple[int, int]], stored: Mapping[str, str | None]
) -> list[DocumentState]:
    """The state of each visible file (path: (size, mtime)), sorted by path."""
    states = []
    for path in sorted(visible):
        size = visible[path][0]
        if path not in stored:
            states.append(DocumentState(path, size, "waiting"))
        elif (error := stored[path]) is not None:
            states.append(DocumentState(path, size, "failed", error))
        else:
            states.append(DocumentState(path, size, "indexed"))
    return states
