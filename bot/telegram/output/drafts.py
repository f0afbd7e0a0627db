"""Which chats can show an answer as a message draft (`sendMessageDraft`), learned by trying.

Drafts arrived with Bot API 9.3 and work in private chats only. A server without the method
refuses every chat, so one such refusal turns drafts off for the whole bot; any other refusal
(the chat, or this bot, cannot have drafts) turns them off for that chat. Either way the answer
is then shown by editing a message, as in groups. The memory lives as long as the process: a
restart tries again, once per chat.
"""

from __future__ import annotations

import logging

from aiogram.exceptions import TelegramAPIError, TelegramNotFound

from bot.telegram.output.pacing import EditPacer

log = logging.getLogger(__name__)

DRAFT_INTERVAL_S = 1 / 3
"""Least time between two drafts in one chat: about three updates a second."""

_SWEEP_AT = 10_000
_NO_METHOD = ("method not found", "not found", "unknown method", "not implemented")


class Drafts:
    """Remembers where drafts were refused, and paces them per chat."""

    def __init__(self, interval_s: float = DRAFT_INTERVAL_S) -> None:
        self.pacer = EditPacer(interval_s)
        self._refused: set[int] = set()
        self._missing = False

    def allowed(self, chat_id: int) -> bool:
        """Whether answers in this chat may be shown as drafts."""
        return not self._missing and chat_id not in self._refused

    def refused(self, chat_id: int, error: TelegramAPIError) -> None:
        """Telegram refused a draft in this chat; remember it (for every chat if the method
        itself is missing)."""
        if _method_missing(error):
            if not self._missing:
                log.warning(
                    "the Bot API server has no sendMessageDraft (%s); answers are shown by "
                    "editing a message",
                    error,
                )
            self._missing = True
            return
        log.info("drafts refused in chat %d (%s); editing a message instead", chat_id, error)
        if len(self._refused) >= _SWEEP_AT:
            self._refused.clear()  # bounded: forgetting only costs one more try per chat
        self._refused.add(chat_id)


def _method_missing(error: TelegramAPIError) -> bool:
    if isinstance(error, TelegramNotFound):
        return True
    text = error.message.lower()
    return "method" in text and any(words in text for words in _NO_METHOD)
