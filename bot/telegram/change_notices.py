"""Change notices sent to their subscribers, in the language each subscribed in, into the forum
topic a subscription was made in.

`ChangeNotices.start` runs the schedule (`bot.digests.notices.schedule`) for the bot it is
given; the schedule records the folder's changes, decides when a digest is due, that this
process is the one sending it and what its chat may be told; this module writes it and sends it.
A chat that cannot be reached (the bot was blocked or removed from the group) costs a log line,
not the other subscribers' digests.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from functools import partial

from aiogram import Bot
from aiogram.exceptions import TelegramAPIError

from bot.digests.notices.audience import Audience
from bot.digests.notices.changes import FolderChanges
from bot.digests.notices.digest import Digest
from bot.digests.notices.schedule import NoticeSchedule
from bot.storage.notices import NoticeStore, Subscription
from bot.telegram.texts.notices import notice_texts

log = logging.getLogger(__name__)


class ChangeNotices:
    """What the digests say and where they go; `clock` gives Unix time."""

    def __init__(
        self,
        source: FolderChanges,
        store: NoticeStore,
        audience: Audience,
        *,
        quiet_s: float,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._source = source
        self._store = store
        self._audience = audience
        self.quiet_s = quiet_s
        self._clock = clock
        self._running: NoticeSchedule | None = None

    def schedule(self, bot: Bot) -> NoticeSchedule:
        """A schedule sending through `bot` (tests tick it by hand)."""
        return NoticeSchedule(
            self._source,
            self._store,
            self._audience,
            partial(self.send, bot),
            quiet_s=self.quiet_s,
            clock=self._clock,
        )

    async def start(self, bot: Bot) -> None:
        """Take the folder's starting point, then record and send in the background, until
        `stop`."""
        if self._running is None:
            self._running = self.schedule(bot)
            await self._running.start()

    async def stop(self) -> None:
        """Stop the background schedule."""
        if self._running is not None:
            await self._running.stop()
            self._running = None

    async def send(self, bot: Bot, subscription: Subscription, told: Digest) -> bool:
        """One digest to its chat; whether it got there."""
        text = notice_texts(subscription.language).digest(told)
        try:
            await bot.send_message(
                subscription.chat_id,
                text,
                message_thread_id=subscription.thread_id,
                parse_mode="HTML",
            )
        except TelegramAPIError as exc:  # blocked, removed from the group, the chat gone
            log.warning("a change notice did not reach chat %d: %s", subscription.chat_id, exc)
            return False
        log.info(
            "change notice about %d document(s) sent to chat %d",
            len(told.items),
            subscription.chat_id,
        )
        return True
