"""`/subscribe`, `/unsubscribe`, `/subscriptions`: a chat hears of the documents that appear,
change or go in a folder.

`/subscribe hr` subscribes the chat to `hr` (a folder within the sender's scope there),
`/subscribe` to everything the sender may see; `/unsubscribe hr` ends one, `/unsubscribe` every one
of the chat; `/subscriptions` lists them. In a forum topic each works on that topic's own
subscriptions, whose notices go there. In a group only an admin of the bot may subscribe or
unsubscribe (the group hears the notices, within the group's own scope and what the admin who
subscribed it may see there); anyone there may list them. The digests themselves are sent by
`bot.telegram.change_notices`.
"""

from __future__ import annotations

import asyncio
import logging
from html import escape

from aiogram import Bot, Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message

from bot.digests.notices.folders import FolderProblem, covering, inside, matching, subscribable
from bot.storage.notices import NoticeStore
from bot.telegram.change_notices import ChangeNotices
from bot.telegram.context import ChatContext
from bot.telegram.handlers.replies import say
from bot.telegram.texts.names import visible
from bot.telegram.texts.notices import NoticeTexts, notice_texts
from bot.telegram.tuning import Tuning
from tools import Toolbox

log = logging.getLogger(__name__)


def make_router() -> Router:
    """The three commands, for everyone the bot serves (groups: changes by admins only)."""
    router = Router(name="notices")
    router.message.register(on_subscribe, Command("subscribe"))
    router.message.register(on_unsubscribe, Command("unsubscribe"))
    router.message.register(on_subscriptions, Command("subscriptions"))
    return router


async def on_subscribe(
    message: Message,
    command: CommandObject,
    *,
    bot: Bot,
    notice_store: NoticeStore,
    change_notices: ChangeNotices,
    toolbox: Toolbox,
    tuning: Tuning,
    is_admin: bool,
    chat_context: ChatContext,
) -> None:
    """Subscribe the chat to the folder named (everything without one)."""
    texts = notice_texts(chat_context.language)
    if message.from_user is None or (chat_context.is_group and not is_admin):
        await say(bot, chat_context, texts.group_admin_only, tuning)
        return
    scope = await chat_context.scope()
    try:
        folder = await asyncio.to_thread(subscribable, toolbox.sandbox, scope, command.args or "")
    except FolderProblem as problem:
        await say(bot, chat_context, _problem(texts, problem), tuning)
        return
    chat_id, topic = chat_context.place.chat_id, chat_context.place.thread_id
    user_id = None if chat_context.is_group else message.from_user.id
    folders = [s.folder for s in await notice_store.of_chat(chat_id, topic)]
    held = covering(folders, folder)
    if held is not None and held != folder:
        text = texts.covered.format(folder=texts.folder(folder), covering=texts.folder(held))
        await say(bot, chat_context, text, tuning)
        return
    replaced = inside(folders, folder)
    for old in replaced:
        await notice_store.unsubscribe(chat_id, old, thread_id=topic)
    by = message.from_user.id if chat_context.is_group else None
    if not await notice_store.subscribe(
        chat_id,
        folder,
        thread_id=topic,
        user_id=user_id,
        language=chat_context.language,
        subscribed_by=by,
    ):
        await say(bot, chat_context, texts.already.format(folder=texts.folder(folder)), tuning)
        return
    log.info("chat %d subscribed to change notices in %r", chat_id, folder or "*")
    text = texts.subscribed_to(folder, change_notices.quiet_s)
    if replaced:
        text += "\n" + texts.replaced.format(folders=texts.folders(replaced))
    await say(bot, chat_context, text, tuning)


async def on_unsubscribe(
    message: Message,
    command: CommandObject,
    *,
    bot: Bot,
    notice_store: NoticeStore,
    tuning: Tuning,
    is_admin: bool,
    chat_context: ChatContext,
) -> None:
    """End the chat's subscription to the folder named, or every one."""
    texts = notice_texts(chat_context.language)
    if message.from_user is None or (chat_context.is_group and not is_admin):
        await say(bot, chat_context, texts.group_admin_only, tuning)
        return
    chat_id, topic = chat_context.place.chat_id, chat_context.place.thread_id
    raw = (command.args or "").strip()
    if not raw:
        ended = await notice_store.unsubscribe(chat_id, thread_id=topic)
        text = texts.unsubscribed_all.format(n=ended) if ended else texts.none
        await say(bot, chat_context, text, tuning)
        return
    folders = [s.folder for s in await notice_store.of_chat(chat_id, topic)]
    folder = matching(folders, raw)
    if folder is None or not await notice_store.unsubscribe(chat_id, folder, thread_id=topic):
        shown = f"<b>{escape(visible(raw))}</b>"
        await say(bot, chat_context, texts.not_subscribed.format(folder=shown), tuning)
        return
    log.info("chat %d unsubscribed from change notices in %r", chat_id, folder or "*")
    await say(bot, chat_context, texts.unsubscribed.format(folder=texts.folder(folder)), tuning)


async def on_subscriptions(
    message: Message,
    *,
    bot: Bot,
    notice_store: NoticeStore,
    tuning: Tuning,
    chat_context: ChatContext,
) -> None:
    """List the chat's subscriptions."""
    del message
    texts = notice_texts(chat_context.language)
    place = chat_context.place
    folders = [s.folder for s in await notice_store.of_chat(place.chat_id, place.thread_id)]
    await say(bot, chat_context, texts.listed(folders), tuning)


def _problem(texts: NoticeTexts, problem: FolderProblem) -> str:
    shown = f"<b>{escape(visible(problem.name))}</b>"
    template = {
        "bad_name": texts.bad_name,
        "missing": texts.missing,
        "not_a_folder": texts.not_a_folder,
    }[problem.problem]
    return template.format(folder=shown)
