"""What users send: odd sizes and shapes, odd commands, floods and uploads.

Each case states the behaviour a user should see: an answer, one clear refusal or hint, or
silence where the bot was not addressed; never a crash, never two replies to one message.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from tests.reliability.conftest import bot_log
from tests.reliability.flaky_bot_api import FlakyBotApi
from tests.reliability.polling import http_bot
from tests.support.fake_telegram import ADMIN_ID, BOT_TOKEN, Harness


def uploads_left(root: Path) -> list[Path]:
    return [p for p in root.rglob(".upload-*") if p.name != ".upload-1a2b.part"]


@pytest.fixture
async def bot_api() -> Any:
    api = FlakyBotApi(token=BOT_TOKEN)
    await api.start()
    try:
        yield api
    finally:
        await api.close()


class TestUploadsOverHttp:
    async def test_a_failed_download_is_explained_without_the_file_url(
        self, harness: Harness, bot_api: FlakyBotApi, caplog: pytest.LogCaptureFixture
    ) -> None:
        """The fake API answers getFile but serves no file: the download gets HTTP 404."""
        bot = http_bot(bot_api.base_url)
        try:
            update = harness.updates.document("a.txt", file_id="doc7", user_id=ADMIN_ID)
            with caplog.at_level(logging.DEBUG):
                await harness.dp.feed_update(bot, update)
        finally:
            await bot.session.close()
        (reply,) = bot_api.texts_to(ADMIN_ID)
        assert reply.startswith("⚠️ Не удалось сохранить файл")
        assert "404" in reply
        assert "Ничего не записано" in reply
        logged = bot_log(caplog.records)
        assert "HTTP 404" in logged
        assert BOT_TOKEN not in reply + logged
        assert "/file/bot" not in reply + logged
        assert not uploads_left(harness.settings.sandbox_dir)
        assert not (harness.settings.sandbox_dir / "a.txt").exists()
