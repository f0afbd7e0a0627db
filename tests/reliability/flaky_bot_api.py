"""The fake Bot API over HTTP with the failures a real one has.

On top of `FakeBotApi`: scripted error answers per method (getUpdates included, e.g. 502),
confirmed updates forgotten as Telegram forgets them (so a restarted bot does not get them
again), and `getFile` answered so a download can be attempted (and fail: no file is served).
"""

from __future__ import annotations

from collections import defaultdict, deque
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from tests.fakes.bot_api_http import ApiCall, FakeBotApi, _decode


@dataclass
class FlakyBotApi(FakeBotApi):
    """`fail(method, status, description)` queues an error answer for that method.

    Refused calls are recorded in `calls` like the others and listed again in `refused`.
    """

    failures: dict[str, deque[dict[str, Any]]] = field(default_factory=lambda: defaultdict(deque))
    refused: list[ApiCall] = field(default_factory=list)

    def fail(
        self,
        method: str,
        status: int,
        description: str,
        *,
        times: int = 1,
        retry_after: int | None = None,
    ) -> None:
        """Answer the next `times` calls of `method` with this error (a 429 with `retry_after`)."""
        body: dict[str, Any] = {"ok": False, "error_code": status, "description": description}
        if retry_after is not None:
            body["parameters"] = {"retry_after": retry_after}
        for _ in range(times):
            self.failures[method.lower()].append(body)

    def texts_to(self, chat_id: int) -> list[str]:
        """Texts of the sendMessage and editMessageText calls to `chat_id` that succeeded."""
        refused = {id(c) for c in self.refused}
        return [
            str(c.params.get("text"))
            for c in self.calls
            if c.method in {"sendMessage", "editMessageText"}
            and str(c.params.get("chat_id")) == str(chat_id)
            and id(c) not in refused
        ]

    async def _handle(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        queued = self.failures.get(method.lower())
        if request.match_info["token"] != self.token or not queued:
            return await super()._handle(request)
        body = queued.popleft()
        params = {k: _decode(v) for k, v in (await request.post()).items()}
        call = ApiCall(method, params)
        self.refused.append(call)
        async with self._changed:
            self.calls.append(call)
            self._changed.notify_all()
        return web.json_response(body, status=body["error_code"])

    async def _poll(self, params: dict[str, Any]) -> list[dict[str, Any]]:
        offset = int(params.get("offset") or 0)
        if offset:
            self._updates = [u for u in self._updates if u["update_id"] >= offset]
        return await super()._poll(params)

    def _result(self, method: str, params: dict[str, Any]) -> Any:
        if method.lower() == "getfile":
            file_id = str(params["file_id"])
            return {
                "file_id": file_id,
                "file_unique_id": f"u{file_id}",
                "file_size": 10,
                "file_path": f"documents/{file_id}",
            }
        return super()._result(method, params)
