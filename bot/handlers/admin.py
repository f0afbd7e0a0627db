"""Admins: documents sent in a private chat are added to the sandbox; /reindex rebuilds."""

from __future__ import annotations

import logging
from html import escape

from aiogram import Bot, F, Router
from aiogram.exceptions import TelegramAPIError
from aiogram.filters import Command, MagicData
from aiogram.types import Message

from bot.config import Settings
from bot.handlers.replies import say, user_texts
from bot.handlers.tuning import Tuning
from bot.texts import Texts
from bot.uploads import UploadError, save_upload
from tools import Toolbox

log = logging.getLogger(__name__)


def make_router() -> Router:
    """Admin-only handlers; the access rule sits on the router once."""
    router = Router(name="admin")
    router.message.filter(MagicData(F.is_admin))
    router.message.register(on_reindex, Command("reindex"))
    router.message.register(on_document, F.document, F.chat.type == "private")
    return router


async def on_document(
    message: Message, *, bot: Bot, toolbox: Toolbox, settings: Settings, tuning: Tuning
) -> None:
    """Save the document (the caption names a folder) and say whether its text was read."""
    texts = user_texts(message)
    assert message.document is not None
    try:
        saved = await save_upload(
            bot, message.document, message.caption, toolbox, settings.max_upload_mb
        )
    except UploadError as exc:
        log.warning("upload of %r refused: %s", message.document.file_name, exc)
        await say(bot, message, _upload_problem(texts, exc, settings), tuning)
        return
    except TelegramAPIError as exc:
        # The error text may quote a download URL, which carries the token: log it only.
        log.warning("upload of %r failed: %s", message.document.file_name, exc)
        await say(bot, message, texts.upload_failed.format(error="Telegram"), tuning)
        return
    await say(bot, message, texts.upload_saved(saved.path, saved.chars, saved.error), tuning)


def _upload_problem(texts: Texts, exc: UploadError, settings: Settings) -> str:
    if exc.kind == "too_big":
        return texts.upload_too_big_reply(exc.size / 1024 / 1024, settings.max_upload_mb)
    if exc.kind == "too_big_for_server":
        return texts.upload_too_big_for_server
    if exc.kind == "bad_folder":
        return texts.upload_bad_folder.format(error=escape(exc.detail))
    if exc.kind == "disk_full":
        return texts.upload_disk_full
    return texts.upload_failed.format(error=escape(exc.detail or exc.kind))


async def on_reindex(message: Message, *, bot: Bot, toolbox: Toolbox, tuning: Tuning) -> None:
    """Rebuild the whole index and report the counts."""
    texts = user_texts(message)
    await say(bot, message, texts.reindex_started, tuning)
    try:
        report = await toolbox.reindex()
    except Exception:  # a failed rebuild must still get a reply; the trace goes to the log
        log.exception("reindex failed")
        await say(bot, message, texts.reindex_failed, tuning)
        return
    log.info(
        "reindex: %d indexed, %d skipped, %d errors in %.1f s",
        report.indexed,
        report.skipped,
        len(report.errors),
        report.seconds,
    )
    text = texts.reindex_report(report.indexed, report.skipped, len(report.errors), report.seconds)
    await say(bot, message, text, tuning)
