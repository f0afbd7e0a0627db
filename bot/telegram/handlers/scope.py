"""`/scope`: admins see and set which folders the current chat may see.

`/scope` shows the chat's folders and where they come from (to a scoped admin only those within
their own, saying that there are others); `/scope sales, common` sets them
(folders must exist in the documents folder), `/scope *` gives everything and `/scope reset`
goes back to SCOPES_FILE. A change is stored in DATA_DIR and overrides the file for this chat.
Anyone else gets the usual "admins only". An admin gives no chat more than they see themselves
(their own folders, `Scopes.own`): neither a set scope nor a reset to the file may reach
beyond them. Works in groups too: a group's scope is set there,
and inside a forum topic it is that topic's alone (the rest of the group keeps the group's).
"""

from __future__ import annotations

import asyncio
import logging
import re

from aiogram import Bot, Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message

from bot.settings.scopes import Scopes, place_key
from bot.settings.scopes.viewer import sees_scope
from bot.storage.audit import SCOPE_RESET, AuditLog, record_scope_change
from bot.telegram.context import ChatContext
from bot.telegram.handlers.replies import say
from bot.telegram.texts.people import who
from bot.telegram.texts.scope import ScopeTexts, scope_texts
from bot.telegram.tuning import Tuning
from tools import Toolbox
from tools.errors import PathNotFoundError, SandboxError
from tools.jail.sandbox import Sandbox
from tools.jail.scope import EVERYTHING, Scope, ScopeError, clean_folder, intersect

log = logging.getLogger(__name__)

RESET_WORDS = frozenset({"reset", "сброс"})
_SEPARATORS = re.compile(r"[,;\n]")


def make_router() -> Router:
    """The `/scope` command, for everyone (non-admins are refused inside)."""
    router = Router(name="scope")
    router.message.register(on_scope, Command("scope"))
    return router


def requested_folders(text: str, sandbox: Sandbox) -> list[str]:
    """The folders an admin listed: separated by commas (or lines), else by spaces unless the
    whole text names an existing folder (`/scope Отдел продаж`)."""
    text = text.strip()
    if _SEPARATORS.search(text):
        return [part.strip() for part in _SEPARATORS.split(text) if part.strip()]
    if any(ch.isspace() for ch in text) and _is_folder(sandbox, text):
        return [text]
    return text.split()


def _is_folder(sandbox: Sandbox, name: str) -> bool:
    try:
        return sandbox.resolve(name).is_dir()
    except SandboxError:
        return False


def folder_problem(texts: ScopeTexts, sandbox: Sandbox, name: str) -> str | None:
    """Why `name` cannot be in a scope (blocking: asks the disk), or None."""
    if name == EVERYTHING:
        return None
    try:
        clean_folder(name)
        real = sandbox.resolve(name)
    except PathNotFoundError:
        return texts.missing.format(folder=texts.folder(name))
    except (ScopeError, SandboxError):
        return texts.bad_name.format(folder=texts.folder(name))
    if not real.is_dir():
        return texts.not_a_folder.format(folder=texts.folder(name))
    return None


async def on_scope(
    message: Message,
    command: CommandObject,
    *,
    bot: Bot,
    scopes: Scopes,
    toolbox: Toolbox,
    tuning: Tuning,
    is_admin: bool,
    chat_context: ChatContext,
    audit: AuditLog | None = None,
) -> None:
    """Show, set or reset the current chat's scope (admins only); a change goes to the audit
    log."""
    if not is_admin or message.from_user is None:
        await say(bot, chat_context, chat_context.texts.admin_only, tuning)
        return
    texts = scope_texts(chat_context.language)
    chat_id, thread_id = chat_context.place.chat_id, chat_context.place.thread_id
    place = place_key(chat_id, thread_id)
    admin = message.from_user
    args = (command.args or "").strip()
    viewer = scopes.own(admin.id)
    if not args:
        shown = await _current(texts, scopes, chat_id, thread_id, viewer)
        await say(bot, chat_context, shown, tuning)
        return
    if args.casefold() in RESET_WORDS:
        if not sees_scope(viewer, await scopes.after_reset(chat_id, thread_id)):
            text = texts.reset_beyond.format(folders=texts.folders(viewer))
            await say(bot, chat_context, text, tuning)
            return
        cleared = await scopes.reset_chat(chat_id, by=admin.id, thread_id=thread_id)
        if cleared and audit is not None:
            await record_scope_change(
                audit, place, [SCOPE_RESET], actor_id=admin.id, actor_name=admin.full_name
            )
        now = (await scopes.of_chat(chat_id, thread_id)).scope
        template = texts.reset_done if cleared else texts.reset_nothing
        await say(bot, chat_context, template.format(folders=texts.folders(now)), tuning)
        return
    names = await asyncio.to_thread(requested_folders, args, toolbox.sandbox)
    for name in names:
        problem = await asyncio.to_thread(folder_problem, texts, toolbox.sandbox, name)
        if problem is not None:
            await say(bot, chat_context, problem, tuning)
            return
    scope = Scope.of(names)
    if not sees_scope(viewer, scope):
        await say(bot, chat_context, texts.beyond.format(folders=texts.folders(viewer)), tuning)
        return
    await scopes.set_chat(
        chat_id, scope, by=admin.id, by_name=admin.full_name, thread_id=thread_id
    )
    if audit is not None:
        folders = scope.folders if scope is not None else (EVERYTHING,)
        await record_scope_change(
            audit, place, folders, actor_id=admin.id, actor_name=admin.full_name
        )
    await say(bot, chat_context, texts.set_done.format(folders=texts.folders(scope)), tuning)


async def _current(
    texts: ScopeTexts,
    scopes: Scopes,
    chat_id: int,
    thread_id: int | None,
    viewer: Scope | None,
) -> str:
    """The chat's folders as far as the asking admin sees them: a folder beyond their own is
    not named, only said to exist (the file or another admin may have given it)."""
    chat = await scopes.of_chat(chat_id, thread_id)
    override = chat.override
    outside = not sees_scope(viewer, chat.scope)
    return texts.shown(
        intersect(chat.scope, viewer) if outside else chat.scope,
        chat.source,
        by=who(override.set_by_name, None, override.set_by) if override else "",
        at=override.set_at if override else 0.0,
        file=scopes.rules.configured,
        outside=outside,
    )
