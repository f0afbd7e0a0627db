"""The composition root: the one place that builds the Bot, Dispatcher, stores and Agent.

The command menu lives in `bot.menu`, the polling/webhook run loop in `bot.polling`.

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
from bot.upload_parts import remove_abandoned
from tools import Toolbox, build_toolbox

if TYPE_CHECKING:
    from aiogram import Bot, Dispatcher

    from bot.handlers.tuning import Tuning
    from bot.middlewares import InFlight
    from bot.pending_status import PendingStatusStore

__all__ = [
    "Services",
    "build_bot",
    "build_dispatcher",
    "close_services",
    "open_services",
    "run_command",
    "warn_about_settings",
]

log = logging.getLogger(__name__)

_TELEGRAM_DOWNLOAD_MB = 20


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
    if settings.sandbox_dir.is_dir():
        await asyncio.to_thread(remove_abandoned, settings.sandbox_dir)
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
    """A Bot for Telegram's servers or TELEGRAM_API_BASE; parse mode is chosen per call.

    With TELEGRAM_API_LOCAL the server runs with `--local`: getFile answers with a path on the
    server's disk, which aiogram then reads directly (so that disk must be mounted here too).
    """
    from aiogram import Bot  # noqa: PLC0415 - see the module docstring
    from aiogram.client.session.aiohttp import AiohttpSession  # noqa: PLC0415
    from aiogram.client.telegram import TelegramAPIServer  # noqa: PLC0415

    assert settings.bot_token is not None
    token = settings.bot_token.get_secret_value().strip()
    if settings.telegram_api_base:
        api = TelegramAPIServer.from_base(
            settings.telegram_api_base, is_local=settings.telegram_api_local
        )
        return Bot(token, session=AiohttpSession(api=api))
    return Bot(token)


def warn_about_settings(settings: Settings) -> None:
    """Log settings that start fine but cannot work as the admin probably meant."""
    if not (settings.allow_all or settings.allowed_user_ids or settings.admin_ids):
        log.warning(
            "nobody can use the bot: ALLOWED_USER_IDS and ADMIN_IDS are empty and ALLOW_ALL "
            "is off; everyone gets the access refusal with their id"
        )
    if settings.max_upload_mb > _TELEGRAM_DOWNLOAD_MB and not settings.telegram_api_local:
        log.warning(
            "MAX_UPLOAD_MB is %g, but without a local Bot API server (TELEGRAM_API_LOCAL) "
            "Telegram hands bots files of %d MB at most",
            settings.max_upload_mb,
            _TELEGRAM_DOWNLOAD_MB,
        )


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
        PasteJoiner,
        RateLimitMiddleware,
    )
    from bot.pacing import EditPacer  # noqa: PLC0415
    from bot.pending_status import FILE_NAME, PendingStatusStore  # noqa: PLC0415

    tuning = tuning or Tuning()
    in_flight = InFlight()
    pacer = EditPacer(tuning.edit_interval_s)
    pending_status = PendingStatusStore(settings.data_dir / FILE_NAME)
    dp = Dispatcher(
        disable_fsm=True,
        settings=settings,
        agent=agent,
        toolbox=toolbox,
        tuning=tuning,
        pacer=pacer,
        asker=Asker(agent, settings, pacer, tuning, pending_status),
        pending_status=pending_status,
        albums=Albums(),
        in_flight=in_flight,
    )
    dp.update.outer_middleware(AccessMiddleware(settings))
    dp.message.middleware(RateLimitMiddleware(settings.rate_limit_per_hour))
    dp.message.middleware(PasteJoiner(tuning.paste_window_s))
    dp.message.middleware(
        ConversationOrderMiddleware(in_flight, max_waiting=tuning.max_waiting_per_chat)
    )
    dp.include_routers(*make_routers())
    dp.startup.register(_on_startup)
    dp.shutdown.register(_on_shutdown)
    return dp


async def _on_startup(
    bot: Bot, settings: Settings, toolbox: Toolbox, pending_status: PendingStatusStore
) -> None:
    from bot.menu import register_commands  # noqa: PLC0415 - see the module docstring
    from bot.pending_status import tidy_leftovers  # noqa: PLC0415

    me = await bot.me()
    await tidy_leftovers(bot, pending_status)
    await register_commands(bot, settings.admin_ids, settings.data_dir)
    warn_about_settings(settings)
    index = toolbox.status()
    log.info(
        "bot @%s started: model %s, sandbox %s, %d documents%s",
        me.username,
        settings.model,
        toolbox.sandbox.root,
        index.documents,
        "" if index.ready else " (first index build still running)",
    )


async def _on_shutdown(
    in_flight: InFlight, tuning: Tuning, pending_status: PendingStatusStore
) -> None:
    try:
        await in_flight.drain(tuning.shutdown_grace_s)
    finally:
        await pending_status.close()


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
        from bot.polling import run_bot  # noqa: PLC0415

        return asyncio.run(run_bot(settings))
    except PromptError as exc:
        log.error("the system prompt cannot be used: %s", exc)
        return 2
    except KeyboardInterrupt:
        return 130
