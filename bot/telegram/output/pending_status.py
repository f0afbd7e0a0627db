"""At start, the status messages a killed bot left on screen are edited into a notice that the
bot restarted and the question should be sent again (the records are kept by the store in
bot.storage.pending_status).
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time

from aiogram import Bot
from aiogram.exceptions import TelegramAPIError

from bot.storage.errors import StorageError
from bot.storage.pending_status import PendingStatus, PendingStatusStore
from bot.telegram.texts import texts_for

log = logging.getLogger(__name__)


async def tidy_leftovers(
    bot: Bot,
    store: PendingStatusStore,
    *,
    limit: int = 50,
    timeout_s: float = 5.0,
    budget_s: float = 30.0,
) -> int:
    """Edit status messages a previous run left behind into a "please ask again" notice.

    Runs at start-up, before any update is handled, so it is bounded: at most `limit` messages
    (the newest), each call cut after `timeout_s`, none started after `budget_s` in all. A
    message that is gone or cannot be edited is logged and skipped. Every record is forgotten
    afterwards, edited or not. Returns how many were edited.
    """
    try:
        leftovers = await store.leftovers()
    except (sqlite3.Error, OSError, StorageError) as exc:
        log.warning("cannot read the status messages left by the previous run: %s", exc)
        return 0
    if not leftovers:
        return 0
    if len(leftovers) > limit:
        log.warning(
            "%d status messages were left by the previous run; only the newest %d are edited",
            len(leftovers),
            limit,
        )
    edited = 0
    deadline = time.monotonic() + budget_s
    for status in leftovers[:limit]:
        if time.monotonic() >= deadline:
            log.warning("out of time for left-over status messages; the rest stay as they are")
            break
        if await _tell_restarted(bot, status, timeout_s):
            edited += 1
    try:
        await store.drop(leftovers)
    except (sqlite3.Error, OSError, StorageError) as exc:
        log.warning("cannot forget the status messages left by the previous run: %s", exc)
    log.info("edited %d of %d status message(s) left by the previous run", edited, len(leftovers))
    return edited


async def _tell_restarted(bot: Bot, status: PendingStatus, timeout_s: float) -> bool:
    text = texts_for(status.lang).progress_restarted
    try:
        await asyncio.wait_for(
            bot.edit_message_text(
                text=text,
                chat_id=status.chat_id,
                message_id=status.message_id,
                request_timeout=max(1, round(timeout_s)),
            ),
            timeout_s,
        )
    except (TelegramAPIError, TimeoutError) as exc:  # network errors are API errors too
        log.info(
            "left-over status message %d in chat %d not edited: %s",
            status.message_id,
            status.chat_id,
            exc,
        )
        return False
    return True
