"""A tap on a source button under an answer: the document is sent to the chat, if it may be.

The access check has let the user through already (a stranger's tap never gets here). This
checks the rest at every tap: the button's id is known and not expired, the tap comes from the
chat the answer went to (in a private chat, from its user; in a group, from any member the bot
serves there, as everyone in it saw the answer), the file is inside the scope the tapper would
be answered within there now (a scope narrowed since the answer counts), and the file is still
inside the documents folder. Every tap is answered (`answerCallbackQuery`), so the client's
spinner stops, and a button the bot no longer knows, ours or not, gets a short answer instead
of silence.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3

from aiogram import Bot, F, Router
from aiogram.exceptions import TelegramAPIError
from aiogram.types import CallbackQuery

from bot.access import AccessPolicy
from bot.settings.model import Settings
from bot.storage.source_links import SourceLink, SourceLinks
from bot.telegram.context import ChatContext
from bot.telegram.output.pacing import ChatPlace
from bot.telegram.output.source_buttons import PREFIX, link_id_of
from bot.telegram.output.source_files import SourceSender, locate
from bot.telegram.tuning import Tuning
from tools import Toolbox

log = logging.getLogger(__name__)


def make_router() -> Router:
    """Source buttons, then any other button no handler took."""
    router = Router(name="sources")
    router.callback_query.register(on_source, F.data.startswith(PREFIX))
    router.callback_query.register(on_unknown_button)
    return router


async def on_source(
    query: CallbackQuery,
    *,
    bot: Bot,
    settings: Settings,
    access: AccessPolicy,
    source_links: SourceLinks,
    toolbox: Toolbox,
    tuning: Tuning,
    chat_context: ChatContext,
) -> None:
    """Send the document behind the button, or say in a pop-up why not."""
    texts = chat_context.texts
    link_id = link_id_of(query.data)
    pressed = query.message
    if link_id is None or pressed is None:
        log.debug("a source button with unusable data %r", (query.data or "")[:80])
        await _answer(query, texts.source_expired)
        return
    try:
        link = await source_links.find(link_id)
    except (sqlite3.Error, OSError) as exc:
        log.warning("source button %s could not be looked up: %s", link_id, exc)
        await _answer(query, texts.error_generic)
        return
    if link is None:
        log.debug("source button %s is unknown or expired", link_id)
        await _answer(query, texts.source_expired)
        return
    if not _may_open(link, pressed.chat.id, query.from_user.id, chat_context, access):
        log.info(
            "user %d may not open source button %s in chat %d",
            query.from_user.id,
            link_id,
            pressed.chat.id,
        )
        await _answer(query, texts.button_no_access)
        return
    scope = await chat_context.scope()
    jail = toolbox.sandbox.within(scope)
    if not await asyncio.to_thread(jail.admits_file, link.path):
        log.info("source button %s is outside user %d's scope", link_id, query.from_user.id)
        await _answer(query, texts.button_no_access)
        return
    source = await asyncio.to_thread(locate, jail, link.path)
    if source is None:
        await _answer(query, texts.source_gone)
        return
    await _answer(query, texts.source_sending, alert=False)
    place = ChatPlace(
        chat_id=pressed.chat.id,
        thread_id=chat_context.place.thread_id,
        reply_to=pressed.message_id,
    )
    sender = SourceSender(bot, place, texts, tuning, local_api=settings.telegram_api_local)
    await sender.send(source, toolbox, scope=scope)


async def on_unknown_button(query: CallbackQuery, *, chat_context: ChatContext) -> None:
    """A button from an older version of the bot, or data no handler understands."""
    log.debug("a button no handler took: %r", (query.data or "")[:80])
    await _answer(query, chat_context.texts.source_expired)


def _may_open(
    link: SourceLink, chat_id: int, user_id: int, context: ChatContext, access: AccessPolicy
) -> bool:
    """Whether the tap comes from where the answer went, by someone it was for."""
    if link.chat_id != chat_id:
        return False
    if context.is_group:
        return access.may_answer_in_group(chat_id)
    return user_id == chat_id


async def _answer(query: CallbackQuery, text: str, *, alert: bool = True) -> None:
    """Answer the tap; an answer Telegram no longer takes (a stale query) is only logged."""
    try:
        await query.answer(text, show_alert=alert)
    except TelegramAPIError as exc:
        log.info("could not answer a button tap: %s", exc)
