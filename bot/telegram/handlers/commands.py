"""Commands everyone with access may use: /start, /help, /reset (/new), /files, /status.

Admins' `/status` also shows who was granted access in Telegram and the scopes set there; the
admin commands tried by anyone else get a short refusal here. `/files` lists only what the
asker's scope in this chat lets them see.
"""

from __future__ import annotations

import asyncio
import logging
from html import escape

from aiogram import Bot, Router
from aiogram.filters import Command, CommandStart
from aiogram.types import Message

from bot.access import AccessPolicy
from bot.agent import Agent
from bot.agent.breaker import Breaker, BreakerState
from bot.process.version import bot_version
from bot.settings.model import Settings
from bot.settings.scopes import Scopes, place_key
from bot.settings.scopes.viewer import sees_scope
from bot.telegram.context import ChatContext
from bot.telegram.handlers.access_lists import status_section
from bot.telegram.handlers.filters import bare_unknown_command
from bot.telegram.handlers.listing import overview, scan
from bot.telegram.handlers.private import in_private, reply_with
from bot.telegram.handlers.replies import say
from bot.telegram.texts import Texts
from bot.telegram.texts.scope import scope_texts
from bot.telegram.tuning import Tuning
from tools import Toolbox
from tools.jail.scope import Scope

log = logging.getLogger(__name__)


def make_router() -> Router:
    """A fresh router (routers attach to one dispatcher only, so none is shared)."""
    router = Router(name="commands")
    router.message.register(on_start, CommandStart(), in_private)
    router.message.register(reply_with(lambda t: t.group_privacy), CommandStart())
    router.message.register(on_help, Command("help"))
    router.message.register(on_reset, Command("reset", "new"))
    router.message.register(on_files, Command("files"))
    router.message.register(on_status, Command("status"))
    router.message.register(
        on_admin_command,
        Command("reindex", "allow", "deny", "users", "rm", "mv", "trash", "audit", "feedback"),
    )
    router.message.register(on_unknown_command, bare_unknown_command)
    return router


async def on_start(
    message: Message,
    *,
    bot: Bot,
    toolbox: Toolbox,
    settings: Settings,
    tuning: Tuning,
    is_admin: bool,
    chat_context: ChatContext,
) -> None:
    """What the bot does and how many documents it sees (a group hears how it is used there)."""
    texts = chat_context.texts
    index = toolbox.status()
    seen = await _documents_seen(toolbox, chat_context)
    greeting = texts.start(seen, ready=index.ready, admin=is_admin, voice=settings.voice_enabled)
    await say(bot, chat_context, greeting, tuning)


async def on_help(
    message: Message,
    *,
    bot: Bot,
    settings: Settings,
    tuning: Tuning,
    is_admin: bool,
    chat_context: ChatContext,
) -> None:
    """How to ask (by voice too, when it is on), and the commands."""
    texts = chat_context.texts
    text = texts.help(admin=is_admin, voice=settings.voice_enabled)
    if chat_context.is_group:
        text = f"{texts.group_privacy}\n\n{text}"
    await say(bot, chat_context, text, tuning)


async def on_reset(
    message: Message, *, bot: Bot, agent: Agent, tuning: Tuning, chat_context: ChatContext
) -> None:
    """Start a new conversation; the old one stays stored but no longer goes to the model."""
    conversation = chat_context.conversation
    await agent.reset(conversation)
    log.info("conversation %s reset", conversation)
    await say(bot, chat_context, chat_context.texts.reset_done, tuning)


async def on_files(
    message: Message,
    *,
    bot: Bot,
    toolbox: Toolbox,
    tuning: Tuning,
    chat_context: ChatContext,
) -> None:
    """What is in the documents folder, in short (within the asker's scope here)."""
    texts = chat_context.texts
    scope = await chat_context.scope()
    entries = await asyncio.to_thread(scan, toolbox.sandbox.within(scope))
    listing = overview(entries, texts.files_more_in_folder)
    if not listing.files:
        await say(bot, chat_context, texts.files_empty, tuning)
        return
    lines = [texts.files_header.format(total=listing.files), *listing.lines]
    if listing.hidden_files:
        lines.append(texts.files_more.format(n=listing.hidden_files))
    await say(bot, chat_context, "\n".join(lines), tuning)


async def on_status(
    message: Message,
    *,
    bot: Bot,
    agent: Agent,
    toolbox: Toolbox,
    settings: Settings,
    access: AccessPolicy,
    tuning: Tuning,
    is_admin: bool,
    chat_context: ChatContext,
    scopes: Scopes | None = None,
) -> None:
    """Model, context use, index size and the last question's rounds and tokens.

    Admins also see, in private chats only, each model of the fallback chain and whether it is
    passed over, the reranker's breaker likewise, and the access granted in Telegram.
    """
    used = await agent.status(chat_context.conversation)
    index = toolbox.status()
    usage = used.last_usage
    last = (usage.rounds, usage.prompt_tokens, usage.completion_tokens) if usage else None
    text = chat_context.texts.status(
        model=settings.model,
        tokens=used.tokens,
        window=used.window,
        messages=used.messages,
        documents=await _documents_seen(toolbox, chat_context),
        ready=index.ready,
        last=last,
        estimated=usage is not None and usage.estimated,
    )
    text += _meaning_line(
        toolbox, chat_context.texts, admin=is_admin and not chat_context.is_group
    )
    if is_admin and not chat_context.is_group:
        text += "\n" + chat_context.texts.status_version.format(version=bot_version())
        if models := agent.model_states():
            text += "\n\n" + chat_context.texts.models_status(models)
        if (reranker := _reranker_state(toolbox)) is not None:
            text += "\n\n" + chat_context.texts.reranker_status(reranker)
        text += "\n\n" + status_section(chat_context.texts, access)
        if scopes is not None:
            viewer = await chat_context.scope()
            text += await _scopes_section(scopes, chat_context.language, viewer)
    await say(bot, chat_context, text, tuning)


def _meaning_line(toolbox: Toolbox, texts: Texts, *, admin: bool) -> str:
    """Search by meaning's progress, when EMBEDDING_MODEL is set; its last failure for
    admins in their private chat (it names the server)."""
    vectors = toolbox.vector_status()
    if not vectors.configured:
        return ""
    line = "\n" + texts.status_meaning.format(
        done=texts.number(vectors.passages_done), total=texts.number(vectors.passages_total)
    )
    if admin and vectors.last_error:
        line += "\n" + texts.status_meaning_error.format(error=escape(vectors.last_error[:300]))
    return line


def _reranker_state(toolbox: Toolbox) -> BreakerState | None:
    """The reranker's breaker (`bot.services.rerank_config` gives it one), None without
    RERANK_URL."""
    reranker = toolbox.reranker
    if reranker is None:
        return None
    gate = reranker.config.gate
    if isinstance(gate, Breaker):
        return gate.state()
    return BreakerState(model="reranker", open=False, retry_in_s=0, failures=0, last_kind=None)


async def _documents_seen(toolbox: Toolbox, chat_context: ChatContext) -> int:
    """How many documents the asker may see here: a scope's count never includes outside."""
    scope = await chat_context.scope()
    if scope is None:
        return toolbox.status().documents
    return len(await asyncio.to_thread(toolbox.allowed_files, scope))


async def _scopes_section(scopes: Scopes, lang: str, viewer: Scope | None) -> str:
    """Admins' `/status`: SCOPES_FILE in one line, then each chat's scope set in Telegram; only
    those within the admin's own folders (`viewer`)."""
    texts = scope_texts(lang)
    rules = scopes.rules
    overrides = [o for o in await scopes.store.chat_overrides() if sees_scope(viewer, o.scope)]
    lines = []
    if rules.configured and sees_scope(viewer, rules.default):
        everyone = texts.folders(rules.default)
        lines.append(texts.status_file.format(entries=rules.entries(), folders=everyone))
    if overrides:
        rows = [
            (place_key(o.chat_id, o.thread_id), o.scope, o.set_by_name, o.set_by, o.set_at)
            for o in overrides
        ]
        lines.append(texts.status_lines(rows))
    return "\n\n" + "\n\n".join(lines) if lines else ""


async def on_admin_command(
    message: Message, *, bot: Bot, tuning: Tuning, chat_context: ChatContext
) -> None:
    """An admin command from someone who is not an admin (admins are served earlier)."""
    await say(bot, chat_context, chat_context.texts.admin_only, tuning)


async def on_unknown_command(
    message: Message,
    *,
    bot: Bot,
    settings: Settings,
    tuning: Tuning,
    is_admin: bool,
    chat_context: ChatContext,
) -> None:
    """A command the bot does not know: show the ones it does."""
    text = chat_context.texts.help(admin=is_admin, voice=settings.voice_enabled)
    await say(bot, chat_context, text, tuning)
