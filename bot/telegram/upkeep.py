"""What runs beside the handlers and no handler asks for: the retention sweeps, the digest of
unanswered questions, the sources' questions and notices to admins, and the status records
tidied at start.

They reach the start-up and shutdown hooks as one workflow entry, `upkeep`, rather than one
each. aiogram copies an update's data dict at every layer between the Dispatcher and the
handler, and a chat waiting for its answer holds some twenty-five of those copies; CPython
doubles a dict's table past 42 entries (0.8 KB a copy, then 1.6 KB), so every entry the
handlers never read costs each waiting chat room it does not need. `DATA_ENTRIES` is that
bound; the tests hold a question's data under it.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.documents.retention import Retention
from bot.storage.pending_status import PendingStatusStore
from bot.telegram.gaps_digest import GapsDigest
from bot.telegram.source_notices import SourceNotices
from bot.telegram.source_questions import SourceQuestions

DATA_ENTRIES = 42
"""The most entries an update's data may have and still take CPython's smaller dict table."""


@dataclass(frozen=True, slots=True)
class Upkeep:
    """The background work the Dispatcher starts and stops, and no handler reads."""

    retention: Retention
    gaps_digest: GapsDigest
    source_questions: SourceQuestions
    source_notices: SourceNotices
    pending_status: PendingStatusStore
