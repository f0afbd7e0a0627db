"""Start-up and webhook mode: the Bot API server, warnings, the secret-token check."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestClient, TestServer

from bot.entrance.loading import load_settings
from bot.telegram.app import build_bot, warn_about_settings
from bot.telegram.webhook import build_webhook_app, run_webhook, webhook_secret
from tests.fakes.accounts import BOT_TOKEN, USER_ID

SECRET = "s3cret_token-value"
HEADER = "X-Telegram-Bot-Api-Secret-Token"


def _update(text: str) -> dict[str, Any]:
    user = {"id": USER_ID, "is_bot": False, "first_name": "U", "language_code": "en"}
    return {
        "update_id": 1,
        "message": {
            "message_id": 1,
            "date": 1,
            "chat": {"id": USER_ID, "type": "private", "first_name": "U"},
            "from": user,
            "text": text,
        },
    }


class TestWebhook:
    async def test_secret_token_is_checked(self, make_dispatcher: Any) -> None:
        async with make_dispatcher() as harness:
            app = build_webhook_app(harness.dp, harness.bot, "/telegram", SECRET)
            async with TestClient(TestServer(app, host="127.0.0.1")) as client:
                body = json.dumps(_update("/help"))
                refused = await client.post("/telegram", data=body, headers={HEADER: "wrong"})
                assert refused.status == 401
                missing = await client.post("/telegram", data=body)
                assert missing.status == 401
                assert not harness.session.called("sendMessage")

                accepted = await client.post("/telegram", data=body, headers={HEADER: SECRET})
                assert accepted.status == 200
                await harness.session.wait_for(lambda s: bool(s.called("sendMessage")))
                assert "/reset — start a new conversation (or /new)" in str(
                    harness.session.called("sendMessage")[-1].text
                )

    async def test_a_body_nested_too_deep_is_refused_as_bad_input(
        self, make_dispatcher: Any
    ) -> None:
        depth = 200_000
        body = '{"update_id": 7, "message": ' + "[" * depth + "]" * depth + "}"
        async with make_dispatcher() as harness:
            app = build_webhook_app(harness.dp, harness.bot, "/telegram", SECRET)
            async with TestClient(TestServer(app, host="127.0.0.1")) as client:
                refused = await client.post("/telegram", data=body, headers={HEADER: SECRET})
                assert refused.status == 400
                assert await refused.text() == "not an update"
                after = json.dumps(_update("/help"))
                accepted = await client.post("/telegram", data=after, headers={HEADER: SECRET})
                assert accepted.status == 200
                await harness.session.wait_for(lambda s: bool(s.called("sendMessage")))

    @pytest.mark.parametrize(
        "update_id",
        [
            "Infinity",
            "-Infinity",
            "NaN",
            "1e400",
            "1.5",
            "-1",
            "true",
            "9223372036854775808",
            '"7x"',
            "null",
        ],
    )
    async def test_an_update_number_that_is_no_number_is_refused_as_bad_input(
        self, make_dispatcher: Any, update_id: str
    ) -> None:
        body = '{"update_id": ' + update_id + ', "message": {}}'
        async with make_dispatcher() as harness:
            app = build_webhook_app(harness.dp, harness.bot, "/telegram", SECRET)
            async with TestClient(TestServer(app, host="127.0.0.1")) as client:
                refused = await client.post("/telegram", data=body, headers={HEADER: SECRET})
                assert refused.status == 400
                assert await refused.text() == "not an update"

    async def test_an_update_that_fails_is_logged_once_with_one_traceback(
        self, make_dispatcher: Any, caplog: pytest.LogCaptureFixture
    ) -> None:
        async def broken(_: Any) -> None:
            msg = "a fault no handler expects"
            raise RuntimeError(msg)

        async with make_dispatcher() as harness:
            harness.session.hooks["sendMessage"] = broken
            app = build_webhook_app(harness.dp, harness.bot, "/telegram", SECRET)
            with caplog.at_level(logging.INFO):
                async with TestClient(TestServer(app, host="127.0.0.1")) as client:
                    body = json.dumps(_update("/help"))
                    sent = await client.post("/telegram", data=body, headers={HEADER: SECRET})
                    assert sent.status == 200
                # the server's shutdown waits for the update's handling to end
        with_traceback = [r for r in caplog.records if r.exc_info]
        assert len(with_traceback) == 1, caplog.text
        assert "update 1 failed" in with_traceback[0].getMessage()
        assert caplog.text.count("Traceback (most recent call last)") == 1, caplog.text

    def test_a_secret_is_made_when_none_is_set(self) -> None:
        settings = load_settings(bot_token=BOT_TOKEN, webhook_url="https://bot.example.com/tg")
        first, second = webhook_secret(settings), webhook_secret(settings)
        assert first != second
        assert len(first) >= 32
        assert set(first) <= set(
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"
        )

    def test_the_configured_secret_is_used(self) -> None:
        settings = load_settings(bot_token=BOT_TOKEN, webhook_secret=SECRET)
        assert webhook_secret(settings) == SECRET


class TestStartUp:
    def test_a_local_bot_api_server_reads_files_from_disk(self) -> None:
        settings = load_settings(
            bot_token=BOT_TOKEN,
            telegram_api_base="http://127.0.0.1:8081",
            telegram_api_local=True,
            max_upload_mb=500,
        )
        bot = build_bot(settings)
        assert bot.session.api.is_local
        assert bot.session.api.base == "http://127.0.0.1:8081/bot{token}/{method}"

    def test_nobody_allowed_is_warned_about(self, caplog: pytest.LogCaptureFixture) -> None:
        with caplog.at_level(logging.WARNING):
            warn_about_settings(load_settings(bot_token=BOT_TOKEN, max_upload_mb=50))
        messages = " ".join(r.getMessage() for r in caplog.records)
        assert "nobody can use the bot" in messages
        assert "TELEGRAM_API_LOCAL" in messages

    def test_a_usable_setup_is_not_warned_about(self, caplog: pytest.LogCaptureFixture) -> None:
        with caplog.at_level(logging.WARNING):
            warn_about_settings(load_settings(bot_token=BOT_TOKEN, admin_ids="1"))
        assert not caplog.records


class TestServing:
    async def test_serves_on_an_ipv6_address_with_the_configured_secret(
        self, make_dispatcher: Any, unused_tcp_port: int
    ) -> None:
        async with make_dispatcher(
            webhook_url="https://bot.example.com/tg",
            webhook_listen=f"[::1]:{unused_tcp_port}",
            webhook_secret=SECRET,
        ) as harness:
            stop = asyncio.Event()
            serving = asyncio.create_task(
                run_webhook(harness.dp, harness.bot, harness.settings, stop=stop)
            )
            await harness.session.wait_for(lambda s: bool(s.called("setWebhook")))
            assert harness.session.called("setWebhook")[0].secret_token == SECRET
            url = f"http://[::1]:{unused_tcp_port}/tg"
            async with aiohttp.ClientSession() as client:
                body = json.dumps(_update("/help"))
                async with client.post(url, data=body, headers={HEADER: SECRET}) as answer:
                    assert answer.status == 200
            await harness.session.wait_for(lambda s: bool(s.called("sendMessage")))
            stop.set()
            await asyncio.wait_for(serving, 10)
