"""Inline answers: the documents found as results, the card a chosen one posts, and the answers
with no results (an empty query, nothing found, a stranger).

A chosen result posts a card into the chat the query was typed in: the document's name, folder,
matching line and place, and one URL button. The button opens the bot's private chat with a
deep link (`https://t.me/BOT?start=doc_ID`) whose id comes from `SourceLinks`; the file itself
is sent there, to whoever taps, after their own access and scope are checked at that moment.
The card never carries the file, since the chat's members may not be allowed to read it.

Every answer is personal (`is_personal`: what one user finds is not shown to another) and
Telegram keeps it only a few seconds, so a grant, a narrowed scope or a new document shows soon.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence

from aiogram.exceptions import TelegramAPIError
from aiogram.types import (
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InlineQuery,
    InlineQueryResultArticle,
    InlineQueryResultsButton,
    InputTextMessageContent,
    LinkPreviewOptions,
)

from bot.storage.source_links import ID_PATTERN
from bot.telegram.inline_search import FoundDocument
from bot.telegram.texts.inline import InlineTexts
from bot.telegram.texts.names import visible

log = logging.getLogger(__name__)

LINK_PREFIX = "doc_"
"""What a deep link's start parameter begins with; the rest is a `SourceLinks` id."""
_LINK = re.compile(rf"{LINK_PREFIX}(?P<id>{ID_PATTERN.pattern})")
CACHE_TIME_S = 5
"""How long Telegram may show an answer again without asking."""
REQUEST_ACCESS = "access"
"""The start parameter of a stranger's button: /start from a stranger asks the admins."""
OPEN_CHAT = "search"
"""The start parameter of the other buttons: the private chat's /start greeting."""


def deep_link(username: str, link_id: str) -> str:
    """The link that opens the bot's private chat and sends the document behind `link_id`."""
    return f"https://t.me/{username}?start={LINK_PREFIX}{link_id}"


def link_id_in(start_parameter: str | None) -> str | None:
    """The id a deep link's start parameter carries; None for any other parameter."""
    found = _LINK.fullmatch(start_parameter or "")
    return found["id"] if found else None


def articles(
    found: Sequence[FoundDocument], link_ids: Sequence[str], texts: InlineTexts, username: str
) -> list[InlineQueryResultArticle]:
    """One result per document, its card ready to post: title the name, description the
    folder, the place and the matching line."""
    results = []
    for document, link_id in zip(found, link_ids, strict=True):
        place = texts.place(document.place)
        button = InlineKeyboardButton(text=texts.get_file, url=deep_link(username, link_id))
        card = texts.card(document.name, document.folder, document.snippet, place)
        results.append(
            InlineQueryResultArticle(
                id=link_id,
                title=visible(document.name),
                description=texts.description(
                    visible(document.folder), visible(document.snippet), place
                ),
                input_message_content=InputTextMessageContent(
                    message_text=card,
                    parse_mode="HTML",
                    link_preview_options=LinkPreviewOptions(is_disabled=True),
                ),
                reply_markup=InlineKeyboardMarkup(inline_keyboard=[[button]]),
            )
        )
    return results


async def answer(
    query: InlineQuery,
    results: Sequence[InlineQueryResultArticle],
    *,
    button: str | None = None,
    start_parameter: str = OPEN_CHAT,
) -> None:
    """Answer an inline query (`button`: a line above the results that opens the private
    chat); an answer Telegram no longer takes (the user typed on) is only logged."""
    shown = None
    if button is not None:
        shown = InlineQueryResultsButton(text=button, start_parameter=start_parameter)
    try:
        await query.answer(list(results), cache_time=CACHE_TIME_S, is_personal=True, button=shown)
    except TelegramAPIError as exc:
        log.info("could not answer the inline query of user %d: %s", query.from_user.id, exc)


async def refuse(query: InlineQuery, texts: InlineTexts) -> None:
    """A stranger's inline query: no results, and a button that asks the admins for access."""
    log.info("refused an inline query by user %d: not on the access list", query.from_user.id)
    await answer(query, [], button=texts.request_access, start_parameter=REQUEST_ACCESS)
