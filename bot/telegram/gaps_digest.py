"""The digest of unanswered questions, sent to every admin in the language they last used.

`GapsDigest.start` runs the schedule (`bot.digests.gaps.schedule`) for the bot it is given; the
schedule decides when a digest is due and that this process is the one sending it, this module
what it says and to whom: each admin (ADMIN_IDS and those granted in Telegram), the questions
within their own folders (as `/gaps` shows them), nothing when none went unanswered. An admin
who cannot be reached (never opened the chat, blocked the bot) costs a log line, not the others'
digests.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from functools import partial

from aiogram import Bot
from aiogram.exceptions import TelegramAPIError

from bot.access import AccessPolicy
from bot.digests.gaps.report import GapReport
from bot.digests.gaps.schedule import DigestSchedule, Every
from bot.settings.scopes import Scopes
from bot.storage.unanswered import UnansweredLog
from bot.telegram.texts.gaps import gaps_texts

log = logging.getLogger(__name__)


class GapsDigest:
    """Who gets the digest and what it says; `clock` gives Unix time."""

    def __init__(
        self,
        every: Every,
        store: UnansweredLog,
        report: GapReport,
        access: AccessPolicy,
        scopes: Scopes,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._every = every
        self._store = store
        self._report = report
        self._access = access
        self._scopes = scopes
        self._clock = clock
        self._running: DigestSchedule | None = None

    def schedule(self, bot: Bot) -> DigestSchedule:
        """A schedule sending through `bot` (tests tick it by hand)."""
        return DigestSchedule(self._every, self._store, partial(self.send, bot), clock=self._clock)

    async def start(self, bot: Bot) -> None:
        """Send a digest missed while the bot was down, then each one when due, in the
        background, until `stop`."""
        if self._running is None:
            self._running = self.schedule(bot)
            await self._running.start()

    def wake(self) -> None:
        """Look at the clock again now instead of at the next moment due."""
        if self._running is not None:
            self._running.wake()

    async def stop(self) -> None:
        """Stop the background schedule."""
        if self._running is not None:
            await self._running.stop()
            self._running = None

    async def send(self, bot: Bot, start: float, end: float) -> int:
        """The questions of [start, end), grouped, to every admin who may see some of them;
        how many got it."""
        sent = 0
        for admin in sorted(self._access.admin_ids()):
            viewer = await self._scopes.of_viewer(admin)
            gaps = await self._report.between(start, end, viewer=viewer)
            if not gaps:
                continue
            texts = gaps_texts(self._access.language(admin) or "en")
            try:
                await bot.send_message(admin, texts.listing(gaps, start=start), parse_mode="HTML")
            except TelegramAPIError as exc:  # a chat the admin never opened, or blocked
                log.warning("the digest of unanswered questions did not reach %d: %s", admin, exc)
            else:
                sent += 1
        return sent
