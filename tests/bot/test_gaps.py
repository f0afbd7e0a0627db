"""Questions the documents could not answer: kept after the answer, grouped in `/gaps`, sent
to the admins in a digest when due (once across restarts and workers), deleted like history."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from bot.access import AccessPolicy
from bot.digests.gaps.report import GapReport
from bot.digests.gaps.schedule import DAY_S, due_at
from bot.storage import PostgresDatabase
from bot.storage.unanswered import UnansweredLog
from bot.storage.unanswered.postgres import PostgresUnanswered
from bot.telegram.gaps_digest import GapsDigest
from tests.bot.access_support import button_data, sent_to, tap, texts_to, tuning
from tests.bot.test_documents import _QUESTION_ID, _expect_message
from tests.fakes.accounts import ADMIN_ID, USER_ID
from tests.fakes.clock import FakeClock
from tests.fakes.harness import Harness

NONSENSE = "зюзюблик"


async def ask_unfound(harness: Harness, question: str, user_id: int = USER_ID) -> None:
    """A question whose search finds nothing: the model searches a word no document has."""
    harness.llm.reply_tool_calls(("search_files", {"query": NONSENSE}))
    harness.llm.reply_text("В документах об этом ничего нет.")
    await harness.feed(harness.updates.message(question, user_id=user_id))


async def ask_found(harness: Harness, question: str) -> None:
    """A question the documents answer: the search finds the recipe and the model reads it."""
    harness.llm.reply_tool_calls(("search_files", {"query": "шарлотка"}))
    harness.llm.reply_tool_calls(("read_file", {"path": "документы/рецепт_шарлотки.txt"}))
    harness.llm.reply_text("Яблоки, мука, яйца.")
    await harness.feed(harness.updates.message(question))


async def gaps(harness: Harness, language_code: str = "ru") -> str:
    await harness.feed(
        harness.updates.command("/gaps", user_id=ADMIN_ID, language_code=language_code)
    )
    return texts_to(harness, ADMIN_ID)[-1]


def digests_to_admin(harness: Harness) -> list[str]:
    return [t for t in texts_to(harness, ADMIN_ID) if "Добавьте документ об этом" in t]


def next_monday_morning(clock: FakeClock) -> None:
    """Move the clock just past the next weekly digest's moment."""
    due = due_at(clock(), "weekly")
    assert due is not None
    clock.now = due + 7 * DAY_S + 60


class TestGapsCommand:
    async def test_a_question_with_no_hits_is_listed_and_answered_ones_are_not(
        self, harness: Harness
    ) -> None:
        await ask_unfound(harness, f"Что такое {NONSENSE} в договоре?")
        await ask_found(harness, "Что нужно для шарлотки?")
        harness.llm.reply_text("Привет! Спрашивайте.")
        await harness.feed(harness.updates.message("привет"))
        text = await gaps(harness)
        assert "Добавьте документ об этом" in text
        assert f"«Что такое {NONSENSE} в договоре?»" in text
        assert "шарлотки" not in text
        assert "привет" not in text
        assert "За последние 7 дней: 1 вопрос." in text

    async def test_a_question_whose_every_search_found_nothing_counts_even_after_a_read(
        self, harness: Harness
    ) -> None:
        harness.llm.reply_tool_calls(("search_files", {"query": NONSENSE}))
        harness.llm.reply_tool_calls(("read_file", {"path": "README.md"}))
        harness.llm.reply_text("Про это в документах нет, есть только общее описание.")
        await harness.feed(harness.updates.message(f"Где лежит {NONSENSE}?"))
        await ask_found(harness, "Что нужно для шарлотки?")
        text = await gaps(harness)
        assert f"«Где лежит {NONSENSE}?»" in text
        assert "шарлотки" not in text

    async def test_two_phrasings_of_one_gap_are_one_group_most_asked_first(
        self, harness: Harness
    ) -> None:
        await ask_unfound(harness, "Сколько дней отпуска положено?")
        await ask_unfound(harness, "Где взять пропуск на парковку?")
        await ask_unfound(harness, "Как оформить отпуск летом?")
        text = await gaps(harness, "en")
        assert "Add a document about these" in text
        lines = text.splitlines()
        first = next(i for i, line in enumerate(lines) if line.startswith("1. "))
        assert lines[first].startswith("1. <b>отпуск") and ": 2 times, last " in lines[first]
        assert lines[first + 1 : first + 3] == [
            "   • «Как оформить отпуск летом?»",
            "   • «Сколько дней отпуска положено?»",
        ]
        assert any(line.startswith("2. ") and ": 1 time, " in line for line in lines)

    async def test_the_questions_are_escaped_and_the_listing_fits_one_message(
        self, harness: Harness
    ) -> None:
        topics = [
            "".join(chr(ord("а") + (n * 7 + k * 3) % 32) for k in range(8)) for n in range(18)
        ]
        for n, topic in enumerate(topics):
            await ask_unfound(harness, f"<b>{topic}</b> " + f"{topic}{n} " * 30)
        text = await gaps(harness)
        assert f"«&lt;b&gt;{topics[-1]}&lt;/b&gt; {topics[-1]}17" in text
        assert f"«<b>{topics[-1]}" not in text
        assert len(text) <= 3500
        assert "…и ещё" in text

    async def test_other_users_get_the_admin_only_notice(self, harness: Harness) -> None:
        await ask_unfound(harness, f"Что такое {NONSENSE}?")
        await harness.feed(harness.updates.command("/gaps"))
        assert NONSENSE not in texts_to(harness, USER_ID)[-1]


class TestAScopedAdmin:
    async def test_is_not_shown_questions_whose_answers_read_outside_their_folders(
        self, make_dispatcher: Any, tmp_path: Path
    ) -> None:
        scopes = tmp_path / "scopes.toml"
        scopes.write_text(f'{ADMIN_ID} = ["документы"]\n', encoding="utf-8")
        clock = FakeClock()
        async with make_dispatcher(tuning=tuning(clock), scopes_file=scopes) as harness:
            await harness.feed(harness.updates.command("/start", user_id=ADMIN_ID))
            harness.llm.reply_tool_calls(("search_files", {"query": NONSENSE}))
            harness.llm.reply_tool_calls(("read_file", {"path": "hr/отпуск.md"}))
            harness.llm.reply_text("Про это в документах нет, есть только правила отпусков.")
            await harness.feed(harness.updates.message(f"Где лежит {NONSENSE} в отделе кадров?"))
            await ask_unfound(harness, f"Что такое {NONSENSE}?")
            text = await gaps(harness)
            assert f"«Что такое {NONSENSE}?»" in text
            assert "отделе кадров" not in text
            next_monday_morning(clock)
            assert await harness.dp["upkeep"].gaps_digest.schedule(harness.bot).tick(clock())
            sent = digests_to_admin(harness)[-1]
            assert sent != text
            assert f"«Что такое {NONSENSE}?»" in sent
            assert "отделе кадров" not in sent


class TestDeletion:
    async def test_forget_deletes_the_persons_unanswered_questions(self, harness: Harness) -> None:
        await ask_unfound(harness, f"Что такое {NONSENSE}?")
        _expect_message(harness, USER_ID, _QUESTION_ID)
        await harness.feed(harness.updates.command("/forget"))
        question = sent_to(harness, USER_ID)[-1]
        await tap(harness, question, _QUESTION_ID, button_data(question)[0], USER_ID)
        assert NONSENSE not in await gaps(harness)

    async def test_history_days_deletes_old_unanswered_questions(
        self, make_dispatcher: Any
    ) -> None:
        clock = FakeClock(time.time())
        async with make_dispatcher(tuning=tuning(clock), history_days=1) as harness:
            await ask_unfound(harness, f"Что такое {NONSENSE}?")
            clock.advance(2 * DAY_S)
            assert NONSENSE in await gaps(harness)
            await harness.dp["upkeep"].retention.sweep()
            assert NONSENSE not in await gaps(harness)


class TestDigest:
    async def test_sent_when_due_once_and_not_again_after_a_restart(
        self, make_dispatcher: Any
    ) -> None:
        clock = FakeClock()
        async with make_dispatcher(tuning=tuning(clock)) as harness:
            await harness.feed(harness.updates.command("/start", user_id=ADMIN_ID))
            await ask_unfound(harness, f"Что такое {NONSENSE}?")
            assert digests_to_admin(harness) == []
            next_monday_morning(clock)
            digest: GapsDigest = harness.dp["upkeep"].gaps_digest
            digest.wake()
            await harness.session.wait_for(lambda _: bool(digests_to_admin(harness)))
            (sent,) = digests_to_admin(harness)
            assert f"«Что такое {NONSENSE}?»" in sent and "Добавьте документ об этом" in sent
            assert not await digest.schedule(harness.bot).tick(clock())
        async with make_dispatcher(tuning=tuning(clock)) as restarted:
            assert digests_to_admin(restarted) == []
            again = restarted.dp["upkeep"].gaps_digest.schedule(restarted.bot)
            assert not await again.tick(clock())
            assert digests_to_admin(restarted) == []

    async def test_nothing_is_sent_when_nothing_went_unanswered(
        self, make_dispatcher: Any
    ) -> None:
        clock = FakeClock()
        async with make_dispatcher(tuning=tuning(clock)) as harness:
            await ask_found(harness, "Что нужно для шарлотки?")
            next_monday_morning(clock)
            assert await harness.dp["upkeep"].gaps_digest.schedule(harness.bot).tick(clock())
            assert sent_to(harness, ADMIN_ID) == []

    async def test_off_sends_nothing(self, make_dispatcher: Any) -> None:
        clock = FakeClock()
        async with make_dispatcher(tuning=tuning(clock), gaps_digest="off") as harness:
            await ask_unfound(harness, f"Что такое {NONSENSE}?")
            next_monday_morning(clock)
            digest: GapsDigest = harness.dp["upkeep"].gaps_digest
            digest.wake()
            assert not await digest.schedule(harness.bot).tick(clock())
            assert sent_to(harness, ADMIN_ID) == []
            assert NONSENSE in await gaps(harness)

    async def test_daily_is_due_every_day(self, make_dispatcher: Any) -> None:
        clock = FakeClock()
        async with make_dispatcher(tuning=tuning(clock), gaps_digest="daily") as harness:
            await ask_unfound(harness, f"Что такое {NONSENSE}?")
            schedule = harness.dp["upkeep"].gaps_digest.schedule(harness.bot)
            clock.advance(DAY_S)
            assert await schedule.tick(clock())
            assert len([t for t in texts_to(harness, ADMIN_ID) if NONSENSE in t]) == 1

    async def test_sent_once_by_two_workers_on_one_database(
        self, make_dispatcher: Any, postgres_url: str
    ) -> None:
        clock = FakeClock()
        async with make_dispatcher(tuning=tuning(clock), database_url=postgres_url) as harness:
            await ask_unfound(harness, f"Что такое {NONSENSE}?")
            other = await PostgresDatabase.open(postgres_url)
            try:
                store: UnansweredLog = PostgresUnanswered(other, clock=clock)
                access: AccessPolicy = harness.dp["access"]
                report = GapReport(store, clock=clock)
                scopes = harness.dp["scopes"]
                second = GapsDigest("weekly", store, report, access, scopes, clock=clock)
                first: GapsDigest = harness.dp["upkeep"].gaps_digest
                next_monday_morning(clock)
                won = await asyncio.gather(
                    first.schedule(harness.bot).tick(clock()),
                    second.schedule(harness.bot).tick(clock()),
                )
            finally:
                await other.close()
            assert sorted(won) == [False, True]
            (sent,) = [t for t in texts_to(harness, ADMIN_ID) if NONSENSE in t]
            assert "Questions the documents could not answer" in sent
