"""`GET /healthz` and `GET /metrics` over aiohttp: on the webhook server, or on their own.

Webhook mode adds the two routes to the server Telegram posts to (WEBHOOK_LISTEN); in polling
mode there is no server, so `monitoring_server` starts a small one on METRICS_LISTEN when it is
set. aiohttp is the webhook's own HTTP stack, so this costs no new dependency and no aiogram.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST

from bot.monitoring.health import Health
from bot.monitoring.metrics import Metrics

log = logging.getLogger(__name__)

HEALTH_PATH = "/healthz"
METRICS_PATH = "/metrics"


def monitoring_routes(health: Health, metrics: Metrics) -> list[web.RouteDef]:
    """The two routes: health as a short JSON body (200 or 503), metrics as Prometheus text."""

    async def healthz(_: web.Request) -> web.Response:
        report = await health.check()
        return web.json_response(report.body, status=200 if report.ok else 503)

    async def scrape(_: web.Request) -> web.Response:
        return web.Response(body=metrics.render(), headers={"Content-Type": CONTENT_TYPE_LATEST})

    return [web.get(HEALTH_PATH, healthz), web.get(METRICS_PATH, scrape)]


@asynccontextmanager
async def monitoring_server(
    host: str, port: int, routes: Sequence[web.RouteDef]
) -> AsyncIterator[web.AppRunner]:
    """Serve `routes` on host:port for the `async with` body, then stop."""
    app = web.Application()
    app.add_routes(routes)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    try:
        try:
            await web.TCPSite(runner, host, port).start()
        except OSError as exc:
            msg = f"cannot serve health and metrics on {host}:{port}: {exc.strerror or exc}"
            raise OSError(exc.errno, msg) from exc
        log.info("health and metrics: listening on %s:%d", host, port)
        yield runner
    finally:
        await runner.cleanup()
