"""What the admins' Mini App tests share: a client of the app's server over real HTTP on
127.0.0.1, opened as an admin with `initData` signed as Telegram signs it."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from bot.telegram.run import admin_app
from tests.fakes.accounts import ADMIN_ID, BOT_TOKEN
from tests.fakes.harness import Harness
from tests.fakes.init_data import signed_init_data

APP_URL = "https://bot.example.com/admin"


class App:
    """A client of the Mini App's server, opened as `user_id` (signed now unless told)."""

    def __init__(self, client: TestClient[web.Request, None], harness: Harness) -> None:
        self.client = client
        self.harness = harness

    def auth(self, user_id: int = ADMIN_ID, *, age_s: float = 0, lang: str = "ru") -> str:
        now = self.harness.dp["tuning"].wall_clock()
        data = signed_init_data(
            BOT_TOKEN, user_id=user_id, auth_date=now - age_s, language_code=lang
        )
        return f"tma {data}"

    async def get(self, path: str, user_id: int = ADMIN_ID, **auth: Any) -> tuple[int, Any]:
        headers = {"Authorization": self.auth(user_id, **auth)}
        async with self.client.get(f"/admin/api/{path}", headers=headers) as response:
            return response.status, await response.json()

    async def post(
        self, path: str, body: dict[str, Any], user_id: int = ADMIN_ID
    ) -> tuple[int, Any]:
        headers = {"Authorization": self.auth(user_id)}
        async with self.client.post(f"/admin/api/{path}", json=body, headers=headers) as response:
            return response.status, await response.json()

    async def found(self, query: str) -> set[str]:
        result = await self.harness.services.toolbox.execute("search_files", {"query": query})
        return {r["path"] for r in json.loads(result.text).get("results", [])}


@pytest.fixture
def open_app(make_dispatcher: Any) -> Callable[..., Any]:
    """Start the bot's dispatcher with ADMIN_APP_URL (and `settings`) and serve the app's
    routes from the bot's own wiring; yields an `App`."""

    @asynccontextmanager
    async def start(**settings: Any) -> AsyncIterator[App]:
        settings = {"admin_app_url": APP_URL, "metrics_listen": "127.0.0.1:9", **settings}
        async with make_dispatcher(**settings) as harness:
            await harness.services.toolbox.wait_ready()
            app = web.Application()
            app.add_routes(admin_app(harness.dp, harness.bot, harness.settings))
            async with TestServer(app, host="127.0.0.1") as server:
                client: TestClient[web.Request, None] = TestClient(server)
                async with client:
                    yield App(client, harness)

    return start
