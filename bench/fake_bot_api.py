"""A fake Telegram Bot API for the benchmarks, run in its own process.

It is the test suite's HTTP fake (`tests.fakes.bot_api_http`), which keeps Telegram's rules,
plus what a benchmark needs to read from outside: which messages carry an answer. A message
counts once however often it is edited, so an answer delivered twice shows as two messages.
`GET /_bench/answers?mark=TEXT&chats=N` waits until N chats hold a message containing TEXT (or
returns at once without `chats`) and answers with the counts and this process's CPU seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
import time
from collections import defaultdict
from typing import Any

from aiohttp import web

from tests.fakes.accounts import BOT_TOKEN
from tests.fakes.bot_api_http import FakeBotApi


class CountingBotApi(FakeBotApi):
    """The fake Bot API, noting each (chat, message) whose text carries a mark."""

    def __init__(self, token: str) -> None:
        super().__init__(token=token)
        self.marked: dict[str, dict[int, set[int]]] = {}
        self._counted = asyncio.Event()
        self.requests = 0

    def watch(self, mark: str) -> dict[int, set[int]]:
        return self.marked.setdefault(mark, defaultdict(set))

    def _result(self, method: str, params: dict[str, Any]) -> Any:
        self.requests += 1
        if method.lower() == "sendmessagedraft":
            return True  # drafts are what Telegram shows in private chats as an answer grows
        result = super()._result(method, params)
        if method.lower() in {"sendmessage", "editmessagetext"} and isinstance(result, dict):
            text = str(params.get("text") or "")
            chat = int(params["chat_id"])
            for mark, chats in self.marked.items():
                if mark in text:
                    chats[chat].add(int(result["message_id"]))
            self._counted.set()
        return result

    async def answers(self, request: web.Request) -> web.Response:
        mark = request.query["mark"]
        wanted = int(request.query.get("chats", "0"))
        chats = self.watch(mark)
        while len(chats) < wanted:
            self._counted.clear()
            await self._counted.wait()
        body = {
            "chats": len(chats),
            "messages": sum(len(ids) for ids in chats.values()),
            "twice": sum(1 for ids in chats.values() if len(ids) > 1),
            "requests": self.requests,
            "cpu_s": time.process_time(),
        }
        return web.json_response(body)


async def serve() -> None:
    """Serve until SIGTERM or stdin closes; the base URL is printed first."""
    api = CountingBotApi(BOT_TOKEN)
    await api.start()
    assert api._runner is not None
    # The counting route is served by a second site of its own, beside the Bot API.
    extra = web.Application()
    extra.router.add_get("/_bench/answers", api.answers)
    runner = web.AppRunner(extra)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    print(api.base_url, f"http://127.0.0.1:{runner.addresses[0][1]}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    loop.add_reader(sys.stdin.fileno(), lambda: stop.set() if not sys.stdin.read(1) else None)
    await stop.wait()
    await runner.cleanup()
    await api.close()


def main(argv: list[str] | None = None) -> int:
    """`python -m bench.fake_bot_api`: prints the Bot API's base URL and the counting URL."""
    argparse.ArgumentParser(prog="python -m bench.fake_bot_api").parse_args(argv)
    asyncio.run(serve())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
