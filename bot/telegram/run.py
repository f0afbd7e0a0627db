"""The Telegram front door: run the bot until SIGTERM or Ctrl-C, long polling or webhook mode.

Every path out closes what was opened: the Bot session and the services, each even if the
other fails, so a failing session close never leaves the stores open. While updates are taken,
a heartbeat file in DATA_DIR is kept fresh for `python -m bot.healthcheck`. `GET /healthz` and
`GET /metrics` are served on the webhook's server, or in polling mode on METRICS_LISTEN when it
is set.
"""

from __future__ import annotations

import asyncio
import logging
from contextlib import AsyncExitStack

from aiogram import Bot, Dispatcher
from aiogram.exceptions import (
    ClientDecodeError,
    TelegramAPIError,
    TelegramNetworkError,
    TelegramUnauthorizedError,
)
from aiohttp import web

from bot.config import Settings
from bot.heartbeat import Heartbeat
from bot.monitoring import Health, monitoring_routes, monitoring_server
from bot.services import Services, close_services, open_services
from bot.telegram.app import build_bot, build_dispatcher
from bot.telegram.upload_parts import remove_abandoned
from bot.telegram.webhook import run_webhook

log = logging.getLogger(__name__)


async def serve(settings: Settings) -> int:
    """Run the Telegram bot until SIGTERM or Ctrl-C; returns the exit code."""
    if settings.sandbox_dir.is_dir():  # before the index's first scan meets them
        await asyncio.to_thread(remove_abandoned, settings.sandbox_dir)
    services = await open_services(settings)
    try:
        bot = build_bot(settings)
    except BaseException:
        await close_services(services)
        raise
    try:
        dp = build_dispatcher(settings, services)
        routes = health_and_metrics(services)
        async with Heartbeat(services.files.heartbeat):
            if settings.webhook_url:
                await run_webhook(dp, bot, settings, extra_routes=routes)
            else:
                await _poll(dp, bot, settings, routes)
    except OSError as exc:  # a listening address that is taken or not this machine's
        log.error("%s", exc.strerror or exc)
        return 1
    except TelegramUnauthorizedError:
        log.error("Telegram refused BOT_TOKEN; copy the token from @BotFather again")
        return 1
    except TelegramNetworkError as exc:
        log.error("cannot reach the Telegram Bot API: %s", exc)
        return 1
    except TelegramAPIError as exc:  # e.g. setWebhook refusing WEBHOOK_URL
        log.error("Telegram refused to start the bot: %s", exc)
        return 1
    except ClientDecodeError as exc:  # a proxy's error page, or another service on that port
        log.error(
            "the server at %s did not answer like a Telegram Bot API (%s); "
            "check TELEGRAM_API_BASE",
            settings.telegram_api_base or "api.telegram.org",
            _first_line(str(exc.data) if exc.data is not None else exc.message),
        )
        return 1
    finally:
        try:
            await bot.session.close()
        except Exception as exc:  # closing must go on to the stores
            log.warning("closing the Telegram session failed: %s", exc)
        finally:
            await close_services(services)
    log.info("stopped")
    return 0


def health_and_metrics(services: Services) -> list[web.RouteDef]:
    """`GET /healthz` (the history store and the search index) and `GET /metrics`."""
    health = Health(services.history.ping, services.toolbox.status)
    return monitoring_routes(health, services.metrics)


async def _poll(dp: Dispatcher, bot: Bot, settings: Settings, routes: list[web.RouteDef]) -> None:
    """Long polling, with health and metrics on METRICS_LISTEN while it runs (when set)."""
    async with AsyncExitStack() as stack:
        address = settings.metrics_address
        if address is not None:
            await stack.enter_async_context(monitoring_server(*address, routes))
        await bot.delete_webhook(drop_pending_updates=False)
        await dp.start_polling(
            bot, allowed_updates=dp.resolve_used_update_types(), handle_signals=True
        )


def _first_line(text: str, limit: int = 120) -> str:
    """The start of a server's reply, enough to recognise it, on one line."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"
