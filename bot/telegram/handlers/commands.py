"""Commands everyone with access may use: /start, /help, /reset (/new), /files, /status."""

from __future__ import annotations

import asyncio
import logging

from aiogram import Bot, Router
from aiogram.filters import Command, CommandStart
from aiogram.types import Message

from bot.agent import Agent
from bot.config import Settings
from bot.telegram.addressing import conversation_key, is_group
from bot.telegram.handlers.filters import bare_unknown_command
from bot.telegram.handlers.listing import overview, scan
from bot.telegram.handlers.replies import say, user_texts
from bot.telegram.tuning import Tuning
from tools import Toolbox

log = logging.getLogger(__name__)


def make_router() -> Router:
    """A fresh router (routers attach to one dispatcher only, so none is shared)."""
    router = Router(name="commands")
    router.message.register(on_start, CommandStart())
    router.message.register(on_help, Command("help"))
    router.message.register(on_reset, Command("reset", "new"))
    router.message.register(on_files, Command("files"))
    router.message.register(on_status, Command("status"))
    router.message.register(on_admin_command, Command("reindex"))
    router.message.register(on_unknown_command, bare_unknown_command)
    return router


async def on_start(
    message: Message, *, bot: Bot, toolbox: Toolbox, tuning: Tuning, is_admin: bool
) -> None:
    """What the bot does and how many documents it sees; one line on privacy in groups."""
    texts = user_texts(message)
    if is_group(message):
        await say(bot, message, texts.group_privacy, tuning)
        return
    index = toolbox.status()
    await say(
        bot, message, texts.start(index.documents, ready=index.ready, admin=is_admin), tuning
    )


async def on_help(message: Message, *, bot: Bot, tuning: Tuning, is_admin: bool) -> None:
    """How to ask, and the commands."""
    texts = user_texts(message)
    text = texts.help(admin=is_admin)
    if is_group(message):
        text = f"{texts.group_privacy}\n\n{text}"
    await say(bot, message, text, tuning)


async def on_reset(message: Message, *, bot: Bot, agent: Agent, tuning: Tuning) -> None:
    """Start a new conversation; the old one stays stored but no longer goes to the model."""
    conversation = conversation_key(message)
    await agent.reset(conversation)
    log.info("conversation %s reset", conversation)
    await say(bot, message, user_texts(message).reset_done, tuning)


async def on_files(message: Message, *, bot: Bot, toolbox: Toolbox, tuning: Tuning) -> None:
    """What is in the documents folder, in short."""
    texts = user_texts(message)
    entries = await asyncio.to_thread(scan, toolbox.sandbox)
    listing = overview(entries, texts.files_more_in_folder)
    if not listing.files:
        await say(bot, message, texts.files_empty, tuning)
        return
    lines = [texts.files_header.format(total=listing.files), *listing.lines]
    if listing.hidden_files:
        lines.append(texts.files_more.format(n=listing.hidden_files))
    await say(bot, message, "\n".join(lines), tuning)


async def on_status(
    message: Message,
    *,
    bot: Bot,
    agent: Agent,
    toolbox: Toolbox,
    settings: Settings,
    tuning: Tuning,
) -> None:
    """Model, context use, index size and the last question's rounds and tokens."""
    context = await agent.status(conversation_key(message))
    index = toolbox.status()
    usage = context.last_usage
    last = (usage.rounds, usage.prompt_tokens, usage.completion_tokens) if usage else None
    text = user_texts(message).status(
        model=settings.model,
        tokens=context.tokens,
        window=context.window,
        messages=context.messages,
        documents=index.documents,
        ready=index.ready,
        last=last,
    )
    await say(bot, message, text, tuning)


async def on_admin_command(message: Message, *, bot: Bot, tuning: Tuning) -> None:
    """An admin command from someone who is not an admin (admins are served earlier)."""
    await say(bot, message, user_texts(message).admin_only, tuning)


async def on_unknown_command(
    message: Message, *, bot: Bot, tuning: Tuning, is_admin: bool
) -> None:
    """A command the bot does not know: show the ones it does."""
    await say(bot, message, user_texts(message).help(admin=is_admin), tuning)
