"""The Telegram front door: run the bot until SIGTERM or Ctrl-C, long polling or webhook mode.

Every path out closes what was opened: the Bot session and the services, each even if the
other fails, so a failing session close never leaves the stores open. While updates are taken,
a heartbeat file in DATA_DIR is kept fresh for `python -m bot.healthcheck`. `GET /healthz` and
`GET /metrics` are served on the webhook's server, or in polling mode on METRICS_LISTEN when it
is set; aiohttp's server is imported only then, so a plain polling bot starts without it. With
WORKERS > 1 in webhook mode this process becomes the parent of that many workers
(`bot.telegram.workers`), each of which comes back here as a worker. A start that fails ends
with one line and an exit code that says whether a restart may help (`bot.process.exit_codes`).
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
from contextlib import AsyncExitStack
from typing import TYPE_CHECKING

from aiogram import Bot, Dispatcher
from aiogram.exceptions import (
    ClientDecodeError,
    TelegramAPIError,
    TelegramBadRequest,
    TelegramNetworkError,
    TelegramNotFound,
    TelegramUnauthorizedError,
)

from bot.monitoring import Health
from bot.process import exit_codes
from bot.process.heartbeat import Heartbeat
from bot.services import Services, close_services, open_services
from bot.settings.env_file import warn_of_env_file
from bot.settings.model import Settings
from bot.telegram.app import build_bot, build_dispatcher
from bot.telegram.upload_parts import remove_abandoned
from bot.telegram.workers import WorkerSeat, supervise, worker_seat

if TYPE_CHECKING:
    from aiohttp import web

log = logging.getLogger(__name__)


async def serve(settings: Settings) -> int:
    """Run the Telegram bot until SIGTERM or Ctrl-C; returns the exit code.

    With WORKERS > 1 in webhook mode this process supervises the workers; a worker (started
    by such a parent, `seat`) and a single process run the bot itself.
    """
    seat = worker_seat(os.environ)
    if seat is None:  # a worker reads the same .env as its parent, which warned already
        warn_of_env_file(settings.env_file_notes)
    if settings.workers > 1 and seat is None:
        if settings.webhook_url:
            return await _supervise(settings)
        log.warning(
            "WORKERS is %d, but long polling runs as one process (Telegram allows one "
            "getUpdates consumer); set WEBHOOK_URL to run several workers",
            settings.workers,
        )
    if seat is not None:
        log.info("worker %d of %d (pid %d)", seat.index, settings.workers, os.getpid())
    return await _serve_bot(settings, seat)


async def _supervise(settings: Settings) -> int:
    """The parent of several workers, once it has tried what each of them would otherwise
    find refused at the same moment: the database's login (bringing its schema up to date
    once, too) and the token. A refusal is then one line and one exit code, not one per
    worker and a round of restarts."""
    await _try_database(settings)
    bot = build_bot(settings)
    try:
        await bot.get_me()
    except _START_FAILURES as exc:
        return _start_failed(exc, settings)
    finally:
        await bot.session.close()
    return await supervise(settings, os.environ)


async def _try_database(settings: Settings) -> None:
    """Open DATABASE_URL as a worker does and close it; raises `StorageError` with the reason."""
    if settings.database_url is None:
        return
    from bot.storage import PostgresDatabase  # noqa: PLC0415  (the driver: only with a database)

    database = await PostgresDatabase.open(settings.database_url.get_secret_value())
    await database.close()


async def _serve_bot(settings: Settings, seat: WorkerSeat | None) -> int:
    """The bot in this process, until SIGTERM or Ctrl-C; the exit code."""
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
        async with Heartbeat(services.files.heartbeat):
            if settings.webhook_url:
                await _serve_webhook(dp, bot, settings, services, seat=seat)
            else:
                await _poll(dp, bot, settings, services)
    except _START_FAILURES as exc:
        return _start_failed(exc, settings)
    finally:
        try:
            await bot.session.close()
        except Exception as exc:  # closing must go on to the stores
            log.warning("closing the Telegram session failed: %s", exc)
        finally:
            await close_services(services)
    log.info("stopped")
    return exit_codes.STOPPED


_START_FAILURES = (OSError, TelegramAPIError, ClientDecodeError)
"""What starting to serve raises that `_start_failed` turns into one line and an exit code."""


def _start_failed(exc: Exception, settings: Settings) -> int:
    """Log in one line why the bot could not start; the exit code says whether a restart may
    help (`bot.process.exit_codes`): a refusal of the settings stops it, a network failure does
    not."""
    match exc:
        case TelegramUnauthorizedError() | TelegramNotFound():
            log.error(
                "Telegram refused BOT_TOKEN (%s); copy the token from @BotFather again",
                exc.message,
            )
            return exit_codes.FIX_SETTINGS
        case TelegramBadRequest():  # e.g. setWebhook refusing WEBHOOK_URL
            log.error("Telegram refused to start the bot: %s", exc.message)
            return exit_codes.FIX_SETTINGS
        case TelegramNetworkError():
            log.error("cannot reach the Telegram Bot API: %s", exc)
            return exit_codes.TRY_AGAIN
        case TelegramAPIError():  # 5xx, flood control: Telegram's side, for now
            log.error("Telegram could not start the bot: %s", exc)
            return exit_codes.TRY_AGAIN
        case ClientDecodeError():  # a proxy's error page, or another service on that port
            log.error(
                "the server at %s did not answer like a Telegram Bot API (%s); "
                "check TELEGRAM_API_BASE",
                settings.telegram_api_base or "api.telegram.org",
                _first_line(str(exc.data) if exc.data is not None else exc.message),
            )
            return exit_codes.TRY_AGAIN
        case OSError():  # a listening address that is taken or not this machine's
            log.error("%s", exc.strerror or exc)
            return exit_codes.TRY_AGAIN
    raise exc


def health_and_metrics(services: Services) -> list[web.RouteDef]:
    """`GET /healthz` (the history store and the search index) and `GET /metrics`."""
    from bot.monitoring.web import monitoring_routes  # noqa: PLC0415  (aiohttp's server)

    health = Health(services.history.ping, services.toolbox.status)
    return monitoring_routes(health, services.metrics)


def admin_app(dp: Dispatcher, bot: Bot, settings: Settings) -> list[web.RouteDef]:
    """The admins' Mini App's page and API under ADMIN_APP_URL's path; none when it is off.
    It works with the objects the commands are given (the dispatcher's workflow data)."""
    path = settings.admin_app_path
    if path is None:
        return []
    from bot.telegram.admin_app.desk import AdminDesk  # noqa: PLC0415  (aiohttp's server)
    from bot.telegram.admin_app.routes import admin_app_routes  # noqa: PLC0415

    desk = AdminDesk(
        token=bot.token,
        access=dp["access"],
        scopes=dp["scopes"],
        documents=dp["documents"],
        audit=dp["audit"],
        toolbox=dp["toolbox"],
        feedback=dp["feedback"],
        max_upload_mb=settings.max_upload_mb,
        budgets=dp["budgets"],
        sources=dp["sources"],
        bot=bot,
        access_requests=dp["access_requests"],
        clock=dp["tuning"].wall_clock,
    )
    return admin_app_routes(path, desk)


async def _serve_webhook(
    dp: Dispatcher,
    bot: Bot,
    settings: Settings,
    services: Services,
    *,
    seat: WorkerSeat | None,
) -> None:
    """The webhook server, alone or as one of several workers (`seat`), and the pruning of old
    update claims beside it (by one process: the single one, or worker 0)."""
    # the webhook's server and its exactly-once handling are aiohttp's server: webhook mode only
    from bot.telegram.exactly_once import forget_old_claims  # noqa: PLC0415
    from bot.telegram.webhook import run_webhook  # noqa: PLC0415

    claims = services.claims
    if services.database is not None:
        owner = services.database.owner
    else:
        owner = f"{socket.gethostname()}:{os.getpid()}"
    first = seat is None or seat.index == 0
    async with AsyncExitStack() as stack:
        if first:
            pruning = asyncio.create_task(forget_old_claims(claims))
            stack.callback(pruning.cancel)
        await run_webhook(
            dp,
            bot,
            settings,
            extra_routes=[*health_and_metrics(services), *admin_app(dp, bot, settings)],
            claims=claims,
            owner=owner,
            listening=seat.socket() if seat is not None else None,
            register=first,
        )


async def _poll(dp: Dispatcher, bot: Bot, settings: Settings, services: Services) -> None:
    """Long polling, with health and metrics (and the admins' Mini App) on METRICS_LISTEN
    while it runs (when set)."""
    async with AsyncExitStack() as stack:
        address = settings.metrics_address
        if address is not None:
            from bot.monitoring.web import monitoring_server  # noqa: PLC0415  (aiohttp's server)

            routes = [*health_and_metrics(services), *admin_app(dp, bot, settings)]
            await stack.enter_async_context(monitoring_server(*address, routes))
        await bot.delete_webhook(drop_pending_updates=False)
        await dp.start_polling(
            bot, allowed_updates=dp.resolve_used_update_types(), handle_signals=True
        )


def _first_line(text: str, limit: int = 120) -> str:
    """The start of a server's reply, enough to recognise it, on one line."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"
