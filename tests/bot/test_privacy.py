"""`/forget` deletes a person's own conversations for good; HISTORY_DAYS deletes old ones."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from bot.storage.source_links import SourceLinks
from tests.bot.access_support import button_data, sent_to, tap, texts_to, tuning
from tests.bot.test_documents import _QUESTION_ID, _expect_message
from tests.fakes.accounts import ADMIN_ID, BOT_USERNAME, USER_ID
from tests.fakes.clock import FakeClock
from tests.fakes.harness import Harness
from tests.fakes.updates import mention_entity

GROUP = -100777


def _sent_to_model(harness: Harness) -> str:
    """Everything the last model request carried, as text."""
    return json.dumps(harness.llm.requests[-1]["messages"], ensure_ascii=False)


async def _ask(harness: Harness, question: str, user_id: int = USER_ID) -> None:
    harness.llm.reply_text(f"Ответ на «{question}».")
    await harness.feed(harness.updates.message(question, user_id=user_id))


async def _ask_in_group(harness: Harness, question: str, user_id: int = USER_ID) -> None:
    text = f"@{BOT_USERNAME} {question}"
    harness.llm.reply_text(f"Ответ в группе на «{question}».")
    await harness.feed(
        harness.updates.message(
            text,
            user_id=user_id,
            chat_id=GROUP,
            chat_type="supergroup",
            entities=[mention_entity(text, f"@{BOT_USERNAME}")],
        )
    )


async def _forget(harness: Harness, user_id: int = USER_ID, *, answer: int = 0) -> str:
    _expect_message(harness, user_id, _QUESTION_ID)
    await harness.feed(harness.updates.command("/forget", user_id=user_id))
    question = sent_to(harness, user_id)[-1]
    assert "навсегда" in str(question.text) and "Отменить это нельзя" in str(question.text)
    await tap(harness, question, _QUESTION_ID, button_data(question)[answer], user_id)
    return texts_to(harness, user_id)[-1]


class TestForget:
    async def test_forget_deletes_the_users_conversations_and_not_anyone_elses(
        self, harness: Harness
    ) -> None:
        await _ask(harness, "где рецепт шарлотки?")
        await _ask_in_group(harness, "сколько дней отпуска?")
        await _ask(harness, "какой срок аренды?", user_id=ADMIN_ID)
        await _ask_in_group(harness, "где инструкция VPN?", user_id=ADMIN_ID)

        done = await _forget(harness)
        assert "удалено 2 разговора" in done and "без возможности восстановить" in done

        await _ask(harness, "а сколько яблок?")
        assert "шарлотки" not in _sent_to_model(harness)
        await _ask_in_group(harness, "а заявление когда?")
        assert "сколько дней отпуска" not in _sent_to_model(harness)
        await _ask(harness, "а плата?", user_id=ADMIN_ID)
        assert "какой срок аренды?" in _sent_to_model(harness)
        await _ask_in_group(harness, "а сервер?", user_id=ADMIN_ID)
        assert "где инструкция VPN?" in _sent_to_model(harness)

    @pytest.mark.parametrize("name", ["history.sqlite3", "feedback.sqlite3"])
    async def test_the_words_are_gone_from_the_file(self, harness: Harness, name: str) -> None:
        await _ask(harness, "секретный вопрос про зарплату")
        words = "секретный вопрос".encode()
        database = harness.settings.data_dir / name
        log = database.with_name(name + "-wal")
        assert words in database.read_bytes() + (log.read_bytes() if log.exists() else b"")

        await _forget(harness)

        assert words not in database.read_bytes()
        assert not log.exists() or words not in log.read_bytes()

    async def test_source_buttons_issued_to_the_user_stop_working(self, harness: Harness) -> None:
        links: SourceLinks = harness.dp.workflow_data["source_links"]
        (link,) = await links.issue(USER_ID, ["README.md"])
        (other,) = await links.issue(ADMIN_ID, ["README.md"])
        await _forget(harness)
        assert await links.find(link) is None
        assert await links.find(other) is not None

    async def test_cancel_keeps_everything(self, harness: Harness) -> None:
        await _ask(harness, "где рецепт шарлотки?")
        assert "Отменено" in await _forget(harness, answer=1)
        await _ask(harness, "а сколько яблок?")
        assert "где рецепт шарлотки?" in _sent_to_model(harness)

    async def test_only_the_asker_may_tap(self, harness: Harness) -> None:
        await _ask(harness, "где рецепт шарлотки?", user_id=ADMIN_ID)
        _expect_message(harness, ADMIN_ID, _QUESTION_ID)
        await harness.feed(harness.updates.command("/forget", user_id=ADMIN_ID))
        question = sent_to(harness, ADMIN_ID)[-1]
        await tap(harness, question, _QUESTION_ID, button_data(question)[0], USER_ID)
        await _ask(harness, "а сколько яблок?", user_id=ADMIN_ID)
        assert "где рецепт шарлотки?" in _sent_to_model(harness)


class TestHistoryDays:
    async def test_conversations_older_than_history_days_are_deleted_at_start(
        self, make_dispatcher: Any
    ) -> None:
        async with make_dispatcher() as harness:
            await _ask(harness, "где рецепт шарлотки?")
        clock = FakeClock(time.time() + 2 * 86400)
        async with make_dispatcher(tuning=tuning(clock), history_days=3) as harness:
            await _ask(harness, "а сколько яблок?")
            assert "где рецепт шарлотки?" in _sent_to_model(harness)
        async with make_dispatcher(tuning=tuning(clock), history_days=1) as harness:
            await _ask(harness, "а сколько сахара?")
            sent = _sent_to_model(harness)
            assert "где рецепт шарлотки?" not in sent
            assert "а сколько яблок?" not in sent

    async def test_without_history_days_nothing_is_deleted(self, make_dispatcher: Any) -> None:
        async with make_dispatcher() as harness:
            await _ask(harness, "где рецепт шарлотки?")
        clock = FakeClock(time.time() + 400 * 86400)
        async with make_dispatcher(tuning=tuning(clock)) as harness:
            await _ask(harness, "а сколько яблок?")
            assert "где рецепт шарлотки?" in _sent_to_model(harness)
