"""Search from any chat: `@bot words` lists the matching documents, and the button of a card
posted from them sends the document in the private chat.

An inline query comes from a user the access check let through (a stranger's is answered there,
with a button asking for access). It is searched within the scope the user's private chat has,
so what they find anywhere is what they could ask about privately; nothing is asked of the
model. Each result carries a fresh id from `SourceLinks`, issued to the asker (`/forget` drops
them with their other buttons), and a user's repeated query is answered from `InlineSearch`.

The card's deep link arrives as `/start doc_ID` in a private chat, from whoever tapped it, not
only the asker: the document is sent only if the tapper may use the bot (checked before any
handler) and it lies inside the scope of their private chat now, and it is still there.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Sequence

from aiogram import Bot, Router
from aiogram.filters import CommandStart
from aiogram.types import InlineQuery, InlineQueryResultArticle, Message

from bot.settings.model import Settings
from bot.settings.scopes import Scopes
from bot.storage.source_links import SourceLinks
from bot.telegram.context import ChatContext
from bot.telegram.handlers.private import in_private
from bot.telegram.handlers.replies import say
from bot.telegram.inline_search import FoundDocument, InlineSearch, normalized
from bot.telegram.output.inline_cards import answer, articles, link_id_in
from bot.telegram.output.source_files import SourceSender, within_scope
from bot.telegram.texts.inline import inline_texts
from bot.telegram.tuning import Tuning
from tools import Toolbox

log = logging.getLogger(__name__)

InlineResults = list[InlineQueryResultArticle]


def make_router() -> Router:
    """Inline queries, and `/start` with a card's deep link in a private chat."""
    router = Router(name="inline")
    router.inline_query.register(on_inline_query)
    router.message.register(on_document_link, CommandStart(deep_link=True), in_private, card_link)
    return router


async def card_link(message: Message) -> dict[str, str] | bool:
    """The filter for `/start doc_ID`: hands the handler the id as `link_id`."""
    _, _, parameter = (message.text or "").partition(" ")
    link_id = link_id_in(parameter.strip())
    return {"link_id": link_id} if link_id is not None else False


async def on_inline_query(
    query: InlineQuery,
    *,
    bot: Bot,
    scopes: Scopes,
    source_links: SourceLinks,
    inline_search: InlineSearch[InlineResults],
) -> None:
    """The documents matching the words typed, within the asker's private scope."""
    texts = inline_texts(query.from_user.language_code)
    user_id = query.from_user.id
    words = normalized(query.query)
    if not words:
        await answer(query, [], button=texts.type_words)
        return
    username = (await bot.me()).username or ""
    scope = await scopes.for_question(user_id, user_id)

    async def made(found: Sequence[FoundDocument]) -> InlineResults:
        link_ids = await source_links.issue(user_id, [document.path for document in found])
        return articles(found, link_ids, texts, username)

    try:
        results = await inline_search.kept(user_id, words, scope, made)
    except (sqlite3.Error, OSError) as exc:
        log.warning("inline query of user %d not answered: %s", user_id, exc)
        await answer(query, [], button=texts.failed)
        return
    log.debug("inline query of user %d: %d result(s)", user_id, len(results))
    await answer(query, results, button=None if results else texts.nothing_found)


async def on_document_link(
    message: Message,
    *,
    link_id: str,
    bot: Bot,
    settings: Settings,
    source_links: SourceLinks,
    toolbox: Toolbox,
    tuning: Tuning,
    chat_context: ChatContext,
) -> None:
    """Send the document behind a card's button, or say why not."""
    texts = chat_context.texts
    words = inline_texts(texts.lang)
    try:
        link = await source_links.find(link_id)
    except (sqlite3.Error, OSError) as exc:
        log.warning("document link %s could not be looked up: %s", link_id, exc)
        await say(bot, chat_context, texts.error_generic, tuning)
        return
    if link is None:
        log.debug("document link %s is unknown or expired", link_id)
        username = (await bot.me()).username or ""
        await say(bot, chat_context, words.link_expired.format(username=username), tuning)
        return
    scope = await chat_context.scope()
    source = await within_scope(toolbox, scope, link.path)
    if source == "outside":
        log.info("a document link is outside the scope of chat %d", chat_context.place.chat_id)
        await say(bot, chat_context, words.link_no_access, tuning)
        return
    if source == "gone":
        await say(bot, chat_context, words.link_gone, tuning)
        return
    sender = SourceSender(
        bot, chat_context.place, texts, tuning, local_api=settings.telegram_api_local
    )
    await sender.send(source, toolbox, scope=scope)
