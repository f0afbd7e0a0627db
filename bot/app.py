"""The composition root: the one place that builds the Bot, Dispatcher, stores and Agent.

`build_dispatcher` wires a Dispatcher from parts handed in (settings, agent, toolbox), so tests
pass a fake Bot session and a fake model server while `python -m bot` passes the real ones.
aiogram is imported inside the Telegram builders only: importing it costs seconds, and
`python -m bot chat` never talks to Telegram.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

from openai import AsyncOpenAI

from bot.agent import Agent, AgentConfig, HistoryStore, PromptError, build_client
from bot.config import Settings
from bot.logs import setup_logging
from bot.texts import ENGLISH, RUSSIAN
from tools import Toolbox, build_toolbox

if TYPE_CHECKING:
    from aiogram import Bot, Dispatcher

    from bot.handlers.tuning import Tuning
    from bot.middlewares import InFlight

__all__ = [
    "Services",
    "build_bot",
    "build_dispatcher",
    "close_services",
    "open_services",
    "run_command",
]

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Services:
    """What the bot owns besides Telegram: the toolbox, the history store, the model client."""

    toolbox: Toolbox
    history: HistoryStore
    client: AsyncOpenAI
    agent: Agent


async def open_services(settings: Settings, *, client: AsyncOpenAI | None = None) -> Services:
    """Start the toolbox, open the history, build the agent; `client` replaces the real one."""
    config = AgentConfig.from_settings(settings)
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    toolbox = build_toolbox(settings)
    await toolbox.start()
    try:
        history = await HistoryStore.open(settings.data_dir / "history.sqlite3")
    except BaseException:
        await toolbox.close()
        raise
    client = client or build_client(settings)
    return Services(toolbox, history, client, Agent(config, client, toolbox, history))


async def close_services(services: Services) -> None:
    """Close everything `open_services` opened, each even if another fails."""
    try:
        await services.history.close()
    finally:
        try:
            await services.toolbox.close()
        finally:
            await services.client.close()


def build_bot(settings: Settings) -> Bot:
    """A Bot for Telegram's servers or TELEGRAM_API_BASE; parse mode is chosen per call."""
    from aiogram import Bot  # noqa: PLC0415 - see the module docstring
    from aiogram.client.session.aiohttp import AiohttpSession  # noqa: PLC0415
    from aiogram.client.telegram import TelegramAPIServer  # noqa: PLC0415

    assert settings.bot_token is not None
    token = settings.bot_token.get_secret_value().strip()
    if settings.telegram_api_base:
        api = TelegramAPIServer.from_base(settings.telegram_api_base)
        return Bot(token, session=AiohttpSession(api=api))
    return Bot(token)


def build_dispatcher(
    settings: Settings, *, agent: Agent, toolbox: Toolbox, tuning: Tuning | None = None
) -> Dispatcher:
    """A Dispatcher with every middleware and router, its dependencies as workflow data."""
    from aiogram import Dispatcher  # noqa: PLC0415 - see the module docstring

    from bot.albums import Albums  # noqa: PLC0415
    from bot.handlers import make_routers  # noqa: PLC0415
    from bot.handlers.questions import Asker  # noqa: PLC0415
    from bot.handlers.tuning import Tuning  # noqa: PLC0415
    from bot.middlewares import (  # noqa: PLC0415
        AccessMiddleware,
        ConversationOrderMiddleware,
        InFlight,
        RateLimitMiddleware,
    )
    from bot.pacing import EditPacer  # noqa: PLC0415

    tuning = tuning or Tuning()
    in_flight = InFlight()
    pacer = EditPacer(tuning.edit_interval_s)
    dp = Dispatcher(
        disable_fsm=True,
        settings=settings,
        agent=agent,
        toolbox=toolbox,
        tuning=tuning,
        pacer=pacer,
        asker=Asker(agent, settings, pacer, tuning),
        albums=Albums(),
        in_flight=in_flight,
    )
    dp.update.outer_middleware(AccessMiddleware(settings))
    dp.message.middleware(RateLimitMiddleware(settings.rate_limit_per_hour))
    dp.message.middleware(
        ConversationOrderMiddleware(in_flight, max_waiting=tuning.max_waiting_per_chat)
    )
    dp.include_routers(*make_routers())
    dp.startup.register(_on_startup)
    dp.shutdown.register(_on_shutdown)
    return dp


async def _on_startup(bot: Bot, settings: Settings, toolbox: Toolbox) -> None:
    me = await bot.me()
    await _register_commands(bot, settings.admin_ids)
    index = toolbox.status()
    log.info(
        "bot @%s started: model %s, sandbox %s, %d documents%s",
        me.username,
        settings.model,
        toolbox.sandbox.root,
        index.documents,
        "" if index.ready else " (first index build still running)",
    )


async def _on_shutdown(in_flight: InFlight, tuning: Tuning) -> None:
    await in_flight.drain(tuning.shutdown_grace_s)


async def _register_commands(bot: Bot, admin_ids: frozenset[int]) -> None:
    """The command menu in Russian for Russian-language clients, English for everyone else.

    Admins' private chats get a menu that also lists /reindex; a chat the admin has not opened
    yet cannot take one, which is only worth a debug line.
    """
    from aiogram.exceptions import TelegramAPIError  # noqa: PLC0415 - see the module docstring
    from aiogram.types import (  # noqa: PLC0415
        BotCommand,
        BotCommandScopeChat,
        BotCommandScopeDefault,
    )

    for texts, language in ((ENGLISH, None), (RUSSIAN, "ru")):
        commands = [BotCommand(command=c, description=d) for c, d in texts.command_descriptions]
        try:
            await bot.set_my_commands(
                commands, scope=BotCommandScopeDefault(), language_code=language
            )
        except TelegramAPIError as exc:
            log.warning("could not register the command menu (%s): %s", language or "en", exc)
            continue
        admin_menu = [*commands, BotCommand(command="reindex", description=texts.reindex_command)]
        for admin in sorted(admin_ids):
            try:
                await bot.set_my_commands(
                    admin_menu, scope=BotCommandScopeChat(chat_id=admin), language_code=language
                )
            except TelegramAPIError as exc:
                log.debug("no admin menu for %d yet: %s", admin, exc)


async def run_bot(settings: Settings) -> int:
    """Run the Telegram bot until SIGTERM or Ctrl-C; returns the exit code."""
    from aiogram.exceptions import (  # noqa: PLC0415 - see the module docstring
        TelegramAPIError,
        TelegramNetworkError,
        TelegramUnauthorizedError,
    )

    from bot.webhook import run_webhook  # noqa: PLC0415

    services = await open_services(settings)
    bot = build_bot(settings)
    try:
        dp = build_dispatcher(settings, agent=services.agent, toolbox=services.toolbox)
        if settings.webhook_url:
            await run_webhook(dp, bot, settings)
        else:
            await bot.delete_webhook(drop_pending_updates=False)
            await dp.start_polling(
                bot, allowed_updates=dp.resolve_used_update_types(), handle_signals=True
            )
    except TelegramUnauthorizedError:
        log.error("Telegram refused BOT_TOKEN; copy the token from @BotFather again")
        return 1
    except TelegramNetworkError as exc:
        log.error("cannot reach the Telegram Bot API: %s", exc)
        return 1
    except TelegramAPIError as exc:  # e.g. setWebhook refusing WEBHOOK_URL
        log.error("Telegram refused to start the bot: %s", exc)
        return 1
    finally:
        await bot.session.close()
        await close_services(services)
    log.info("stopped")
    return 0


def _secrets(settings: Settings) -> list[str]:
    values = [settings.bot_token, settings.openai_api_key, settings.webhook_secret]
    return [v.get_secret_value().strip() for v in values if v is not None]


def run_command(command: str, settings: Settings) -> int:
    """Run `command` (`run`, `chat` or `check`) with `settings`; returns the exit code."""
    if command == "check":
        print(  # noqa: T201 - the terminal is the audience
            f"settings are valid (model {settings.model}, documents in {settings.sandbox_dir})",
            file=sys.stderr,
        )
        return 0
    level = settings.log_level
    if command == "chat" and level == "INFO":
        level = "WARNING"  # keep the terminal conversation readable
    setup_logging(level, secrets=_secrets(settings))
    try:
        if command == "chat":
            from bot.terminal import run_terminal  # noqa: PLC0415

            return asyncio.run(run_terminal(settings))
        return asyncio.run(run_bot(settings))
    except PromptError as exc:
        log.error("the system prompt cannot be used: %s", exc)
        return 2
    except KeyboardInterrupt:
        return 130
