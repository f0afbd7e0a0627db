"""A one-handler HTTP server on 127.0.0.1, for a server that answers the same way every time:
one that fails, one that is not what the bot expects, one that never answers."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

from aiohttp import web

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@asynccontextmanager
async def serving(
    handler: Handler, *, path: str = "/{tail:.*}", method: str = "*"
) -> AsyncIterator[str]:
    """`handler` answers `method` requests to `path` (by default every request); yields the
    server's base URL, `http://127.0.0.1:PORT`."""
    app = web.Application()
    app.router.add_route(method, path, handler)
    runner = web.AppRunner(app, shutdown_timeout=0.1)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    try:
        yield f"http://127.0.0.1:{runner.addresses[0][1]}"
    finally:
        await runner.cleanup()
