"""The notices that a source broke, still fails or works again, sent to every admin who may see it.

`Sources.on_health` decides when (once when a source's listing fails after it worked or at its
first pass, at most once a day while it keeps failing, once when it works again) and keeps what
was told, so a restart does not repeat it. Here: who hears it and in what words. Each admin
(ADMIN_IDS and those granted in Telegram) whose folders hold the source's folder gets one message
in the language they last used; the reason is the engine's line, which holds no secret. An admin
who cannot be reached costs a log line, not the others' notices.
"""

from __future__ import annotations

import logging

from aiogram.exceptions import TelegramAPIError

from bot.documents.sources.health import Health
from bot.documents.sources.runner import SourceStatus
from bot.telegram.source_admins import SourceAdmins

log = logging.getLogger(__name__)


class SourceNotices(SourceAdmins):
    """Who hears how a source works, and what they are told."""

    async def tell(self, status: SourceStatus, health: Health) -> None:
        """Tell every admin who may see the source (`Sources.on_health`'s callback)."""
        if self._bot is None:
            return
        told = 0
        async for admin in self.seeing(status.folder):
            try:
                await self._bot.send_message(
                    admin.chat_id, admin.texts.health(status, health), parse_mode="HTML"
                )
            except TelegramAPIError as exc:  # a chat the admin never opened, or blocked
                log.warning(
                    "the notice that source %s %s did not reach %d: %s",
                    status.name,
                    health.event,
                    admin.chat_id,
                    exc,
                )
            else:
                told += 1
        log.info("source %s: %d admin(s) told it %s", status.name, told, health.event)
