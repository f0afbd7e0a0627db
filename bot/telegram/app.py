"""The Telegram wing's composition: the Bot, the Dispatcher and everything they are given.

`build_dispatcher` wires a Dispatcher from the shared services handed in, so tests pass a fake
Bot session and a fake model server while `python -m bot` passes the real ones. Everything a
handler or middleware needs arrives as workflow data or a constructor argument; nothing here
keeps module-level state.
"""

from __future__ import annotations

import logging

from aiogram import Bot, Dispatcher
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer

from bot.config import Settings
from bot.services import Services
from bot.telegram.albums import Albums
from bot.telegram.context import ChatContextMiddleware
from bot.telegram.handlers import make_routers
from bot.telegram.handlers.questions import Asker
from bot.telegram.menu import register_commands
from bot.telegram.middlewares import (
    AccessMiddleware,
    ConversationOrderMiddleware,
    InFlight,
    PasteJoiner,
    RateLimitMiddleware,
)
from bot.telegram.output.pacing import EditPacer
from bot.telegram.output.pending_status import PendingStatusStore, tidy_leftovers
from bot.telegram.tuning import Tuning
from tools import Toolbox

__all__ = ["build_bot", "build_dispatcher", "warn_about_settings"]

log = logging.getLogger(__name__)

_TELEGRAM_DOWNLOAD_MB = 20


def build_bot(settings: Settings) -> Bot:
    """A Bot for Telegram's servers or TELEGRAM_API_BASE; parse mode is chosen per call.

    With TELEGRAM_API_LOCAL the server runs with `--local`: getFile answers with a path on the
    server's disk, which aiogram then reads directly (so that disk must be mounted here too).
    """
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
    settings: Settings, services: Services, *, tuning: Tuning | None = None
) -> Dispatcher:
    """A Dispatcher with every middleware and router, its dependencies as workflow data."""
    tuning = tuning or Tuning()
    in_flight = InFlight()
    pacer = EditPacer(tuning.edit_interval_s)
    pending_status = PendingStatusStore(services.files.pending_status)
    dp = Dispatcher(
        disable_fsm=True,
        settings=settings,
        agent=services.agent,
        toolbox=services.toolbox,
        tuning=tuning,
        pacer=pacer,
        asker=Asker(services.agent, settings, pacer, tuning, pending_status),
        pending_status=pending_status,
        albums=Albums(),
        in_flight=in_flight,
    )
    dp.update.outer_middleware(ChatContextMiddleware())
    dp.update.outer_middleware(AccessMiddleware(settings))
    dp.message.middleware(RateLimitMiddleware(settings.rate_limit_per_hour))
    dp.message.middleware(PasteJoiner(tuning.paste_window_s))
    dp.message.middleware(
        ConversationOrderMiddleware(
            in_flight, services.locks, max_waiting=tuning.max_waiting_per_chat
        )
    )
    dp.include_routers(*make_routers())
    dp.startup.register(_on_startup)
    dp.shutdown.register(_on_shutdown)
    return dp


async def _on_startup(
    bot: Bot, settings: Settings, toolbox: Toolbox, pending_status: PendingStatusStore
) -> None:
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
