"""A stranger asks, an admin taps: access requests with buttons, through the real Dispatcher."""

from __future__ import annotations

from typing import Any

from aiogram.methods import AnswerCallbackQuery, EditMessageText

from bot.access import AccessPolicy
from tests.bot.access_support import button_data, expect_requests, sent_to, tap, texts_to
from tests.fakes.accounts import ADMIN_ID, STRANGER_ID, USER_ID
from tests.fakes.harness import Harness

SECOND_ADMIN = 2003


def _access(harness: Harness) -> AccessPolicy:
    access = harness.dp.workflow_data["access"]
    assert isinstance(access, AccessPolicy)
    return access


def _edits(harness: Harness, chat_id: int) -> list[EditMessageText]:
    return [c for c in harness.session.called("editMessageText") if c.chat_id == chat_id]


def _answers(harness: Harness) -> list[AnswerCallbackQuery]:
    return harness.session.called("answerCallbackQuery")


async def _stranger_writes(harness: Harness, text: str = "где рецепт шарлотки?") -> None:
    message = harness.updates.message_json(text, user_id=STRANGER_ID)
    message["from"]["username"] = "stranger"
    await harness.feed(harness.updates.wrap("message", message))


class TestRequests:
    async def test_one_tap_lets_the_stranger_in_and_their_next_question_is_answered(
        self, harness: Harness
    ) -> None:
        ids = expect_requests(harness, ADMIN_ID)
        await _stranger_writes(harness)
        assert not harness.llm.requests
        (request,) = sent_to(harness, ADMIN_ID)
        assert "User3003 (@stranger) asks for access" in request.text
        assert f"<code>{STRANGER_ID}</code>" in request.text
        assert button_data(request) == [
            f"access:allow:{STRANGER_ID}",
            f"access:ignore:{STRANGER_ID}",
        ]
        assert all(len(data.encode()) <= 64 for data in button_data(request))
        (told,) = texts_to(harness, STRANGER_ID)
        assert "попросил администраторов" in told

        await tap(harness, request, ids[ADMIN_ID], f"access:allow:{STRANGER_ID}", ADMIN_ID)
        (edit,) = _edits(harness, ADMIN_ID)
        assert edit.message_id == ids[ADMIN_ID]
        assert "was let in by User2002" in str(edit.text)
        assert edit.reply_markup is None
        assert "Теперь у вас есть доступ" in texts_to(harness, STRANGER_ID)[-1]
        assert _answers(harness)[-1].show_alert is not True

        harness.llm.reply_text("Стакан сахара.")
        await _stranger_writes(harness, "сколько сахара?")
        assert harness.llm.requests
        assert texts_to(harness, STRANGER_ID)[-1] == "Стакан сахара."

    async def test_a_stranger_asks_once_per_period(self, harness: Harness) -> None:
        expect_requests(harness, ADMIN_ID)
        for _ in range(3):
            await _stranger_writes(harness)
        assert len(sent_to(harness, ADMIN_ID)) == 1
        assert len(sent_to(harness, STRANGER_ID)) == 1, "one notice a minute"

    async def test_ignore_lets_nobody_in_and_tells_nobody(self, harness: Harness) -> None:
        ids = expect_requests(harness, ADMIN_ID)
        await _stranger_writes(harness)
        (request,) = sent_to(harness, ADMIN_ID)
        await tap(harness, request, ids[ADMIN_ID], f"access:ignore:{STRANGER_ID}", ADMIN_ID)
        assert "was ignored by User2002" in str(_edits(harness, ADMIN_ID)[-1].text)
        assert len(sent_to(harness, STRANGER_ID)) == 1
        assert not _access(harness).may_use(STRANGER_ID)

    async def test_only_admins_may_press(self, harness: Harness) -> None:
        ids = expect_requests(harness, ADMIN_ID)
        await _stranger_writes(harness)
        (request,) = sent_to(harness, ADMIN_ID)
        await tap(harness, request, ids[ADMIN_ID], f"access:allow:{STRANGER_ID}", USER_ID)
        (refusal,) = _answers(harness)
        assert refusal.show_alert
        assert "только для администраторов" in str(refusal.text)
        harness.session.calls.clear()
        await tap(harness, request, ids[ADMIN_ID], f"access:allow:{STRANGER_ID}", STRANGER_ID)
        assert not harness.session.called("sendMessage")
        assert not _access(harness).may_use(STRANGER_ID)
        assert not _edits(harness, ADMIN_ID)

    async def test_the_first_admin_decides_for_all(self, make_dispatcher: Any) -> None:
        async with make_dispatcher(admin_ids=frozenset({ADMIN_ID, SECOND_ADMIN})) as harness:
            ids = expect_requests(harness, ADMIN_ID, SECOND_ADMIN)
            await _stranger_writes(harness)
            first, second = sent_to(harness, ADMIN_ID)[0], sent_to(harness, SECOND_ADMIN)[0]
            await tap(harness, first, ids[ADMIN_ID], f"access:allow:{STRANGER_ID}", ADMIN_ID)
            assert "was let in by User2002" in str(_edits(harness, SECOND_ADMIN)[-1].text)
            await tap(
                harness, second, ids[SECOND_ADMIN], f"access:ignore:{STRANGER_ID}", SECOND_ADMIN
            )
            late = _answers(harness)[-1]
            assert late.show_alert
            assert "User2002" in str(late.text)
            assert _access(harness).may_use(STRANGER_ID)

    async def test_requests_come_in_the_language_the_admin_uses(self, harness: Harness) -> None:
        await harness.feed(harness.updates.command("/help", user_id=ADMIN_ID))
        expect_requests(harness, ADMIN_ID)
        await _stranger_writes(harness)
        request = sent_to(harness, ADMIN_ID)[-1]
        assert "просит доступ к боту" in request.text

    async def test_a_name_cannot_smuggle_markup(self, harness: Harness) -> None:
        expect_requests(harness, ADMIN_ID)
        hostile = harness.updates.message_json("привет", user_id=STRANGER_ID)
        hostile["from"]["first_name"] = "<b>Boss</b>\u202e"
        await harness.feed(harness.updates.wrap("message", hostile))
        request = sent_to(harness, ADMIN_ID)[-1]
        assert "&lt;b&gt;Boss&lt;/b&gt;\\u202e" in request.text

    async def test_without_an_admin_the_stranger_learns_their_id(
        self, make_dispatcher: Any
    ) -> None:
        async with make_dispatcher(admin_ids=frozenset()) as harness:
            await _stranger_writes(harness)
            (reply,) = sent_to(harness, STRANGER_ID)
            assert f"<code>{STRANGER_ID}</code>" in reply.text
            assert "администратору" in reply.text

    async def test_an_admin_who_never_opened_the_chat_is_skipped(
        self, make_dispatcher: Any
    ) -> None:
        async with make_dispatcher(admin_ids=frozenset({ADMIN_ID, SECOND_ADMIN})) as harness:
            harness.session.add_error("sendMessage", 403, "Forbidden: bot can't initiate")
            expect_requests(harness, SECOND_ADMIN)
            await _stranger_writes(harness)
            assert len(sent_to(harness, SECOND_ADMIN)) == 1
            assert "попросил администраторов" in texts_to(harness, STRANGER_ID)[-1]
