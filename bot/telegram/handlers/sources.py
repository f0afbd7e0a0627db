"""A tap on a source button under an answer: the document (or, for a page button, that page
drawn as a picture) is sent to the chat, if it may be.

The access check has let the user through already (a stranger's tap never gets here). This
checks the rest at every tap: the button's id is known and not expired, the tap comes from the
chat the answer went to (in a private chat, from its user; in a group, from any member the bot
serves there, as everyone in it saw the answer), the file is inside the scope the tapper would
be answered within there now (a scope narrowed since the answer counts), and the file is still
inside the documents folder. Every tap is answered (`answerCallbackQuery`), so the client's
spinner stops, and a button the bot no longer knows, ours or not, gets a short answer instead
of silence.

A page is drawn by the toolbox's worker, which takes a moment the first time: the tap waits
for it a little (`Tuning.page_answer_s`), so that a page that is not there gets a pop-up like
every other refusal; a slower page is announced at once, with "sending a photo…" shown while
it is drawn, and its failure, if any, is told in the chat.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from aiogram import Bot, F, Router
from aiogram.exceptions import TelegramAPIError
from aiogram.types import CallbackQuery

from bot.access import AccessPolicy
from bot.settings.model import Settings
from bot.storage.source_links import SourceLink, SourceLinks
from bot.telegram.context import ChatContext
from bot.telegram.handlers.filters import Matches
from bot.telegram.output.pacing import ChatPlace
from bot.telegram.output.page_photos import PagePhotos
from bot.telegram.output.source_buttons import PAGE_PREFIX, PREFIX, link_id_of
from bot.telegram.output.source_files import SourceFile, SourceSender, within_scope
from bot.telegram.texts import Texts
from bot.telegram.tuning import Tuning
from tools import Toolbox
from tools.errors import (
    ContentError,
    ExtractionError,
    NoSuchPageError,
    NotPagedError,
    SandboxError,
)
from tools.jail.scope import Scope

log = logging.getLogger(__name__)


def make_router() -> Router:
    """Source and page buttons, then any other button no handler took."""
    router = Router(name="sources")
    router.callback_query.register(on_source, Matches(F.data.startswith(PREFIX)))
    router.callback_query.register(on_page, Matches(F.data.startswith(PAGE_PREFIX)))
    router.callback_query.register(on_unknown_button)
    return router


@dataclass(frozen=True, slots=True)
class _Tap:
    """A tap that passed the checks: what its button stands for, the tapper's scope now, and
    where to answer."""

    link: SourceLink
    source: SourceFile
    scope: Scope | None
    place: ChatPlace


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
    found = await _looked_up(query, link_id_of(query.data), source_links.find, texts)
    tap = await _checked(query, found, access=access, toolbox=toolbox, chat_context=chat_context)
    if tap is None:
        return
    await _answer(query, texts.source_sending, alert=False)
    sender = SourceSender(bot, tap.place, texts, tuning, local_api=settings.telegram_api_local)
    await sender.send(tap.source, toolbox, scope=tap.scope)


async def on_page(
    query: CallbackQuery,
    *,
    bot: Bot,
    access: AccessPolicy,
    source_links: SourceLinks,
    toolbox: Toolbox,
    tuning: Tuning,
    chat_context: ChatContext,
) -> None:
    """Send the page behind the button as a photo, or say why not."""
    texts = chat_context.texts
    link_id = link_id_of(query.data, PAGE_PREFIX)
    found = await _looked_up(query, link_id, source_links.find_page, texts)
    tap = await _checked(query, found, access=access, toolbox=toolbox, chat_context=chat_context)
    if tap is None:
        return
    page = tap.link.page
    if page is None:  # a page link always has one
        await _answer(query, texts.source_expired)
        return
    photos = PagePhotos(bot, tap.place, texts, tuning)
    drawing = asyncio.ensure_future(toolbox.page_picture(tap.link.path, page, scope=tap.scope))
    await asyncio.wait({drawing}, timeout=tuning.page_answer_s)
    if drawing.done():
        problem = _problem(drawing, texts, page, tap.link.path)
        await _answer(query, problem or "", alert=problem is not None)
        if problem is not None:
            return
    else:
        await _answer(query, texts.page_drawing.format(page=page), alert=False)
        await photos.uploading()
        await asyncio.wait({drawing})
        problem = _problem(drawing, texts, page, tap.link.path)
        if problem is not None:
            await photos.tell(problem)
            return
    await photos.send(tap.link.path, page, drawing.result())


async def _checked(
    query: CallbackQuery,
    found: SourceLink | None,
    *,
    access: AccessPolicy,
    toolbox: Toolbox,
    chat_context: ChatContext,
) -> _Tap | None:
    """The tap, if its button's `found` link may still be opened here; None once the tap has
    been answered with why not."""
    pressed = query.message
    if found is None or pressed is None:
        return None
    texts = chat_context.texts
    if not _may_open(found, pressed.chat.id, query.from_user.id, chat_context, access):
        log.info(
            "user %d may not open a source button in chat %d", query.from_user.id, pressed.chat.id
        )
        await _answer(query, texts.button_no_access)
        return None
    scope = await chat_context.scope()
    source = await within_scope(toolbox, scope, found.path)
    if source == "outside":
        log.info("a source button is outside user %d's scope", query.from_user.id)
        await _answer(query, texts.button_no_access)
        return None
    if source == "gone":
        await _answer(query, texts.source_gone)
        return None
    place = ChatPlace(
        chat_id=pressed.chat.id,
        thread_id=chat_context.place.thread_id,
        reply_to=pressed.message_id,
    )
    return _Tap(found, source, scope, place)


async def _looked_up(
    query: CallbackQuery,
    link_id: str | None,
    find: Callable[[str], Awaitable[SourceLink | None]],
    texts: Texts,
) -> SourceLink | None:
    """What the button's id stands for; None once the tap has been answered with why not (an
    unusable, unknown or expired id, or a store that cannot be read)."""
    if link_id is None or query.message is None:
        log.debug("a source button with unusable data %r", (query.data or "")[:80])
        await _answer(query, texts.source_expired)
        return None
    try:
        link = await find(link_id)
    except (sqlite3.Error, OSError) as exc:
        log.warning("source button %s could not be looked up: %s", link_id, exc)
        await _answer(query, texts.error_generic)
        return None
    if link is None:
        log.debug("source button %s is unknown or expired", link_id)
        await _answer(query, texts.source_expired)
    return link


def _problem(drawing: asyncio.Future[bytes], texts: Texts, page: int, rel: str) -> str | None:
    """Why a drawn page cannot be sent, in the user's words; None when it can."""
    error = drawing.exception()
    if error is None:
        return None
    if isinstance(error, NoSuchPageError):
        log.info("page %d of %r is not there: %s", page, rel, error.message)
        return texts.page_missing.format(page=page)
    if isinstance(error, SandboxError):
        log.info("page %d of %r: the file is gone: %s", page, rel, error.message)
        return texts.source_gone
    if isinstance(error, ContentError | NotPagedError):
        log.warning("page %d of %r cannot be drawn: %s", page, rel, error.message)
        return texts.page_failed.format(page=page)
    if isinstance(error, ExtractionError):
        log.warning("page %d of %r is not drawn now: %s", page, rel, error.message)
        return texts.page_later.format(page=page)
    log.error("page %d of %r failed", page, rel, exc_info=error)
    return texts.page_failed.format(page=page)


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
