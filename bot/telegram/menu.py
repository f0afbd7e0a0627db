"""The command menu Telegram shows next to the input field, per language and for admins.

Russian goes to every language whose users get Russian replies, English to everyone else.
Admins' private chats get a menu that also lists /reindex, /allow, /deny and /users. The ids
that got one are kept in DATA_DIR, so someone who is no longer an admin (removed from ADMIN_IDS,
or denied in Telegram) loses the admin menu at the next start; one who pairs gets it at once.
With ADMIN_APP_URL, admins' private chats also get a menu button that opens the admins' Mini
App, and lose it with the admin menu.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Mapping
from pathlib import Path

from aiogram import Bot
from aiogram.exceptions import TelegramAPIError
from aiogram.types import (
    BotCommand,
    BotCommandScopeChat,
    BotCommandScopeDefault,
    MenuButtonDefault,
    MenuButtonWebApp,
    WebAppInfo,
)

from bot.telegram.texts import ENGLISH, RUSSIAN, RUSSIAN_READERS, Texts, language_of
from bot.telegram.texts.admin_app import app_texts

log = logging.getLogger(__name__)


def _menus() -> list[tuple[Texts, str | None]]:
    return [(ENGLISH, None), *((RUSSIAN, code) for code in RUSSIAN_READERS)]


def _commands(texts: Texts) -> list[BotCommand]:
    return [BotCommand(command=c, description=d) for c, d in texts.command_descriptions]


def _admin_commands(texts: Texts) -> list[BotCommand]:
    extra = [BotCommand(command=c, description=d) for c, d in texts.admin_command_descriptions]
    return [*_commands(texts), *extra]


async def register_commands(
    bot: Bot,
    admin_ids: frozenset[int],
    record: Path,
    *,
    app_url: str | None = None,
    languages: Mapping[int, str | None] | None = None,
) -> None:
    """Set the menus (and, with `app_url`, the Mini App's button in each admin's chat, in
    the language they last wrote in, from `languages`); a failure costs a log line, never
    the start-up."""
    if app_url is not None:
        for admin in sorted(admin_ids):
            await give_app_button(bot, admin, app_url, (languages or {}).get(admin))
    for texts, language in _menus():
        commands = _commands(texts)
        try:
            await bot.set_my_commands(
                commands, scope=BotCommandScopeDefault(), language_code=language
            )
        except TelegramAPIError as exc:
            log.warning("could not register the command menu (%s): %s", language or "en", exc)
            continue
        admin_menu = _admin_commands(texts)
        for admin in sorted(admin_ids):
            try:
                await bot.set_my_commands(
                    admin_menu, scope=BotCommandScopeChat(chat_id=admin), language_code=language
                )
            except TelegramAPIError as exc:  # a chat the admin has not opened yet
                log.debug("no admin menu for %d yet: %s", admin, exc)
    await _drop_stale_admin_menus(bot, admin_ids, record)


async def give_app_button(
    bot: Bot, admin_id: int, app_url: str, language_code: str | None = None
) -> None:
    """The menu button that opens the admins' Mini App in `admin_id`'s private chat."""
    text = app_texts(language_of(language_code))["menu_button"]
    button = MenuButtonWebApp(text=text, web_app=WebAppInfo(url=f"{app_url}/"))
    try:
        await bot.set_chat_menu_button(chat_id=admin_id, menu_button=button)
    except TelegramAPIError as exc:  # a chat the admin has not opened yet
        log.debug("no admin app button for %d yet: %s", admin_id, exc)


async def give_admin_menu(bot: Bot, admin_id: int, app_url: str | None = None) -> None:
    """The admin menu (and the Mini App's button, with `app_url`) for someone who just became
    an admin; a failure costs a log line."""
    if app_url is not None:
        await give_app_button(bot, admin_id, app_url)
    for texts, language in _menus():
        try:
            await bot.set_my_commands(
                _admin_commands(texts),
                scope=BotCommandScopeChat(chat_id=admin_id),
                language_code=language,
            )
        except TelegramAPIError as exc:
            log.info("could not give %d the admin menu: %s", admin_id, exc)
            return


async def take_admin_menu(bot: Bot, former_id: int) -> bool:
    """Back to everyone's menu for someone who is no longer an admin; False if that failed."""
    try:
        for _, language in _menus():
            await bot.delete_my_commands(
                scope=BotCommandScopeChat(chat_id=former_id), language_code=language
            )
        await bot.set_chat_menu_button(chat_id=former_id, menu_button=MenuButtonDefault())
    except TelegramAPIError as exc:
        log.info("could not remove the admin menu of %d: %s", former_id, exc)
        return False
    return True


async def _drop_stale_admin_menus(bot: Bot, admin_ids: frozenset[int], record: Path) -> None:
    """Remove the admin menu of ids that are admins no longer, then remember the current ones."""
    for former in sorted(await asyncio.to_thread(_read_ids, record) - admin_ids):
        if await take_admin_menu(bot, former):
            log.info("removed the admin menu of former admin %d", former)
    try:
        await asyncio.to_thread(record.write_text, json.dumps(sorted(admin_ids)), "utf-8")
    except OSError as exc:
        log.warning("could not remember the admin menus in %s: %s", record, exc)


def _read_ids(record: Path) -> frozenset[int]:
    try:
        values = json.loads(record.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return frozenset()
    except (OSError, ValueError) as exc:
        log.warning("ignoring %s: %s", record, exc)
        return frozenset()
    if not isinstance(values, list):
        return frozenset()
    return frozenset(v for v in values if isinstance(v, int))
