"""Webhook mode: an aiohttp server receives updates Telegram posts to WEBHOOK_URL.

Every request must carry the secret token Telegram was given with `setWebhook` (header
`X-Telegram-Bot-Api-Secret-Token`); others get 401. Without WEBHOOK_SECRET a random secret is
made at each start, so the check is never off (set one when several machines share the URL;
the workers of one machine are given their parent's). Each update is claimed before it is
handled, so a resent one is answered once (`bot.telegram.exactly_once`). The same server
answers `GET /healthz` and `GET /metrics` (`bot.monitoring`), which carry no secret check: let
the reverse proxy pass only the webhook's path from outside.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import signal
import socket
from collections.abc import Sequence
from contextlib import suppress
from urllib.parse import urlsplit

from aiogram import Bot, Dispatcher
from aiogram.webhook.aiohttp_server import setup_application
from aiohttp import web

from bot.settings.model import Settings
from bot.storage import UpdateClaims
from bot.telegram.exactly_once import ClaimingRequestHandler, MemoryClaims

log = logging.getLogger(__name__)


def webhook_secret(settings: Settings) -> str:
    """WEBHOOK_SECRET, or a fresh random one (Telegram allows letters, digits, _ and -)."""
    if settings.webhook_secret is not None:
        return settings.webhook_secret.get_secret_value()
    return secrets.token_urlsafe(32)


def build_webhook_app(
    dp: Dispatcher,
    bot: Bot,
    path: str,
    secret: str,
    extra_routes: Sequence[web.RouteDef] = (),
    *,
    claims: UpdateClaims | None = None,
    owner: str = "",
    lease_s: float = 60.0,
) -> web.Application:
    """The aiohttp application: dispatcher start-up and shutdown, then the update route, and
    `extra_routes` (health and metrics) beside it.

    Each update is claimed in `claims` (this process's memory when None) as `owner`, for
    `lease_s` at a time. Start-up and shutdown hooks are added before the route's own shutdown
    hook (which closes the Bot session), so questions still running at shutdown can deliver
    their answers.
    """
    app = web.Application()
    setup_application(app, dp, bot=bot)
    ClaimingRequestHandler(
        dp,
        bot,
        secret_token=secret,
        claims=claims if claims is not None else MemoryClaims(),
        owner=owner or f"pid {os.getpid()}",
        lease_s=lease_s,
    ).register(app, path=path)
    app.add_routes(extra_routes)
    return app


async def run_webhook(
    dp: Dispatcher,
    bot: Bot,
    settings: Settings,
    *,
    stop: asyncio.Event | None = None,
    extra_routes: Sequence[web.RouteDef] = (),
    claims: UpdateClaims | None = None,
    owner: str = "",
    listening: socket.socket | None = None,
    register: bool = True,
) -> None:
    """Serve on WEBHOOK_LISTEN and register WEBHOOK_URL with Telegram until SIGTERM/SIGINT.

    `stop` replaces the signals (an embedding program, or a test, decides when to stop);
    `extra_routes` are served beside the webhook (health and metrics). `claims` and `owner`:
    the shared record of who handles which update, and this worker's name in it. A worker of
    several serves on the `listening` socket its parent bound, and only one of them
    (`register`) calls setWebhook.
    """
    assert settings.webhook_url is not None
    path = urlsplit(settings.webhook_url).path or "/"
    secret = webhook_secret(settings)
    app = build_webhook_app(
        dp,
        bot,
        path,
        secret,
        extra_routes,
        claims=claims,
        owner=owner,
        lease_s=settings.update_lease_s,
    )
    runner = web.AppRunner(app)
    try:
        await runner.setup()
        site: web.BaseSite
        if listening is not None:
            site = web.SockSite(runner, listening)
        else:
            site = web.TCPSite(runner, settings.webhook_host, settings.webhook_port)
        await site.start()
        if register:
            await bot.set_webhook(
                settings.webhook_url,
                secret_token=secret,
                allowed_updates=dp.resolve_used_update_types(),
            )
        log.info("webhook mode: listening on %s, path %s", settings.webhook_listen, path)
        await (stop.wait() if stop is not None else _until_stopped())
    finally:
        await runner.cleanup()


async def _until_stopped() -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    log.info("stop signal received")
