"""The answers' feedback on both backends: what one writes, the other reads the same way."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest

from bot.process.data_files import DataFiles
from bot.storage import PostgresDatabase
from bot.storage.feedback import (
    ANSWER_CHARS,
    COMMENT_CHARS,
    Answered,
    FeedbackStore,
    is_answer_id,
    new_answer_id,
)
from bot.storage.feedback.postgres import PostgresFeedback
from bot.storage.feedback.sqlite import SqliteFeedback
from tests.fakes.clock import FakeClock

DAY = 24 * 3600.0


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(1_000_000.0)


@pytest.fixture
async def sqlite_feedback(tmp_path: Path, clock: FakeClock) -> AsyncIterator[FeedbackStore]:
    store = SqliteFeedback(tmp_path / "feedback.sqlite3", clock=clock)
    try:
        yield store
    finally:
        await store.close()


@pytest.fixture
async def postgres_feedback(
    postgres_database: PostgresDatabase, clock: FakeClock
) -> AsyncIterator[FeedbackStore]:
    store = PostgresFeedback(postgres_database, clock=clock)
    try:
        yield store
    finally:
        await store.close()


@pytest.fixture
def feedback(backend: str, request: pytest.FixtureRequest) -> FeedbackStore:
    store: FeedbackStore = request.getfixturevalue(f"{backend}_feedback")
    return store


def answered(
    user_id: int = 7, *, chat_id: int | None = None, files: tuple[str, ...] = ()
) -> Answered:
    return Answered(
        chat_id=user_id if chat_id is None else chat_id,
        user_id=user_id,
        conversation=f"chat:{user_id}",
        question="Сколько дней отпуска?",
        answer="28 дней.",
        files=files,
        model="gpt-test",
        prompt_tokens=120,
        completion_tokens=30,
        seconds=2.5,
    )


class TestFeedbackStore:
    async def test_an_answer_comes_back_as_written(
        self, feedback: FeedbackStore, clock: FakeClock
    ) -> None:
        answer_id = new_answer_id()
        written = answered(files=("hr/отпуск.md", "hr/vacation.md"))
        await feedback.record(answer_id, written)
        found = await feedback.find(answer_id)
        assert found is not None
        assert found.answered == written
        assert found.created_at == clock.now
        assert found.vote is None and found.reason is None and found.comment == ""
        assert await feedback.find(new_answer_id()) is None
        assert await feedback.find("../../etc") is None

    async def test_long_text_is_cut_to_its_bound(self, feedback: FeedbackStore) -> None:
        answer_id = new_answer_id()
        await feedback.record(answer_id, replace(answered(), answer="а" * (ANSWER_CHARS + 50)))
        found = await feedback.find(answer_id)
        assert found is not None and len(found.answered.answer) == ANSWER_CHARS

    async def test_a_vote_is_stored_changed_and_a_thumbs_up_drops_the_reason(
        self, feedback: FeedbackStore, clock: FakeClock
    ) -> None:
        answer_id = new_answer_id()
        await feedback.record(answer_id, answered())
        assert not await feedback.set_reason(answer_id, "wrong_file"), "no reason before a 👎"
        down = await feedback.vote(answer_id, "down")
        assert down is not None and down.vote == "down" and down.voted_at == clock.now
        assert await feedback.set_reason(answer_id, "wrong_answer")
        assert await feedback.set_comment(answer_id, "ж" * (COMMENT_CHARS + 9))
        found = await feedback.find(answer_id)
        assert found is not None and found.reason == "wrong_answer"
        assert found.comment == "ж" * COMMENT_CHARS
        up = await feedback.vote(answer_id, "up")
        assert up is not None and up.vote == "up" and up.reason is None and up.comment == ""
        assert await feedback.vote(new_answer_id(), "up") is None

    async def test_the_question_what_was_wrong_is_noted_once_and_found_by_its_message(
        self, feedback: FeedbackStore
    ) -> None:
        answer_id = new_answer_id()
        await feedback.record(answer_id, answered(7, chat_id=-100))
        assert await feedback.mark_asked(answer_id, 555)
        assert not await feedback.mark_asked(answer_id, 556)
        found = await feedback.by_prompt(-100, 555)
        assert found is not None and found.id == answer_id and found.prompt_message_id == 555
        assert await feedback.by_prompt(-101, 555) is None
        assert await feedback.by_prompt(-100, 556) is None

    async def test_votes_since_and_the_disliked_newest_first(
        self, feedback: FeedbackStore, clock: FakeClock
    ) -> None:
        ids = [new_answer_id() for _ in range(4)]
        for answer_id in ids:
            await feedback.record(answer_id, answered())
        await feedback.vote(ids[0], "down")
        clock.advance(DAY)
        await feedback.vote(ids[1], "up")
        await feedback.vote(ids[2], "down")
        clock.advance(DAY)
        await feedback.vote(ids[3], "down")
        votes = sorted(await feedback.votes_since(clock.now - DAY))
        assert votes == [(clock.now - DAY, "down"), (clock.now - DAY, "up"), (clock.now, "down")]
        assert [r.id for r in await feedback.disliked(2)] == [ids[3], ids[2]]
        assert [r.id for r in await feedback.disliked(10)] == [ids[3], ids[2], ids[0]]

    async def test_forget_user_deletes_only_that_persons_answers(
        self, feedback: FeedbackStore
    ) -> None:
        mine, theirs, in_group = new_answer_id(), new_answer_id(), new_answer_id()
        await feedback.record(mine, answered(7))
        await feedback.record(in_group, answered(7, chat_id=-100))
        await feedback.record(theirs, answered(8, chat_id=-100))
        assert await feedback.forget_user(7) == 2
        assert await feedback.find(mine) is None and await feedback.find(in_group) is None
        assert await feedback.find(theirs) is not None

    async def test_delete_older_keeps_the_newer(
        self, feedback: FeedbackStore, clock: FakeClock
    ) -> None:
        old, new = new_answer_id(), new_answer_id()
        await feedback.record(old, answered())
        clock.advance(10 * DAY)
        await feedback.record(new, answered())
        assert await feedback.delete_older(clock.now - 5 * DAY) == 1
        assert await feedback.find(old) is None and await feedback.find(new) is not None


def test_ids_are_short_random_and_recognised() -> None:
    ids = {new_answer_id() for _ in range(50)}
    assert len(ids) == 50 and all(is_answer_id(i) and len(i) == 12 for i in ids)
    assert not is_answer_id("up") and not is_answer_id("a" * 13)


def test_the_file_is_among_the_bot_databases(tmp_path: Path) -> None:
    files = DataFiles(tmp_path)
    assert files.feedback in files.bot_databases()
