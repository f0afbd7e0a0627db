"""Requests to the experts and their replies on both backends: a request is made once and sent
once, a reply is found by its message and saved once, and both go with HISTORY_DAYS and
`/forget`."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.storage import PostgresDatabase
from bot.storage.experts import QUESTION_CHARS, SAVING, Asked, ExpertReply, ExpertRequests
from bot.storage.experts.postgres import PostgresExpertRequests
from bot.storage.experts.sqlite import SqliteExpertRequests
from tests.fakes.clock import FakeClock

ASKER = 42
EXPERT = 7
EXPERTS_CHAT = -100_900


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(10_000.0)


@pytest.fixture
async def sqlite_experts(tmp_path: Path, clock: FakeClock) -> AsyncIterator[ExpertRequests]:
    store = SqliteExpertRequests(tmp_path / "experts.sqlite3", clock=clock)
    try:
        yield store
    finally:
        await store.close()


@pytest.fixture
async def postgres_experts(
    postgres_database: PostgresDatabase, clock: FakeClock
) -> AsyncIterator[ExpertRequests]:
    store = PostgresExpertRequests(postgres_database, clock=clock)
    try:
        yield store
    finally:
        await store.close()


@pytest.fixture
def experts(backend: str, request: pytest.FixtureRequest) -> ExpertRequests:
    store: ExpertRequests = request.getfixturevalue(f"{backend}_experts")
    return store


def asked(user_id: int = ASKER, question: str = "как оформить отпуск?") -> Asked:
    return Asked(
        chat_id=-100_1, user_id=user_id, question=question, language="ru", thread_id=3, reply_to=55
    )


def reply(request_id: str, message_id: int = 900, expert_id: int = EXPERT) -> ExpertReply:
    return ExpertReply(
        request_id=request_id,
        message_id=message_id,
        expert_id=expert_id,
        expert_name="Анна",
        text="Заявление за две недели.",
        replied_at=10_500.0,
    )


async def sent(store: ExpertRequests, request_id: str, message_id: int, user: int = ASKER) -> None:
    await store.start(request_id, asked(user))
    assert await store.claim(request_id, None)
    await store.sent(request_id, EXPERTS_CHAT, message_id)


class TestExpertRequests:
    async def test_a_request_is_made_once_and_read_back_whole(
        self, experts: ExpertRequests
    ) -> None:
        made = await experts.start("a" * 12, asked(question="я" * (QUESTION_CHARS + 5)))
        again = await experts.start("a" * 12, asked(question="другое"))
        assert made == again
        assert made.state == "asking" and made.created_at == 10_000.0
        assert made.asked.question == "я" * QUESTION_CHARS
        assert (made.asked.thread_id, made.asked.reply_to, made.asked.chat_id) == (3, 55, -100_1)
        assert await experts.find("a" * 12) == made
        assert await experts.find("b" * 12) is None

    async def test_a_request_is_claimed_once_and_a_failed_send_frees_it(
        self, experts: ExpertRequests
    ) -> None:
        await experts.start("a" * 12, asked())
        assert await experts.claim("a" * 12, "Иван (@ivan)")
        assert not await experts.claim("a" * 12, None), "a second tap sends nothing"
        await experts.release("a" * 12)
        found = await experts.find("a" * 12)
        assert found is not None and found.state == "asking" and found.asker_name is None
        assert await experts.claim("a" * 12, None)
        assert not await experts.claim("unknown12345", None)

    async def test_a_sent_request_is_found_by_its_message(self, experts: ExpertRequests) -> None:
        await experts.start("a" * 12, asked())
        assert await experts.claim("a" * 12, "Иван")
        await experts.sent("a" * 12, EXPERTS_CHAT, 77)
        found = await experts.by_message(EXPERTS_CHAT, 77)
        assert found is not None and found.id == "a" * 12
        assert (found.state, found.asker_name, found.experts_message_id) == ("sent", "Иван", 77)
        assert await experts.by_message(EXPERTS_CHAT, 78) is None
        assert await experts.by_message(-100_2, 77) is None
        assert not await experts.claim("a" * 12, None), "a sent request is not sent again"

    async def test_a_reply_is_kept_once_and_saved_once(self, experts: ExpertRequests) -> None:
        await sent(experts, "a" * 12, 77)
        await experts.add_reply(reply("a" * 12))
        await experts.add_reply(reply("a" * 12))
        kept = await experts.reply("a" * 12, 900)
        assert kept == reply("a" * 12)
        assert await experts.claim_saving("a" * 12, 900)
        assert not await experts.claim_saving("a" * 12, 900), "one tap saves"
        saving = await experts.reply("a" * 12, 900)
        assert saving is not None and saving.saved_as == SAVING
        await experts.saved("a" * 12, 900, None)
        assert await experts.claim_saving("a" * 12, 900), "a failed save may be tried again"
        await experts.saved("a" * 12, 900, "FAQ/отпуск.md")
        done = await experts.reply("a" * 12, 900)
        assert done is not None and done.saved_as == "FAQ/отпуск.md"
        assert await experts.reply("a" * 12, 901) is None

    async def test_forget_deletes_the_askers_requests_and_the_experts_replies(
        self, experts: ExpertRequests
    ) -> None:
        await sent(experts, "a" * 12, 77)
        await sent(experts, "b" * 12, 78, user=ASKER + 1)
        await experts.add_reply(reply("a" * 12, 900))
        await experts.add_reply(reply("b" * 12, 901))
        await experts.add_reply(reply("b" * 12, 902, expert_id=EXPERT + 1))
        assert await experts.forget_user(ASKER) == 2, "the request and the reply to it"
        assert await experts.find("a" * 12) is None
        assert await experts.reply("a" * 12, 900) is None
        assert await experts.find("b" * 12) is not None
        assert await experts.forget_user(EXPERT) == 1, "an expert's own reply"
        assert await experts.reply("b" * 12, 901) is None
        assert await experts.reply("b" * 12, 902) is not None
        assert await experts.find("b" * 12) is not None, "the question is the asker's"

    async def test_the_sweep_deletes_old_requests_with_their_replies(
        self, experts: ExpertRequests, clock: FakeClock
    ) -> None:
        await sent(experts, "a" * 12, 77)
        await experts.add_reply(reply("a" * 12))
        clock.advance(100)
        await sent(experts, "b" * 12, 78)
        assert await experts.delete_older(10_050.0) == 1
        assert await experts.find("a" * 12) is None
        assert await experts.reply("a" * 12, 900) is None
        assert await experts.find("b" * 12) is not None
