"""A fake Telegram Bot API over HTTP on 127.0.0.1, for the bot run as a process.

It serves queued updates through long-polling `getUpdates`, records every call with its
parameters, and answers the methods the bot uses with plausible results. Like the session
inside the process, it refuses what Telegram refuses (`TelegramRules`). It notes the moment
of the first getUpdates, when a starting bot begins to serve, for the start-up benchmark.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from tests.fakes.accounts import bot_user_json
from tests.fakes.telegram_rules import Refused, TelegramRules, formatted


@dataclass
class ApiCall:
    """One request the bot made: method name and decoded parameters."""

    method: str
    params: dict[str, Any]


@dataclass
class FakeBotApi:
    """The server; `base_url` is what TELEGRAM_API_BASE should be.

    Refused calls are recorded in `calls` like the others and listed again in `refused`.
    """

    token: str
    calls: list[ApiCall] = field(default_factory=list)
    refused: list[ApiCall] = field(default_factory=list)
    telegram: TelegramRules = field(default_factory=TelegramRules)
    base_url: str = ""
    first_poll_at: float | None = None  # time.perf_counter() at the first getUpdates
    _updates: list[dict[str, Any]] = field(default_factory=list)
    _update_ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _message_ids: itertools.count[int] = field(default_factory=lambda: itertools.count(500))
    _changed: asyncio.Condition = field(default_factory=asyncio.Condition)
    _runner: web.AppRunner | None = None

    async def start(self) -> None:
        app = web.Application()
        app.router.add_post("/bot{token}/{method}", self._handle)
        self._runner = web.AppRunner(app, shutdown_timeout=0.5)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = self._runner.addresses[0][1]
        self.base_url = f"http://127.0.0.1:{port}"

    async def close(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    def reset(self) -> None:
        """Forget the calls and the first poll, before starting the next bot."""
        self.calls.clear()
        self.refused.clear()
        self.first_poll_at = None

    def add_message(self, chat_id: int, message_id: int) -> None:
        """Make `message_id` a message in `chat_id` from before the test, so it can be edited."""
        self.telegram.add_message(chat_id, message_id)

    async def wait_first_poll(self) -> float:
        """Wait for the first getUpdates since start or `reset`; return its perf_counter time."""
        async with self._changed:
            await self._changed.wait_for(lambda: self.first_poll_at is not None)
            assert self.first_poll_at is not None
            return self.first_poll_at

    async def push_update(self, kind: str, payload: dict[str, Any]) -> None:
        """Queue an update for the next getUpdates."""
        async with self._changed:
            self._updates.append({"update_id": next(self._update_ids), kind: payload})
            self._changed.notify_all()

    async def wait_for(self, predicate: Callable[[list[ApiCall]], bool], within_s: float) -> None:
        """Wait until the recorded calls satisfy `predicate`."""
        async with asyncio.timeout(within_s), self._changed:
            await self._changed.wait_for(lambda: predicate(self.calls))

    async def _handle(self, request: web.Request) -> web.Response:
        if request.match_info["token"] != self.token:
            return web.json_response(
                {"ok": False, "error_code": 401, "description": "Unauthorized"}, status=401
            )
        method = request.match_info["method"]
        params = {k: _decode(v) for k, v in (await request.post()).items()}
        call = ApiCall(method, params)
        async with self._changed:
            if method.lower() == "getupdates" and self.first_poll_at is None:
                self.first_poll_at = time.perf_counter()
            self.calls.append(call)
            self._changed.notify_all()
        if method.lower() == "getupdates":
            return web.json_response({"ok": True, "result": await self._poll(params)})
        try:
            self.telegram.check(method, params)
        except Refused as refused:
            self.refused.append(call)
            body = {"ok": False, "error_code": 400, "description": refused.description}
            return web.json_response(body, status=400)
        result = self._result(method, params)
        if result is None:
            body = {"ok": False, "error_code": 404, "description": "Not Found: method not found"}
            return web.json_response(body, status=404)
        self.telegram.accepted(method, params, result)
        return web.json_response({"ok": True, "result": result})

    async def _poll(self, params: dict[str, Any]) -> list[dict[str, Any]]:
        offset = int(params.get("offset") or 0)
        wait_s = float(params.get("timeout") or 0)

        def fresh() -> list[dict[str, Any]]:
            return [u for u in self._updates if u["update_id"] >= offset]

        async with self._changed:
            if not fresh() and wait_s > 0:
                try:
                    async with asyncio.timeout(wait_s):
                        await self._changed.wait_for(lambda: bool(fresh()))
                except TimeoutError:
                    pass
            return fresh()

    def _result(self, method: str, params: dict[str, Any]) -> Any:
        name = method.lower()
        if name == "getme":
            return bot_user_json()
        if name in {"sendmessage", "editmessagetext"}:
            chat_id = int(params["chat_id"])
            message_id = int(params.get("message_id") or next(self._message_ids))
            kept = formatted(str(params.get("text") or ""), params.get("parse_mode"))
            message: dict[str, Any] = {
                "message_id": message_id,
                "date": int(time.time()),
                "chat": {"id": chat_id, "type": "private"},
                "from": bot_user_json(),
                "text": kept.text,
            }
            if kept.entities:
                message["entities"] = [e.as_json() for e in kept.entities]
            return message
        if name in {
            "deletewebhook",
            "setwebhook",
            "sendchataction",
            "setmycommands",
            "deletemessage",
        }:
            return True
        return None


def _decode(value: Any) -> Any:
    """Form fields arrive as text; JSON-looking ones (objects, lists) are decoded."""
    if isinstance(value, str) and value[:1] in "[{":
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value
