"""What the bot deletes on its own, on time: old conversations (HISTORY_DAYS), with the
feedback on their answers, the unanswered questions kept for `/gaps`, the questions sent to
the experts and the tokens counted for budgets and `/usage`, and old trash
(TRASH_DAYS).

`Retention.sweep` does both once; the Telegram wing runs it at start and then every
`interval_s` while the bot runs. A failure is logged and tried again at the next sweep, and
never stops the bot. No aiogram here.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Protocol

from bot.documents.manager import Documents
from bot.process.ticker import Ticker
from bot.settings.model import Settings

log = logging.getLogger(__name__)

DAY_S = 24 * 3600.0
SWEEP_EVERY_S = 3600.0


class AgingHistory(Protocol):
    """What the sweep needs of the history (and of the answers' feedback), whichever database
    keeps it."""

    async def delete_older(self, cutoff: float) -> int:
        """Delete what began before `cutoff` (Unix time); how many."""
        ...


class Retention:
    """Deletes what has been kept long enough; `clock` gives Unix time (tests move it)."""

    def __init__(
        self,
        settings: Settings,
        history: AgingHistory,
        documents: Documents,
        *,
        clock: Callable[[], float] = time.time,
        interval_s: float = SWEEP_EVERY_S,
        feedback: AgingHistory | None = None,
        unanswered: AgingHistory | None = None,
        experts: AgingHistory | None = None,
        usage: AgingHistory | None = None,
    ) -> None:
        self._history_days = settings.history_days
        self._trash_days = settings.trash_days
        self._history = history
        self._documents = documents
        self._clock = clock
        self._ticker = Ticker(self.sweep, lambda: interval_s, name="retention")
        self._feedback = feedback
        self._unanswered = unanswered
        self._experts = experts
        self._usage = usage

    async def sweep(self) -> None:
        """Delete conversations older than HISTORY_DAYS (when set) and trash older than
        TRASH_DAYS; each failure is logged and left for the next sweep."""
        if self._history_days is not None:
            cutoff = self._clock() - self._history_days * DAY_S
            try:
                deleted = await self._history.delete_older(cutoff)
            except Exception:  # a sweep must never stop the bot; the next one tries again
                log.exception("deleting old conversations failed")
            else:
                if deleted:
                    log.info(
                        "deleted %d question(s) older than %d days", deleted, self._history_days
                    )
            await _sweep_kept(self._feedback, cutoff, "the feedback on old answers")
            await _sweep_kept(self._unanswered, cutoff, "old unanswered questions")
            await _sweep_kept(self._experts, cutoff, "old questions to the experts")
            await _sweep_kept(self._usage, cutoff, "the model usage of old questions")
        try:
            purged = await self._documents.purge_trash(self._trash_days * DAY_S)
        except Exception:  # as above
            log.exception("emptying the trash of old items failed")
        else:
            if purged:
                log.info("deleted %d item(s) from the trash for good", purged)

    async def start(self) -> None:
        """Sweep now, then every `interval_s`, in the background."""
        await self._ticker.start()

    async def stop(self) -> None:
        """Stop the background sweeps."""
        await self._ticker.stop()


async def _sweep_kept(store: AgingHistory | None, cutoff: float, what: str) -> None:
    """What is kept like the conversations goes with them: stored before `cutoff`. As for the
    conversations, a failure is logged and the next sweep tries again."""
    if store is None:
        return
    try:
        deleted = await store.delete_older(cutoff)
    except Exception:  # a sweep must never stop the bot
        log.exception("deleting %s failed", what)
    else:
        if deleted:
            log.info("%s: deleted %d past HISTORY_DAYS", what, deleted)
