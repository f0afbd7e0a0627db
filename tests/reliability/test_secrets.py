"""The bot token and the API key never reach a log line, a reply or `/status`.

The bot runs in-process with real HTTP on both sides (aiogram's aiohttp session against the
fake Bot API, the OpenAI client against the fake model) and every logger at DEBUG, with no
masking filter installed: whatever our code or a library logs is caught as written. Only the
fake servers' own access logs are left out (they are the test's, not the bot's).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import pytest

from bot.telegram.texts import RUSSIAN
from tests.fakes.accounts import ADMIN_ID, BOT_TOKEN, USER_ID
from tests.reliability.conftest import bot_log
from tests.reliability.flaky_bot_api import FlakyBotApi
from tests.reliability.polling import http_bot, polling

API_KEY = "sk-test-secret-key-123"
SECRETS = (BOT_TOKEN, BOT_TOKEN.split(":", 1)[1], API_KEY)


def leaks(text: str) -> list[str]:
    """The secrets found in `text` (an empty list is the only good answer)."""
    return [secret for secret in SECRETS if secret in text]


def shown(api: FlakyBotApi, chat_id: int, needle: str) -> Callable[[Any], bool]:
    return lambda _: any(needle in text for text in api.texts_to(chat_id))


def command(text: str) -> dict[str, Any]:
    return {
        "entities": [
            {"type": "bot_command", "offset": 0, "length": len(text.split(maxsplit=1)[0])}
        ]
    }


class TestSecretsInProcess:
    async def test_questions_errors_status_and_uploads_leak_nothing(
        self,
        make_dispatcher: Any,
        client_options: dict[str, Any],
        bot_api: FlakyBotApi,
        caplog: pytest.LogCaptureFixture,
    ) -> None:
        client_options["api_key"] = API_KEY
        caplog.set_level(logging.DEBUG)
        async with make_dispatcher() as harness:
            llm, build = harness.llm, harness.updates
            llm.reply_tool_calls(("search_files", {"query": "шарлотка"}))
            llm.reply_text("Стакан **сахара**.")
            echo = {"error": {"message": f"Incorrect API key provided: {API_KEY}", "code": 401}}
            llm.reply_error(401, echo)
            bot_api.fail("getUpdates", 502, "Bad Gateway")
            bot_api.fail("sendMessage", 429, "Too Many Requests: retry after 1", retry_after=1)
            bot_api.fail("sendMessage", 400, "Bad Request: can't parse entities")
            # The answer shows as "Стакан <b>сахара</b>." or, when the refused HTML is its own
            # send, as plain text: which send the refusal meets depends on timing.
            steps = [
                (build.message_json("Сколько сахара?"), USER_ID, "сахара"),
                (build.message_json("А ещё?"), USER_ID, "отклонил ключ"),
                (build.message_json("/status", **command("/status")), USER_ID, "Модель"),
                (
                    build.message_json(
                        None,
                        user_id=ADMIN_ID,
                        document={"file_id": "d7", "file_unique_id": "u7", "file_name": "a.txt"},
                    ),
                    ADMIN_ID,
                    RUSSIAN.upload_download_failed,
                ),
            ]
            async with polling(harness.dp, http_bot(bot_api.base_url)):
                for message, chat, expected in steps:
                    await bot_api.push_update("message", message)
                    await bot_api.wait_for(shown(bot_api, chat, expected), 15)

        logged = bot_log(caplog.records)
        replies = bot_api.texts_to(USER_ID) + bot_api.texts_to(ADMIN_ID)
        assert "Failed to fetch updates" in logged
        assert "HTTP 401" in logged
        assert "can't parse entities" in logged
        assert not leaks(logged)
        assert not leaks("\n".join(replies))
