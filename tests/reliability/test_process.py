"""`python -m bot` as a real process: killed mid-question and restarted; secrets in its log.

The child talks HTTP to the fake Bot API (which forgets confirmed updates, as Telegram does)
and to the fake model server, with its data in a folder that outlives each run.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from bot.process.data_files import PENDING_STATUS_FILE
from bot.telegram.texts import RUSSIAN
from tests.agent.conftest import assert_request_valid
from tests.fakes.accounts import ADMIN_ID, BOT_TOKEN, USER_ID
from tests.fakes.fake_llm import FakeLLM
from tests.fakes.processes import START_S, BotProcess, bot_env
from tests.fakes.updates import Updates
from tests.reliability.conftest import stored_turns
from tests.reliability.flaky_bot_api import FlakyBotApi
from tests.reliability.process import integrity, wait_for_rows
from tools import INDEX_FILE

API_KEY = "sk-e2e-secret-key-98765"
SECRETS = (BOT_TOKEN, BOT_TOKEN.split(":", 1)[1], API_KEY)
STEP_S = 30.0
FIRST_MESSAGE_ID = 500  # the fake Bot API numbers the messages it is sent from here


@pytest.fixture
async def child(
    tmp_path: Path, sandbox_dir: Path, fake_llm: FakeLLM, bot_api: FlakyBotApi
) -> AsyncIterator[BotProcess]:
    env = bot_env(
        BOT_TOKEN=BOT_TOKEN,
        TELEGRAM_API_BASE=bot_api.base_url,
        OPENAI_BASE_URL=fake_llm.base_url,
        OPENAI_API_KEY=API_KEY,
        SANDBOX_DIR=str(sandbox_dir),
        DATA_DIR=str(tmp_path / "data"),
        ALLOWED_USER_IDS=str(USER_ID),
        ADMIN_IDS=str(ADMIN_ID),
        MODEL_MAX_RETRIES="0",
        REQUEST_TIMEOUT="30",
        LOG_LEVEL="DEBUG",
    )
    process = BotProcess(env, tmp_path)
    try:
        yield process
    finally:
        await process.ensure_gone()


def polled_since(start: int) -> Callable[[list[Any]], bool]:
    return lambda calls: any(c.method == "getUpdates" for c in calls[start:])


def shown(api: FlakyBotApi, chat_id: int, needle: str) -> Callable[[Any], bool]:
    return lambda _: any(needle in text for text in api.texts_to(chat_id))


def typing(calls: list[Any]) -> bool:
    return any(c.method == "sendChatAction" for c in calls)


def confirmed(update_id: int) -> Callable[[list[Any]], bool]:
    return lambda calls: any(
        c.method == "getUpdates" and int(c.params.get("offset") or 0) > update_id for c in calls
    )


class TestKilledMidQuestion:
    async def test_restart_on_the_same_data_then_a_rough_day_without_leaking_secrets(
        self,
        child: BotProcess,
        bot_api: FlakyBotApi,
        fake_llm: FakeLLM,
        updates: Updates,
        tmp_path: Path,
    ) -> None:
        """SIGKILL while the model holds round two; the restarted bot answers, then meets a
        401 that echoes the key, Telegram errors, /status and a failed upload, and no secret
        shows up in its log or its replies. (One scenario: each start of the bot costs
        seconds.)"""
        history = tmp_path / "data" / "history.sqlite3"
        index = tmp_path / "data" / INDEX_FILE
        key = f"chat:{USER_ID}"
        fake_llm.reply_tool_calls(("search_files", {"query": "шарлотка"}))
        fake_llm.reply_hang()

        await child.start()
        await bot_api.wait_for(polled_since(0), START_S)
        await bot_api.push_update("message", updates.message_json("Первый вопрос"))
        await fake_llm.wait_for_requests(2, STEP_S)
        await bot_api.wait_for(confirmed(1), STEP_S)
        await bot_api.wait_for(typing, STEP_S)
        await wait_for_rows(tmp_path / "data" / PENDING_STATUS_FILE, "pending_status", STEP_S)
        await child.kill()

        assert integrity(history) == "ok"
        assert integrity(index) == "ok"
        ((state, messages),) = stored_turns(history, key)
        assert state == "open"
        assert [m["role"] for m in messages] == ["user", "assistant", "tool"]

        fake_llm.reply_text("Ответ после перезапуска.")
        fake_llm.reply_error(
            401, {"error": {"message": f"Incorrect API key provided: {API_KEY}", "code": 401}}
        )
        bot_api.fail("getUpdates", 502, "Bad Gateway")
        bot_api.fail("sendMessage", 400, "Bad Request: can't parse entities")
        bot_api.fail("sendChatAction", 403, "Forbidden: bot was blocked by the user")
        status = updates.message_json(
            "/status", entities=[{"type": "bot_command", "offset": 0, "length": 7}]
        )
        document = {"file_id": "d7", "file_unique_id": "u7", "file_name": "a.txt"}
        steps = [
            (updates.message_json("Второй вопрос"), USER_ID, "Ответ после перезапуска."),
            (updates.message_json("А ещё?"), USER_ID, "отклонил ключ"),
            (status, USER_ID, "Модель"),
            (
                updates.message_json(None, user_id=ADMIN_ID, document=document),
                ADMIN_ID,
                RUSSIAN.upload_download_failed,
            ),
        ]
        restart = len(bot_api.calls)
        await child.start()
        await bot_api.wait_for(polled_since(restart), START_S)
        tidied = [c.params for c in bot_api.calls[restart:] if c.method == "editMessageText"]
        assert [(str(p["chat_id"]), str(p["message_id"]), p["text"]) for p in tidied] == [
            (str(USER_ID), str(FIRST_MESSAGE_ID), RUSSIAN.progress_restarted)
        ], "the status message left by the killed run was not replaced before polling"
        for message, chat, needle in steps:
            await bot_api.push_update("message", message)
            await bot_api.wait_for(shown(bot_api, chat, needle), STEP_S)
        assert await child.stop() == 0

        after_restart = fake_llm.requests[2]
        assert len(fake_llm.requests) == 4, "the killed question was not asked again"
        assert_request_valid(after_restart)
        assert [m["content"] for m in after_restart["messages"][1:]] == ["Второй вопрос"]
        states = [state for state, _ in stored_turns(history, key)]
        assert states == ["interrupted", "done", "failed"]
        assert integrity(history) == "ok"
        assert integrity(index) == "ok"

        output = child.output()
        assert "cut off by a restart" in output
        assert "Failed to fetch updates" in output
        assert "HTTP 401" in output
        assert "Traceback" not in output
        replies = "\n".join(bot_api.texts_to(USER_ID) + bot_api.texts_to(ADMIN_ID))
        assert not [s for s in SECRETS if s in output + replies]
