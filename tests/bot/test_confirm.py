"""The one "are you sure?" flow behind `/rm`, `/mv` and `/forget`: who may settle a question,
where, how often, and what the question becomes."""

from __future__ import annotations

import time
from typing import Any

from aiogram.methods import SendMessage
from aiogram.types import InlineKeyboardMarkup

from bot.access import AccessPolicy
from bot.telegram.texts import texts_for
from tests.bot.access_support import button_data, sent_to, tap, texts_to
from tests.bot.test_documents import _QUESTION_ID, CHARLOTTE, _ask, _expect_message
from tests.fakes.accounts import ADMIN_ID, USER_ID, bot_user_json
from tests.fakes.harness import Harness

RU = texts_for("ru")
ELSEWHERE = {"id": -100_321, "type": "supergroup", "title": "Team"}


def _popped_up(harness: Harness) -> list[str]:
    """The texts of the pop-ups that answered taps, in order."""
    return [str(a.text) for a in harness.session.called("answerCallbackQuery") if a.text]


async def _tap_in(harness: Harness, chat: dict[str, Any], data: str, user_id: int) -> None:
    """A tap on a button under message `_QUESTION_ID` as it is shown in `chat`."""
    harness.session.add_result("answerCallbackQuery", True)
    message = {
        "message_id": _QUESTION_ID,
        "date": int(time.time()),
        "chat": chat,
        "from": bot_user_json(),
        "text": "question",
    }
    await harness.feed(harness.updates.callback(data, user_id=user_id, message=message))


async def _forget_question(harness: Harness, user_id: int) -> SendMessage:
    _expect_message(harness, user_id, _QUESTION_ID)
    await harness.feed(harness.updates.command("/forget", user_id=user_id))
    return sent_to(harness, user_id)[-1]


class TestWhoSettles:
    async def test_only_the_asker_in_the_chat_of_the_question_and_only_once(
        self, harness: Harness
    ) -> None:
        trashed = harness.settings.sandbox_dir / CHARLOTTE
        question = await _ask(harness, f"/rm {CHARLOTTE}")
        yes, _ = button_data(question)
        await tap(harness, question, _QUESTION_ID, yes, USER_ID)
        await _tap_in(harness, ELSEWHERE, yes, ADMIN_ID)
        assert _popped_up(harness) == [RU.confirm_expired, RU.button_outdated]
        assert trashed.exists(), "a tap by someone else or elsewhere does nothing"

        await tap(harness, question, _QUESTION_ID, yes, ADMIN_ID)
        assert not trashed.exists()
        (edit,) = harness.session.called("editMessageText")
        assert edit.message_id == _QUESTION_ID and edit.reply_markup is None
        await tap(harness, question, _QUESTION_ID, yes, ADMIN_ID)
        assert _popped_up(harness)[-1] == RU.confirm_expired
        assert len(harness.session.called("editMessageText")) == 1

    async def test_one_features_button_cannot_settle_anothers_question(
        self, harness: Harness
    ) -> None:
        question = await _forget_question(harness, ADMIN_ID)
        forget_yes, _ = button_data(question)
        borrowed = "doc:y:" + forget_yes.rsplit(":", 1)[1]
        harness.llm.reply_text("Ответ.")
        await harness.feed(harness.updates.message("где рецепт шарлотки?", user_id=ADMIN_ID))
        await tap(harness, question, _QUESTION_ID, borrowed, ADMIN_ID)
        assert _popped_up(harness) == [RU.button_not_here]
        assert not harness.session.called("editMessageText")
        harness.llm.reply_text("Ответ.")
        await harness.feed(harness.updates.message("а сколько яблок?", user_id=ADMIN_ID))
        assert "где рецепт шарлотки?" in str(harness.llm.requests[-1]["messages"])

    async def test_an_admin_who_lost_the_role_cannot_confirm(self, harness: Harness) -> None:
        access: AccessPolicy = harness.dp.workflow_data["access"]
        paired = 4004
        code = await access.issue_code()
        await harness.feed(harness.updates.command(f"/start {code}", user_id=paired))
        question = await _ask(harness, f"/rm {CHARLOTTE}", user_id=paired)
        await harness.feed(harness.updates.command(f"/allow {paired}", user_id=ADMIN_ID))
        await harness.feed(harness.updates.command(f"/deny {paired}", user_id=ADMIN_ID))
        await harness.feed(harness.updates.command(f"/allow {paired}", user_id=ADMIN_ID))
        assert access.may_use(paired) and not access.is_admin(paired)

        await tap(harness, question, _QUESTION_ID, button_data(question)[0], paired)
        assert _popped_up(harness) == [RU.admin_only]
        assert (harness.settings.sandbox_dir / CHARLOTTE).exists()


class TestWhatTheQuestionBecomes:
    async def test_a_question_deleted_meanwhile_gets_its_outcome_as_a_new_message(
        self, harness: Harness
    ) -> None:
        question = await _ask(harness, f"/rm {CHARLOTTE}")
        harness.session.add_error("editMessageText", 400, "Bad Request: message to edit not found")
        await tap(harness, question, _QUESTION_ID, button_data(question)[0], ADMIN_ID)
        outcome = sent_to(harness, ADMIN_ID)[-1]
        assert "в корзине" in str(outcome.text) and outcome.reply_markup is None
        assert not (harness.settings.sandbox_dir / CHARLOTTE).exists()

    async def test_a_question_too_old_to_read_is_expired_and_its_action_waits(
        self, harness: Harness
    ) -> None:
        question = await _ask(harness, f"/rm {CHARLOTTE}")
        yes, _ = button_data(question)
        harness.session.add_result("answerCallbackQuery", True)
        unreadable = {
            "chat": {"id": ADMIN_ID, "type": "private"},
            "message_id": _QUESTION_ID,
            "date": 0,
        }
        await harness.feed(harness.updates.callback(yes, user_id=ADMIN_ID, message=unreadable))
        assert _popped_up(harness) == [RU.confirm_expired]
        assert (harness.settings.sandbox_dir / CHARLOTTE).exists()
        await tap(harness, question, _QUESTION_ID, yes, ADMIN_ID)
        assert "в корзине" in texts_to(harness, ADMIN_ID)[-1]

    async def test_forget_and_rm_ask_with_the_same_buttons(self, harness: Harness) -> None:
        forget = await _forget_question(harness, USER_ID)
        rm = await _ask(harness, f"/rm {CHARLOTTE}")
        for question, yes_label in ((forget, RU.forget_button), (rm, RU.confirm_button)):
            assert question.parse_mode == "HTML"
            markup = question.reply_markup
            assert isinstance(markup, InlineKeyboardMarkup)
            (row,) = markup.inline_keyboard
            assert [b.text for b in row] == [yes_label, RU.cancel_button]
