"""Source buttons that must not open: strangers, other chats, files gone, ids expired or bent.

Every refused tap is still answered (answerCallbackQuery, so the client's spinner stops) and
sends nothing else.
"""

from __future__ import annotations

import asyncio
import logging
import os
from pathlib import Path
from typing import Any

import pytest

from bot.storage.source_links import LIFETIME_S
from bot.storage.source_links.sqlite import SqliteSourceLinks
from bot.telegram.texts import texts_for
from tests.bot.access_support import tuning
from tests.bot.button_support import put_buttons
from tests.bot.source_support import (
    CHARLOTTE,
    Answered,
    answers,
    ask_reading,
    documents,
    tap,
)
from tests.fakes.accounts import ADMIN_ID, STRANGER_ID, USER_ID
from tests.fakes.clock import FakeClock
from tests.fakes.harness import Harness


def _refusal(harness: Harness) -> str:
    """The only thing the tap got: one pop-up; its text."""
    (answer,) = answers(harness)
    assert answer.show_alert
    assert not documents(harness)
    assert not harness.session.sent_texts()
    return str(answer.text)


async def _answered(harness: Harness, *paths: str, **kwargs: Any) -> Answered:
    answered = await ask_reading(harness, *paths, **kwargs)
    harness.session.calls.clear()
    return answered


async def _put(harness: Harness, answered: Answered, data: str) -> None:
    """The answer carries a button with `data`, so a tap with it reaches the handler."""
    message = answered.message
    await put_buttons(harness, message["chat"]["id"], message["message_id"], data)


class TestWho:
    async def test_a_stranger_is_refused_and_sent_nothing(self, harness: Harness) -> None:
        answered = await _answered(harness, CHARLOTTE, group=True)
        await tap(harness, answered, answered.data[0], user_id=STRANGER_ID)
        assert "нет доступа" in _refusal(harness)

    async def test_a_private_answer_opens_only_for_its_user(self, harness: Harness) -> None:
        answered = await _answered(harness, CHARLOTTE)
        await tap(harness, answered, answered.data[0], user_id=ADMIN_ID)
        assert "нет доступа" in _refusal(harness)

    async def test_a_button_works_only_in_the_chat_it_was_sent_to(self, harness: Harness) -> None:
        answered = await _answered(harness, CHARLOTTE, group=True)
        elsewhere = Answered(
            {**answered.message, "chat": {"id": -100_999, "type": "group", "title": "Other"}},
            answered.markup,
        )
        await tap(harness, elsewhere, answered.data[0])
        assert _refusal(harness) == texts_for("ru").button_outdated

    async def test_a_group_the_bot_no_longer_serves_is_refused(self, make_dispatcher: Any) -> None:
        async with make_dispatcher() as harness:
            answered = await ask_reading(harness, CHARLOTTE, group=True)
        async with make_dispatcher(allowed_chat_ids=frozenset({-100_777})) as harness:
            await tap(harness, answered, answered.data[0])
            assert "нет доступа" in _refusal(harness)


class TestWhere:
    async def test_a_deleted_file_is_no_longer_there(
        self, harness: Harness, sandbox_dir: Path
    ) -> None:
        answered = await _answered(harness, CHARLOTTE)
        await asyncio.to_thread((sandbox_dir / CHARLOTTE).unlink)
        await tap(harness, answered, answered.data[0])
        assert "больше нет" in _refusal(harness)

    async def test_a_file_moved_outside_through_a_link_is_no_longer_there(
        self, harness: Harness, sandbox_dir: Path, tmp_path: Path
    ) -> None:
        answered = await _answered(harness, CHARLOTTE)
        outside = tmp_path / "outside.txt"
        await asyncio.to_thread(os.replace, sandbox_dir / CHARLOTTE, outside)
        await asyncio.to_thread(os.symlink, outside, sandbox_dir / CHARLOTTE)
        await tap(harness, answered, answered.data[0])
        assert "больше нет" in _refusal(harness)

    @pytest.mark.parametrize("path", ["../outside.txt", ".secret.txt", "/etc/hostname", "it"])
    async def test_a_path_the_jail_refuses_is_no_longer_there(
        self, harness: Harness, tmp_path: Path, path: str
    ) -> None:
        await asyncio.to_thread((tmp_path / "outside.txt").write_text, "тайна", "utf-8")
        answered = await _answered(harness, CHARLOTTE)
        links = harness.dp.workflow_data["source_links"]
        assert isinstance(links, SqliteSourceLinks)
        (planted,) = await links.issue(USER_ID, [path])
        await _put(harness, answered, f"src:{planted}")
        await tap(harness, answered, f"src:{planted}")
        assert "больше нет" in _refusal(harness)


class TestWhen:
    async def test_an_expired_button_says_so(self, make_dispatcher: Any) -> None:
        clock = FakeClock()
        async with make_dispatcher(tuning=tuning(clock)) as harness:
            answered = await _answered(harness, CHARLOTTE)
            clock.advance(LIFETIME_S - 60)
            await tap(harness, answered, answered.data[0])
            assert len(documents(harness)) == 1
            harness.session.calls.clear()
            clock.advance(120)
            await tap(harness, answered, answered.data[0])
            assert "устарела" in _refusal(harness)

    async def test_an_unknown_id_says_expired(self, harness: Harness) -> None:
        answered = await _answered(harness, CHARLOTTE)
        await _put(harness, answered, "src:AAAAAAAAAAAA")
        await tap(harness, answered, "src:AAAAAAAAAAAA")
        assert "устарела" in _refusal(harness)

    @pytest.mark.parametrize(
        "data",
        [
            "src:",
            "src:../../etc/passwd",
            "src:AAAAAAAAAAAA:x",
            "src:" + "я" * 12,
            "junk",
            "access:",
        ],
    )
    async def test_malformed_data_gets_a_short_answer_and_a_debug_line(
        self, harness: Harness, caplog: pytest.LogCaptureFixture, data: str
    ) -> None:
        answered = await _answered(harness, CHARLOTTE)
        await _put(harness, answered, data)
        with caplog.at_level(logging.DEBUG, logger="bot.telegram.handlers.sources"):
            await tap(harness, answered, data)
        assert "устарела" in _refusal(harness)
        assert any(r.levelno == logging.DEBUG for r in caplog.records)
        assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
