"""`python -m bot` as a real process against a fake Bot API and a fake model server."""

from __future__ import annotations

import os
import time
from pathlib import Path

from aiohttp import web

from tests.fakes.accounts import BOT_TOKEN, USER_ID
from tests.fakes.bot_api_http import ApiCall, FakeBotApi
from tests.fakes.fake_llm import FakeLLM
from tests.fakes.http_server import serving
from tests.fakes.processes import START_S, BotProcess, run_python

REPO = Path(__file__).resolve().parents[2]
API_KEY = "sk-e2e-secret-key-98765"
ANSWER = "Для шарлотки нужен 1 стакан сахара."


def _env(
    tmp_path: Path, sandbox_dir: Path, fake_llm: FakeLLM, api: FakeBotApi | None
) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "BOT_"))}
    env.update(
        PYTHONPATH=str(REPO),
        PYTHONUNBUFFERED="1",
        BOT_TOKEN=BOT_TOKEN,
        OPENAI_BASE_URL=fake_llm.base_url,
        OPENAI_API_KEY=API_KEY,
        SANDBOX_DIR=str(sandbox_dir),
        DATA_DIR=str(tmp_path / "data"),
        ALLOWED_USER_IDS=str(USER_ID),
        MODEL_MAX_RETRIES="0",
        REQUEST_TIMEOUT="10",
        LOG_LEVEL="DEBUG",
    )
    if api is not None:
        env["TELEGRAM_API_BASE"] = api.base_url
    return env


def _answered(calls: list[ApiCall]) -> bool:
    return any(
        c.method in {"sendMessage", "editMessageText"} and ANSWER in str(c.params.get("text"))
        for c in calls
    )


class TestBotProcess:
    async def test_answers_through_the_bot_api_and_stops_cleanly_on_sigterm(
        self, tmp_path: Path, sandbox_dir: Path, fake_llm: FakeLLM, bot_api: FakeBotApi
    ) -> None:
        fake_llm.reply_tool_calls(("search_files", {"query": "шарлотка"}))
        fake_llm.reply_text(ANSWER)
        process = BotProcess(_env(tmp_path, sandbox_dir, fake_llm, bot_api), tmp_path)
        await process.start()
        try:
            await bot_api.wait_for(
                lambda calls: any(c.method == "getUpdates" for c in calls), START_S
            )
            await bot_api.push_update(
                "message",
                {
                    "message_id": 1,
                    "date": int(time.time()),
                    "chat": {"id": USER_ID, "type": "private", "first_name": "U"},
                    "from": {
                        "id": USER_ID,
                        "is_bot": False,
                        "first_name": "U",
                        "language_code": "ru",
                    },
                    "text": "Сколько сахара в шарлотке?",
                },
            )
            await bot_api.wait_for(_answered, 30)
            code = await process.stop()
        finally:
            await process.ensure_gone()

        output = process.output()
        assert code == 0, output
        (started,) = [line for line in output.splitlines() if "bot @docs_test_bot started" in line]
        assert "model gpt-4.1-mini" in started
        assert f"{sandbox_dir.name}, " in started
        assert "documents" in started
        assert "stopped" in output
        assert BOT_TOKEN not in output
        assert BOT_TOKEN.split(":", 1)[1] not in output
        assert API_KEY not in output
        assert "Traceback" not in output
        methods = [c.method for c in bot_api.calls]
        assert "setMyCommands" in methods
        assert "deleteWebhook" in methods
        assert fake_llm.requests[0]["messages"][-1]["content"] == "Сколько сахара в шарлотке?"


class TestTerminalChat:
    async def test_chat_reads_questions_from_stdin(
        self, tmp_path: Path, sandbox_dir: Path, fake_llm: FakeLLM
    ) -> None:
        fake_llm.reply_text(ANSWER)
        questions = tmp_path / "questions.txt"
        questions.write_text("Сколько сахара?\n/exit\n", encoding="utf-8")
        env = _env(tmp_path, sandbox_dir, fake_llm, None)
        env.pop("BOT_TOKEN")
        with questions.open("rb") as stdin:
            code, out, err = await run_python(
                "-m", "bot", "chat", env=env, cwd=tmp_path, stdin=stdin
            )
        assert code == 0, err
        assert ANSWER in out
        assert API_KEY not in out + err

    async def test_chat_answers_every_question_piped_in(
        self, tmp_path: Path, sandbox_dir: Path, fake_llm: FakeLLM
    ) -> None:
        fake_llm.reply_text("Первый ответ.")
        fake_llm.reply_text("Второй ответ.")
        env = _env(tmp_path, sandbox_dir, fake_llm, None)
        env.pop("BOT_TOKEN")
        code, out, err = await run_python(
            "-m", "bot", "chat", env=env, cwd=tmp_path, feed=b"q1\nq2\n"
        )
        assert code == 0, err
        assert "Первый ответ." in out
        assert "Второй ответ." in out, err
        assert "Traceback" not in err


class TestWrongBotApi:
    async def test_a_server_that_is_not_a_bot_api_is_named_without_a_traceback(
        self, tmp_path: Path, sandbox_dir: Path, fake_llm: FakeLLM
    ) -> None:
        async def proxy_page(_: web.Request) -> web.Response:
            return web.Response(
                status=502, text="<html><body><h1>502 Bad Gateway</h1></body></html>"
            )

        env = _env(tmp_path, sandbox_dir, fake_llm, None)
        async with serving(proxy_page) as url:
            env["TELEGRAM_API_BASE"] = url
            code, output, _ = await run_python("-m", "bot", env=env, cwd=tmp_path, together=True)
        assert code == 1, output
        assert "Traceback" not in output
        assert "did not answer like a Telegram Bot API" in output
        assert "TELEGRAM_API_BASE" in output
        assert BOT_TOKEN.split(":", 1)[1] not in output
