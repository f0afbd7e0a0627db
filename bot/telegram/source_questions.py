"""The question about a held-back mass deletion, sent to every admin who may see the source.

When a source's pass would delete more of its folder than SOURCE_MAX_DELETE_PERCENT allows, it
deletes nothing and asks once per set (`Sources.on_ask`). Each admin (ADMIN_IDS and those
granted in Telegram) whose folders hold the source's folder gets the question in the language
they last used, naming a few of the files, with "Delete them" and "Keep" buttons that carry the
set's token (`handlers.source_sync`). An admin who cannot be reached costs a log line, not the
others' questions; a scoped admin is not told of a source outside their folders at all.
"""

from __future__ import annotations

import logging

from aiogram.exceptions import TelegramAPIError
from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup

from bot.documents.sources.runner import SourceStatus
from bot.settings.scopes.viewer import sees
from bot.telegram.handlers.source_sync import SourceTap, source_key
from bot.telegram.source_admins import SourceAdmins
from bot.telegram.texts.sources import SourcesTexts

log = logging.getLogger(__name__)


class SourceQuestions(SourceAdmins):
    """Who is asked about a held-back deletion, and what they are shown."""

    async def ask(self, status: SourceStatus) -> None:
        """Ask every admin who may see the source (`Sources.on_ask`'s callback)."""
        pending = status.pending
        if pending is None or self._bot is None:
            return
        asked = 0
        paths = [f"{status.folder}/{p}" for p in pending.paths]
        async for admin in self.seeing(status.folder):
            texts = admin.texts
            try:
                await self._bot.send_message(
                    admin.chat_id,
                    texts.ask(status, [p for p in paths if sees(admin.viewer, p)]),
                    parse_mode="HTML",
                    reply_markup=question_buttons(texts, status.name, pending.token),
                )
            except TelegramAPIError as exc:  # a chat the admin never opened, or blocked
                log.warning(
                    "the question about source %s's deletions did not reach %d: %s",
                    status.name,
                    admin.chat_id,
                    exc,
                )
            else:
                asked += 1
        log.info(
            "source %s: %d admin(s) asked about deleting %d of %d files",
            status.name,
            asked,
            pending.count,
            pending.total,
        )


def question_buttons(texts: SourcesTexts, name: str, token: str) -> InlineKeyboardMarkup:
    """ "Delete them" and "Keep", both carrying the source and the set's token."""
    key = source_key(name)
    return InlineKeyboardMarkup(
        inline_keyboard=[
            [
                InlineKeyboardButton(
                    text=texts.confirm_button,
                    callback_data=SourceTap(act="y", key=key, token=token).pack(),
                ),
                InlineKeyboardButton(
                    text=texts.keep_button,
                    callback_data=SourceTap(act="n", key=key, token=token).pack(),
                ),
            ]
        ]
    )
