"""Admins: documents sent in a private chat are added to the sandbox; /reindex rebuilds.

A document an admin posts in a group gets a pointer to the private chat instead.
"""

from __future__ import annotations

import asyncio
import logging

from aiogram import Bot, F, Router
from aiogram.exceptions import TelegramAPIError
from aiogram.filters import Command, MagicData
from aiogram.types import Message

from bot.settings.model import Settings
from bot.storage.albums import AlbumMemory
from bot.storage.audit import AuditLog
from bot.telegram.context import ChatContext
from bot.telegram.handlers.filters import Matches, addressed
from bot.telegram.handlers.private import in_private
from bot.telegram.handlers.replies import say
from bot.telegram.tuning import Tuning
from bot.telegram.uploads import (
    UploadError,
    names_a_folder,
    safe_file_name,
    save_upload,
    upload_problem,
)
from tools import Toolbox
from tools.extract.formats.ocrnote import NEEDS_OCR

log = logging.getLogger(__name__)


def make_router() -> Router:
    """Admin-only handlers; the access rule sits on the router once."""
    router = Router(name="admin")
    router.message.filter(MagicData(F.is_admin))
    router.message.register(on_reindex, Command("reindex"))
    router.message.register(on_document, Matches(F.document), in_private)
    router.message.register(on_document_in_group, Matches(F.document), addressed)
    return router


async def on_document_in_group(
    message: Message, *, bot: Bot, tuning: Tuning, albums: AlbumMemory, chat_context: ChatContext
) -> None:
    """Uploads happen in private chats only, where the reply with the saved path stays private."""
    if not await albums.first_item(message.media_group_id, "told"):
        return
    await say(bot, chat_context, chat_context.texts.upload_in_private, tuning)


async def on_document(
    message: Message,
    *,
    bot: Bot,
    toolbox: Toolbox,
    settings: Settings,
    tuning: Tuning,
    albums: AlbumMemory,
    audit: AuditLog,
    chat_context: ChatContext,
) -> None:
    """Save the document (a path-like caption names the folder); say whether its text was read.

    It lands inside the admin's scope in this chat (without a caption, in its first folder), as
    a question there would see it. The upload is written to the audit log once the file is in
    place."""
    texts = chat_context.texts
    assert message.document is not None
    scope = await chat_context.scope()
    caption = (message.caption or "").strip()
    group = message.media_group_id
    if caption:
        named = await asyncio.to_thread(names_a_folder, toolbox.sandbox, caption, scope)
        folder = caption if named else None
        if group is not None:
            await albums.remember(group, folder or "")
    else:
        folder = await albums.recall(group)
    try:
        saved = await save_upload(
            bot, message.document, folder, toolbox, settings.max_upload_mb, scope=scope
        )
    except UploadError as exc:
        log.warning("upload of %r refused: %s", message.document.file_name, exc)
        name = safe_file_name(message.document.file_name, message.document.mime_type)
        reply = upload_problem(texts, exc, settings.max_upload_mb, folder, scope=scope, name=name)
        await say(bot, chat_context, reply, tuning)
        return
    except TelegramAPIError as exc:
        # The error text may quote a download URL, which carries the token: log it only.
        log.warning("upload of %r failed: %s", message.document.file_name, exc)
        await say(bot, chat_context, texts.upload_download_failed, tuning)
        return
    if message.from_user is not None:
        user = message.from_user
        await audit.record("upload", saved.path, actor_id=user.id, actor_name=user.full_name)
    if saved.error is not None:
        log.info("no text from upload %s: %s", saved.path, saved.error)
    pages = await toolbox.recognised_pages(saved.path) if saved.error is None else None
    reply = texts.upload_saved(
        saved.path, saved.chars, readable=saved.error is None, ocr_pages=pages
    )
    if caption and folder is None:
        reply += "\n" + texts.caption_not_folder
    await say(bot, chat_context, reply, tuning)


async def on_reindex(
    message: Message, *, bot: Bot, toolbox: Toolbox, tuning: Tuning, chat_context: ChatContext
) -> None:
    """Rebuild the whole index and report the counts."""
    texts = chat_context.texts
    await say(bot, chat_context, texts.reindex_started, tuning)
    try:
        report = await toolbox.reindex()
    except Exception:  # a failed rebuild must still get a reply; the trace goes to the log
        log.exception("reindex failed")
        await say(bot, chat_context, texts.reindex_failed, tuning)
        return
    log.info(
        "reindex: %d indexed, %d skipped, %d errors in %.1f s",
        report.indexed,
        report.skipped,
        len(report.errors),
        report.seconds,
    )
    needs_ocr = sum(1 for error in report.errors if NEEDS_OCR in error)
    text = texts.reindex_report(
        report.indexed, report.skipped, len(report.errors), report.seconds, needs_ocr=needs_ocr
    )
    await say(bot, chat_context, text, tuning)
