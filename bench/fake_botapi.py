"""A minimal fake Telegram Bot API over HTTP on 127.0.0.1, for timing a real `python -m bot`.

It answers getMe with a bot user, long-polls getUpdates with an empty list, accepts everything
else, and notes when the first getUpdates arrives: the moment the bot is serving.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

from aiohttp import web

BOT_USER = {
    "id": 42,
    "is_bot": True,
    "first_name": "Docs",
    "username": "docs_bench_bot",
    "can_join_groups": True,
    "can_read_all_group_messages": False,
    "supports_inline_queries": False,
}


class FakeBotAPI:
    """The server; `first_poll` is set (with the perf_counter time) on the first getUpdates."""

    def __init__(self) -> None:
        self.base_url = ""
        self.first_poll = asyncio.Event()
        self.first_poll_at = 0.0
        self.methods: list[str] = []
        self._runner: web.AppRunner | None = None
        self._closing = asyncio.Event()

    def reset(self) -> None:
        """Forget the previous bot's calls before the next start."""
        self.first_poll = asyncio.Event()
        self.first_poll_at = 0.0
        self.methods.clear()

    async def start(self) -> None:
        app = web.Application()
        app.router.add_route("*", "/bot{token}/{method}", self._handle)
        self._runner = web.AppRunner(app, shutdown_timeout=0.5)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = self._runner.addresses[0][1]
        self.base_url = f"http://127.0.0.1:{port}"

    async def close(self) -> None:
        self._closing.set()
        if self._runner is not None:
            await self._runner.cleanup()

    async def _handle(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        self.methods.append(method)
        result: Any = True
        if method == "getMe":
            result = BOT_USER
        elif method == "getUpdates":
            if not self.first_poll.is_set():
                self.first_poll_at = time.perf_counter()
                self.first_poll.set()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._closing.wait(), 0.5)
            result = []
        return web.json_response({"ok": True, "result": result})
