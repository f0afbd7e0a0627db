"""Token budgets through the Dispatcher: the fake model's `usage` is what is counted, a person
near the end of a budget is told once, and a question over it is refused before the model is
asked, with when the budget starts afresh."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bot.entrance.loading import SettingsError, load_settings
from tests.bot.access_support import texts_to, tuning
from tests.bot.source_support import GROUP_ID
from tests.fakes.accounts import ADMIN_ID, BOT_TOKEN, BOT_USERNAME, USER_ID
from tests.fakes.clock import FakeClock
from tests.fakes.fake_llm import Reply, text_reply
from tests.fakes.harness import Harness
from tests.fakes.updates import mention_entity

NOON = datetime(2026, 12, 2, 10, 0, tzinfo=UTC).timestamp()
LIMITS = """
timezone = "UTC"

[defaults]
user_day = 1000
user_month = 100000
"""
WARNED = "Вы израсходовали"
BUSY = "Лимит почти исчерпан, поэтому вопросы идут по одному"
REFUSED = "Ваш дневной лимит на вопросы исчерпан. Он обновится 2026-12-03 00:00 (UTC)"


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(NOON)


@pytest.fixture
def limits_file(tmp_path: Path) -> Path:
    path = tmp_path / "limits.toml"
    path.write_text(LIMITS, encoding="utf-8")
    return path


@pytest.fixture
async def budgeted(
    make_dispatcher: Any, limits_file: Path, clock: FakeClock
) -> AsyncIterator[Harness]:
    async with make_dispatcher(tuning=tuning(clock), limits_file=limits_file) as harness:
        yield harness


async def ask(harness: Harness, usage: tuple[int, int], user_id: int = USER_ID) -> None:
    harness.llm.reply_text("Ответ из документов.", usage=usage)
    await harness.feed(harness.updates.message("Что в договоре?", user_id=user_id))


def warnings_to(harness: Harness, chat_id: int = USER_ID) -> list[str]:
    return [t for t in texts_to(harness, chat_id) if WARNED in t]


class TestBudgets:
    async def test_at_80_percent_the_asker_is_told_once(self, budgeted: Harness) -> None:
        await ask(budgeted, (500, 200))
        assert warnings_to(budgeted) == []
        await ask(budgeted, (90, 10))
        assert warnings_to(budgeted) == [
            "Вы израсходовали 80% дневного лимита на вопросы. Он обновится 2026-12-03 00:00 (UTC)."
        ]
        await ask(budgeted, (50, 50))
        assert len(warnings_to(budgeted)) == 1

    async def test_at_100_percent_the_question_is_refused_before_the_model(
        self, budgeted: Harness
    ) -> None:
        await ask(budgeted, (900, 150))
        asked = len(budgeted.llm.requests)
        budgeted.llm.reply_text("Этого ответа быть не должно.")
        await budgeted.feed(budgeted.updates.message("И ещё вопрос?"))
        assert len(budgeted.llm.requests) == asked
        refusal = texts_to(budgeted, USER_ID)[-1]
        assert REFUSED in refusal
        assert "через 14 ч 0 мин" in refusal
        assert "Этого ответа" not in "".join(texts_to(budgeted, USER_ID))

    async def test_a_voice_question_over_budget_is_not_even_transcribed(
        self, budgeted: Harness
    ) -> None:
        await ask(budgeted, (900, 150))
        budgeted.session.add_file("documents/voice1", b"OggS-recorded-speech")
        budgeted.llm.speech.reply_text("Что в договоре?")
        await budgeted.feed(budgeted.updates.voice())
        assert budgeted.llm.speech.uploads == []
        assert REFUSED in texts_to(budgeted, USER_ID)[-1]

    async def test_the_budget_starts_afresh_the_next_day(
        self, budgeted: Harness, clock: FakeClock
    ) -> None:
        await ask(budgeted, (900, 150))
        clock.now = datetime(2026, 12, 3, 0, 1, tzinfo=UTC).timestamp()
        await ask(budgeted, (10, 10))
        assert texts_to(budgeted, USER_ID)[-1] == "Ответ из документов."

    async def test_admins_are_not_limited_by_the_defaults(self, budgeted: Harness) -> None:
        budgeted.llm.reply_text("Ответ.", usage=(5000, 100))
        await budgeted.feed(budgeted.updates.message("Вопрос?", user_id=ADMIN_ID))
        asked = len(budgeted.llm.requests)
        await ask(budgeted, (10, 10), user_id=ADMIN_ID)
        assert len(budgeted.llm.requests) == asked + 1
        assert texts_to(budgeted, ADMIN_ID)[-1] == "Ответ из документов."

    async def test_the_refusal_is_in_english_for_english_speakers(self, budgeted: Harness) -> None:
        await ask(budgeted, (900, 150))
        await budgeted.feed(budgeted.updates.message("One more?", language_code="en"))
        assert texts_to(budgeted, USER_ID)[-1].startswith(
            "Your daily budget for questions is spent. It starts afresh at 2026-12-03 00:00 (UTC)"
        )


GROUP_LIMITS = f"""
timezone = "UTC"
limit_admins = false

[chats."{GROUP_ID}"]
day = 1000
"""
CHAT_REFUSED = "Дневной лимит этого чата на вопросы исчерпан"


async def ask_in_group(harness: Harness, usage: tuple[int, int], user_id: int = USER_ID) -> None:
    harness.llm.reply_text("Ответ из документов.", usage=usage)
    text = f"@{BOT_USERNAME} что в договоре?"
    mention = mention_entity(text, f"@{BOT_USERNAME}")
    update = harness.updates.message(
        text, user_id=user_id, chat_id=GROUP_ID, chat_type="supergroup", entities=[mention]
    )
    await harness.feed(update)


class TestChatListedByName:
    """A chat's own budget holds admins by the same rule as the defaults do."""

    async def spend_the_group(
        self, make_dispatcher: Any, tmp_path: Path, clock: FakeClock, limits: str
    ) -> tuple[int, list[str]]:
        """A member spends the group's day, then an admin asks there: the model requests made
        for the admin, and what the group was sent after the member's answer."""
        path = tmp_path / "limits.toml"
        path.write_text(limits, encoding="utf-8")
        async with make_dispatcher(tuning=tuning(clock), limits_file=path) as harness:
            await ask_in_group(harness, (900, 150))
            asked = len(harness.llm.requests)
            before = len(texts_to(harness, GROUP_ID))
            await ask_in_group(harness, (10, 10), user_id=ADMIN_ID)
            return len(harness.llm.requests) - asked, texts_to(harness, GROUP_ID)[before:]

    async def test_an_admin_is_answered_in_a_listed_chat_its_members_spent(
        self, make_dispatcher: Any, tmp_path: Path, clock: FakeClock
    ) -> None:
        asked, sent = await self.spend_the_group(make_dispatcher, tmp_path, clock, GROUP_LIMITS)
        assert asked == 1
        assert sent[-1] == "Ответ из документов."
        assert not any(CHAT_REFUSED in t for t in sent)

    @pytest.mark.parametrize(
        "limits",
        [
            GROUP_LIMITS.replace("limit_admins = false", "limit_admins = true"),
            GROUP_LIMITS + f"\n[users.{ADMIN_ID}]\nday = 100_000\n",
        ],
        ids=["limit_admins", "listed_in_users"],
    )
    async def test_an_admin_the_file_limits_is_held_to_it(
        self, make_dispatcher: Any, tmp_path: Path, clock: FakeClock, limits: str
    ) -> None:
        asked, sent = await self.spend_the_group(make_dispatcher, tmp_path, clock, limits)
        assert asked == 0
        assert CHAT_REFUSED in sent[-1]


class TestLimitsFile:
    def test_a_bad_limits_file_stops_the_start_naming_the_line(self, tmp_path: Path) -> None:
        path = tmp_path / "limits.toml"
        path.write_text('timezone = "UTC"\n\n[users.42]\nday = -5\n', encoding="utf-8")
        with pytest.raises(SettingsError) as caught:
            load_settings(
                bot_token=BOT_TOKEN,
                openai_api_key="sk-test",
                sandbox_dir=tmp_path,
                limits_file=path,
            )
        report = caught.value.report()
        assert f"LIMITS_FILE: {path}: line 4: users.42.day:" in report
        assert "greater than or equal to 0" in report


class HeldModel:
    """The fake model's answers wait until the test releases them."""

    def __init__(self, harness: Harness) -> None:
        self.release = asyncio.Event()
        harness.llm.responder = self._respond

    async def _respond(self, _: dict[str, Any]) -> Reply:
        await self.release.wait()
        return text_reply("Последний ответ.", usage=(100, 100))


@pytest.fixture
async def two_workers(
    make_dispatcher: Any, tmp_path: Path, limits_file: Path, clock: FakeClock, postgres_url: str
) -> AsyncIterator[tuple[Harness, Harness]]:
    """Two dispatchers with their own DATA_DIR on one PostgreSQL database, as two workers."""
    settings: dict[str, Any] = {
        "tuning": tuning(clock),
        "database_url": postgres_url,
        "limits_file": limits_file,
    }
    async with (
        make_dispatcher(data_dir=tmp_path / "one", **settings) as one,
        make_dispatcher(data_dir=tmp_path / "two", **settings) as two,
    ):
        yield one, two


class TestTwoWorkers:
    async def test_two_workers_racing_the_last_question_let_one_through(
        self, two_workers: tuple[Harness, Harness]
    ) -> None:
        one, two = two_workers
        fake_llm, updates = one.llm, one.updates
        await ask(one, (800, 50))
        asked = len(fake_llm.requests)
        held = HeldModel(one)
        text = f"@{BOT_USERNAME} и последний вопрос?"
        in_group = updates.message(
            text,
            chat_id=GROUP_ID,
            chat_type="supergroup",
            entities=[mention_entity(text, f"@{BOT_USERNAME}")],
        )
        racing = [
            asyncio.create_task(one.feed(updates.message("И последний вопрос?"))),
            asyncio.create_task(two.feed(in_group)),
        ]
        try:
            await fake_llm.wait_for_requests(asked + 1)
            done, _ = await asyncio.wait(racing, timeout=30, return_when="FIRST_COMPLETED")
            assert len(done) == 1, "both questions went to the model"
        finally:
            held.release.set()
            await asyncio.gather(*racing)
        assert len(fake_llm.requests) == asked + 1
        told = [
            chat for chat in (USER_ID, GROUP_ID) if any(BUSY in t for t in texts_to(one, chat))
        ]
        assert len(told) == 1
        await one.feed(updates.message("А ещё?"))
        assert len(fake_llm.requests) == asked + 1
        assert REFUSED in texts_to(one, USER_ID)[-1]
