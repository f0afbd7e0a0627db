"""The fake Telegram Bot API and the fake model server, for the bot running in a container.

`.ci/container-test` runs the image against real HTTP servers without reaching the internet:
this starts the fakes from `tests/fakes` on free ports of 127.0.0.1 (a container on the host's
network reaches them there), and writes into STATE_DIR:

- `bot.env`: what the container needs (`docker run --env-file`): the fakes' URLs, the test
  bot's token, a model key, the user allowed to ask, a free port for `/healthz`;
- `documents/`: the sample documents the tests use.

On SIGUSR1 it asks one question: it scripts the model's turns (a search, then the answer),
waits for the bot's first getUpdates, sends the question from the allowed user, waits for the
answer to reach the fake Bot API and writes `result.json` (`answered`, the Bot API methods
called, refused calls, model requests). It serves until SIGTERM or SIGINT.

Run from the repository root with it on PYTHONPATH:
`PYTHONPATH=. .venv/bin/python .ci/fake_servers.py STATE_DIR`.
"""

from __future__ import annotations

import asyncio
import json
import signal
import socket
import sys
import time
from pathlib import Path
from typing import Any

from tests.fakes.accounts import BOT_TOKEN, USER_ID
from tests.fakes.bot_api_http import ApiCall, FakeBotApi
from tests.fakes.fake_llm import FakeLLM
from tests.fakes.sandbox_fixtures import SANDBOX_FILES
from tests.fakes.tool_round import calls_tools

API_KEY = "sk-container-test-key-5f1e2d"
QUESTION = "Сколько сахара в шарлотке?"
ANSWER = "Для шарлотки нужен 1 стакан сахара."
FIRST_POLL_WITHIN_S = 120.0
ANSWER_WITHIN_S = 60.0


def _answered(calls: list[ApiCall]) -> bool:
    return any(
        c.method in {"sendMessage", "editMessageText"} and ANSWER in str(c.params.get("text"))
        for c in calls
    )


def _question() -> dict[str, Any]:
    person = {"id": USER_ID, "is_bot": False, "first_name": "U", "language_code": "ru"}
    return {
        "message_id": 1,
        "date": int(time.time()),
        "chat": {"id": USER_ID, "type": "private", "first_name": "U"},
        "from": person,
        "text": QUESTION,
    }


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _write_documents(folder: Path) -> None:
    for relative, content in SANDBOX_FILES.items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)


async def _ask(api: FakeBotApi, llm: FakeLLM, state: Path) -> None:
    llm.responder = None  # from here on the model plays the script, not check's round trip
    llm.reply_tool_calls(("search_files", {"query": "шарлотка"}))
    llm.reply_text(ANSWER)
    answered = False
    try:
        await asyncio.wait_for(api.wait_first_poll(), FIRST_POLL_WITHIN_S)
        await api.push_update("message", _question())
        await api.wait_for(_answered, ANSWER_WITHIN_S)
        answered = True
    except TimeoutError:
        pass
    result = {
        "answered": answered,
        "methods": [c.method for c in api.calls],
        "refused": [c.method for c in api.refused],
        "model_requests": len(llm.requests),
    }
    (state / "result.json").write_text(json.dumps(result, ensure_ascii=False), encoding="utf-8")
    print("asked:", json.dumps(result, ensure_ascii=False), flush=True)


async def serve(state: Path) -> None:
    """Start the fakes, write what the container needs, serve until told to stop."""
    api = FakeBotApi(token=BOT_TOKEN)
    llm = FakeLLM()
    llm.responder = calls_tools  # `check`'s round trip with a tool, before the question
    await api.start()
    await llm.start()
    try:
        _write_documents(state / "documents")
        stop = asyncio.Event()
        asked: list[asyncio.Task[None]] = []
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGTERM, stop.set)
        loop.add_signal_handler(signal.SIGINT, stop.set)
        loop.add_signal_handler(
            signal.SIGUSR1, lambda: asked.append(asyncio.create_task(_ask(api, llm, state)))
        )
        env = {
            "BOT_TOKEN": BOT_TOKEN,
            "TELEGRAM_API_BASE": api.base_url,
            "OPENAI_BASE_URL": llm.base_url,
            "OPENAI_API_KEY": API_KEY,
            "ALLOWED_USER_IDS": str(USER_ID),
            "MODEL_MAX_RETRIES": "0",
            "REQUEST_TIMEOUT": "10",
            "LOG_LEVEL": "DEBUG",
            "METRICS_LISTEN": f"127.0.0.1:{_free_port()}",
        }
        lines = "".join(f"{name}={value}\n" for name, value in env.items())
        ready = state / "bot.env.part"
        ready.write_text(lines, encoding="utf-8")
        ready.rename(state / "bot.env")  # whole, and last: the sign that the fakes are ready
        print(f"fake Bot API {api.base_url}, fake model server {llm.base_url}", flush=True)
        await stop.wait()
        for task in asked:
            task.cancel()
    finally:
        await llm.close()
        await api.close()


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: fake_servers.py STATE_DIR")
    asyncio.run(serve(Path(sys.argv[1])))
