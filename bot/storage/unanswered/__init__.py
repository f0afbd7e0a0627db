"""Questions the documents could not answer, kept so admins learn which documents are missing.

A question is marked when no document was read for it, when every search it made found
nothing, when its answer was labelled not from the documents, or when its asker said so with a
👎. Each mark keeps the question's own words (cut to `MAX_QUESTION`), where and by whom it was
asked, the asker's language and the files its answer read (so an admin is shown only questions
whose files lie within their folders), never the answer. They are deleted by the history's rules:
after HISTORY_DAYS (`delete_older`) and with the asker's `/forget` (`forget_user`).

The same store keeps when the last digest of them went out (`claim_digest`): one row that only
one process can move forward per digest, so a restart neither resends nor skips one and several
workers send it once. `SqliteUnanswered` (sqlite.py) keeps both in a small file in DATA_DIR,
`PostgresUnanswered` (postgres.py) in the shared database.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

Reason = Literal["no_documents", "nothing_found", "not_from_documents", "feedback"]
"""Why a question counts as unanswered: no document read, every search empty, the answer
labelled not from the documents, or a 👎 "not in the documents"."""

MAX_QUESTION = 500
"""Characters of a question kept: enough to see what was asked, never a pasted document."""

MAX_READ = 2000
"""Marks read back at most for one listing (the newest), however many a week held."""


@dataclass(frozen=True, slots=True)
class UnansweredQuestion:
    """One question the documents could not answer."""

    question: str
    chat_id: int
    user_id: int | None
    conversation: str
    language: str
    reason: Reason
    asked_at: float
    """Unix time."""
    files: tuple[str, ...] = ()
    """The files its answer read (a question marked unanswered may still have read some)."""


class UnansweredLog(Protocol):
    """Where unanswered questions are marked and read back, and the digest's schedule."""

    async def mark(
        self,
        question: str,
        *,
        chat_id: int,
        user_id: int | None,
        conversation: str,
        language: str,
        reason: Reason,
        files: Sequence[str] = (),
    ) -> None:
        """Keep one question (its first `MAX_QUESTION` characters) and the files its answer
        read, stamped now."""

    async def since(self, start: float, end: float | None = None) -> list[UnansweredQuestion]:
        """Questions marked at `start` or later (and before `end`), oldest first; the newest
        `MAX_READ` when there are more."""

    async def delete_older(self, cutoff: float) -> int:
        """Delete questions marked before `cutoff` (Unix time); how many."""

    async def forget_user(self, user_id: int) -> int:
        """Delete every question one person asked; how many."""

    async def claim_digest(self, due: float) -> float | None:
        """Take the digest due at `due` (Unix time) for this process: the time of the digest
        before it (0.0 for the first), or None when it was taken already, by this process
        before a restart or by another one."""

    async def close(self) -> None:
        """Finish the writes asked for and release the storage."""


def files_json(files: Sequence[str]) -> str:
    """The files read, as the `files` column keeps them on both backends."""
    return json.dumps(list(files), ensure_ascii=False)


def files_of(text: str) -> tuple[str, ...]:
    """The `files` column read back."""
    return tuple(str(f) for f in json.loads(text))


def bounded(question: str) -> str:
    """The part of a question that is kept."""
    return question.strip()[:MAX_QUESTION]
