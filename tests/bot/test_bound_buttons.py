"""Every button counts only on the message it was made for, through the real Dispatcher.

Telegram does not sign a button's data: a client may send the data of one message's button with
another message's id, in another chat too. For each kind of button the bot makes, a press on its
own message works, and the same data pressed on another message (of another chat, or another
message of the same chat) gets one short pop-up and nothing else: no edit, no message, no file.
Buttons of messages the bot kept no record of (sent before the upgrade) say they are outdated.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiogram.methods import AnswerCallbackQuery

from bot.access import AccessPolicy
from bot.storage.buttons import Buttons
from bot.storage.feedback import FeedbackStore
from bot.storage.source_links import SourceLinks
from bot.telegram.texts import texts_for
from tests.bot.access_support import button_data, expect_requests, sent_to
from tests.bot.button_support import put_buttons
from tests.bot.source_support import (
    CHARLOTTE,
    GROUP_ID,
    LEASE,
    Answered,
    ask_reading,
    documents,
)
from tests.bot.test_documents import _QUESTION_ID, _expect_message
from tests.bot.test_experts import (
    EXPERTS,
    FORWARD_ID,
    NOTE_ID,
    PROMPT_ID,
    _button,
    _expert_replies,
    _faq_files,
    _next_message_id,
    _save,
    _sent_to,
    _sent_with,
    _unanswered,
)
from tests.fakes.accounts import ADMIN_ID, STRANGER_ID, USER_ID, bot_user_json
from tests.fakes.fixtures import DispatcherFactory
from tests.fakes.harness import Harness

RU = texts_for("ru")
LISTING_ID = 950
OTHER_CHAT = -100_777


@pytest.fixture
async def experts(make_dispatcher: DispatcherFactory) -> AsyncIterator[Harness]:
    """A dispatcher with an experts' group."""
    async with make_dispatcher(experts_chat_id=str(EXPERTS)) as harness:
        yield harness


def _message(chat_id: int, message_id: int) -> dict[str, Any]:
    """A message of the bot's as a tap carries it."""
    chat: dict[str, Any] = {"id": chat_id, "type": "private", "first_name": "User"}
    if chat_id < 0:
        chat = {"id": chat_id, "type": "supergroup", "title": "Team"}
    return {
        "message_id": message_id,
        "date": int(time.time()),
        "chat": chat,
        "from": bot_user_json(),
        "text": "…",
    }


def _on(answered: Answered) -> tuple[int, int]:
    """An answer's chat and message id."""
    return int(answered.message["chat"]["id"]), int(answered.message["message_id"])


async def _press(
    harness: Harness, data: str, where: tuple[int, int], user_id: int = USER_ID
) -> list[Any]:
    """A press of `data` on the message `where` (chat, message id); the calls it made."""
    before = len(harness.session.calls)
    message = _message(*where)
    await harness.feed(harness.updates.callback(data, user_id=user_id, message=message))
    return harness.session.calls[before:]


def _refused(calls: list[Any], text: str = RU.button_not_here) -> None:
    """The press got one pop-up saying `text`, and the bot did nothing else."""
    assert [c.__api_method__ for c in calls] == ["answerCallbackQuery"], calls
    (answer,) = calls
    assert isinstance(answer, AnswerCallbackQuery)
    assert answer.text == text and answer.show_alert


def _feedback(harness: Harness) -> FeedbackStore:
    store: FeedbackStore = harness.dp.workflow_data["feedback"]
    return store


def _vote_data(answered: Answered, vote: str) -> str:
    (data,) = [d for _, d in answered.votes if d.startswith(f"fb:{vote}:")]
    return data


class TestUnderAnswers:
    async def test_a_vote_on_another_persons_answer_changes_nothing(
        self, harness: Harness
    ) -> None:
        mine = await ask_reading(harness, CHARLOTTE, group=True)
        theirs = await ask_reading(harness, CHARLOTTE, user_id=ADMIN_ID, group=True)
        down = _vote_data(mine, "down")
        answer_id = down.removeprefix("fb:down:")

        _refused(await _press(harness, down, _on(theirs)))
        _refused(await _press(harness, down, (OTHER_CHAT, _on(mine)[1])), RU.button_outdated)
        record = await _feedback(harness).find(answer_id)
        assert record is not None and record.vote is None

        calls = await _press(harness, down, _on(mine))
        (edit,) = [c for c in calls if c.__api_method__ == "editMessageReplyMarkup"]
        assert (edit.chat_id, edit.message_id) == _on(mine)
        record = await _feedback(harness).find(answer_id)
        assert record is not None and record.vote == "down"

    async def test_a_reason_counts_only_on_what_was_wrong(self, harness: Harness) -> None:
        answered = await ask_reading(harness, CHARLOTTE)
        down = _vote_data(answered, "down")
        answer_id = down.removeprefix("fb:down:")
        _next_message_id(harness, USER_ID, PROMPT_ID)
        await _press(harness, down, _on(answered))
        prompt = _sent_with(harness, USER_ID, "Что было не так?")
        reason = _button(prompt.reply_markup, "fbr:")

        _refused(await _press(harness, reason, _on(answered)))
        record = await _feedback(harness).find(answer_id)
        assert record is not None and record.reason is None

        calls = await _press(harness, reason, (USER_ID, PROMPT_ID))
        assert [c.message_id for c in calls if c.__api_method__ == "editMessageReplyMarkup"] == [
            PROMPT_ID
        ]
        record = await _feedback(harness).find(answer_id)
        assert record is not None and record.reason is not None

    async def test_a_source_opens_only_from_its_own_answer(self, harness: Harness) -> None:
        charlotte = await ask_reading(harness, CHARLOTTE)
        lease = await ask_reading(harness, LEASE)
        (data, *_) = charlotte.data

        _refused(await _press(harness, data, _on(lease)))
        _refused(await _press(harness, data, (OTHER_CHAT, 1)), RU.button_outdated)

        await _press(harness, data, _on(charlotte))
        (sent,) = documents(harness)
        assert sent.chat_id == USER_ID

    async def test_a_page_opens_only_from_its_own_answer(self, harness: Harness) -> None:
        charlotte = await ask_reading(harness, CHARLOTTE)
        lease = await ask_reading(harness, LEASE)
        links: SourceLinks = harness.dp.workflow_data["source_links"]
        (page_id,) = await links.issue_pages(USER_ID, [(CHARLOTTE, 1)])
        data = f"pg:{page_id}"
        await put_buttons(harness, *_on(charlotte), data)

        _refused(await _press(harness, data, _on(lease)))
        _refused(await _press(harness, data, (OTHER_CHAT, _on(charlotte)[1])), RU.button_outdated)
        calls = await _press(harness, data, _on(charlotte))
        assert [c.__api_method__ for c in calls][0] == "answerCallbackQuery"
        assert calls[0].text != RU.button_not_here, "its own answer's page reaches the handler"


class TestAskAnExpert:
    async def test_ask_counts_only_under_its_answer(self, experts: Harness) -> None:
        answered = await _unanswered(experts)
        other = await _unanswered(experts)
        ask = _button(answered.markup, "xp:")

        _refused(await _press(experts, ask, _on(other)))
        _refused(await _press(experts, ask, (ADMIN_ID, _on(answered)[1])), RU.button_outdated)

        _next_message_id(experts, USER_ID, PROMPT_ID)
        await _press(experts, ask, _on(answered))
        assert _sent_with(experts, USER_ID, "Показать экспертам")

    async def test_the_name_choice_counts_only_under_its_question(self, experts: Harness) -> None:
        answered = await _unanswered(experts)
        _next_message_id(experts, USER_ID, PROMPT_ID)
        await _press(experts, _button(answered.markup, "xp:"), _on(answered))
        prompt = _sent_with(experts, USER_ID, "Показать экспертам")
        named = _button(prompt.reply_markup, "xpn:y:")

        for where in (_on(answered), (GROUP_ID, PROMPT_ID)):
            calls = await _press(experts, named, where)
            _refused(calls, RU.button_not_here if where[0] == USER_ID else RU.button_outdated)
        assert not _sent_to(experts, EXPERTS), "nothing went to the experts"

        _next_message_id(experts, EXPERTS, FORWARD_ID)
        calls = await _press(experts, named, (USER_ID, PROMPT_ID))
        assert _sent_to(experts, EXPERTS)
        (told,) = [c for c in calls if c.__api_method__ == "editMessageText"]
        assert (told.chat_id, told.message_id) == (USER_ID, PROMPT_ID)

    async def test_saving_counts_only_under_its_note(self, experts: Harness) -> None:
        answered = await _unanswered(experts)
        _next_message_id(experts, USER_ID, PROMPT_ID)
        await _press(experts, _button(answered.markup, "xp:"), _on(answered))
        prompt = _sent_with(experts, USER_ID, "Показать экспертам")
        _next_message_id(experts, EXPERTS, FORWARD_ID)
        await _press(experts, _button(prompt.reply_markup, "xpn:n:"), (USER_ID, PROMPT_ID))
        (forward,) = _sent_to(experts, EXPERTS)
        note = await _expert_replies(experts, forward, ADMIN_ID)
        save = _button(note.reply_markup, "xps:")

        _refused(await _press(experts, save, (EXPERTS, FORWARD_ID), ADMIN_ID), RU.button_outdated)
        _refused(await _press(experts, save, (ADMIN_ID, NOTE_ID), ADMIN_ID), RU.button_outdated)
        assert _faq_files(experts) == []

        await _save(experts, note, ADMIN_ID)
        assert len(_faq_files(experts)) == 1


class TestCommands:
    async def _question(self, harness: Harness, command: str, message_id: int) -> list[str]:
        """The buttons of the bot's answer to `command` (sent as `message_id`)."""
        _expect_message(harness, ADMIN_ID, message_id)
        await harness.feed(harness.updates.command(command, user_id=ADMIN_ID))
        return button_data(sent_to(harness, ADMIN_ID)[-1])

    async def test_confirming_rm_counts_only_under_its_question(self, harness: Harness) -> None:
        trashed = harness.settings.sandbox_dir / CHARLOTTE
        yes, _ = await self._question(harness, f"/rm {CHARLOTTE}", _QUESTION_ID)
        await self._question(harness, f"/rm {LEASE}", LISTING_ID)

        _refused(await _press(harness, yes, (ADMIN_ID, LISTING_ID), ADMIN_ID))
        _refused(
            await _press(harness, yes, (GROUP_ID, _QUESTION_ID), ADMIN_ID), RU.button_outdated
        )
        assert trashed.exists()

        await _press(harness, yes, (ADMIN_ID, _QUESTION_ID), ADMIN_ID)
        assert not trashed.exists()

    async def test_restoring_counts_only_under_the_listing(self, harness: Harness) -> None:
        trashed = harness.settings.sandbox_dir / CHARLOTTE
        yes, _ = await self._question(harness, f"/rm {CHARLOTTE}", _QUESTION_ID)
        await _press(harness, yes, (ADMIN_ID, _QUESTION_ID), ADMIN_ID)
        (restore,) = await self._question(harness, "/trash", LISTING_ID)

        _refused(await _press(harness, restore, (ADMIN_ID, _QUESTION_ID), ADMIN_ID))
        assert not trashed.exists()

        await _press(harness, restore, (ADMIN_ID, LISTING_ID), ADMIN_ID)
        assert trashed.exists()

    async def test_forget_counts_only_under_its_question(self, harness: Harness) -> None:
        answered = await ask_reading(harness, CHARLOTTE)
        answer_id = _vote_data(answered, "up").removeprefix("fb:up:")
        _expect_message(harness, USER_ID, _QUESTION_ID)
        await harness.feed(harness.updates.command("/forget", user_id=USER_ID))
        yes, _ = button_data(sent_to(harness, USER_ID)[-1])

        _refused(await _press(harness, yes, _on(answered)))
        assert await _feedback(harness).find(answer_id) is not None

        await _press(harness, yes, (USER_ID, _QUESTION_ID))
        assert await _feedback(harness).find(answer_id) is None

    async def test_an_access_request_is_answered_only_on_itself(self, harness: Harness) -> None:
        access: AccessPolicy = harness.dp.workflow_data["access"]
        ids = expect_requests(harness, ADMIN_ID)
        message = harness.updates.message_json("впустите", user_id=STRANGER_ID)
        await harness.feed(harness.updates.wrap("message", message))
        allow, _ = button_data(sent_to(harness, ADMIN_ID)[-1])
        await self._question(harness, f"/rm {CHARLOTTE}", _QUESTION_ID)

        _refused(await _press(harness, allow, (ADMIN_ID, _QUESTION_ID), ADMIN_ID))
        _refused(
            await _press(harness, allow, (USER_ID, ids[ADMIN_ID]), ADMIN_ID), RU.button_outdated
        )
        assert not access.may_use(STRANGER_ID)

        await _press(harness, allow, (ADMIN_ID, ids[ADMIN_ID]), ADMIN_ID)
        assert access.may_use(STRANGER_ID)


class TestOldButtons:
    async def test_a_message_sent_before_buttons_were_recorded_says_outdated(
        self, harness: Harness
    ) -> None:
        for data in ("fb:up:AAAAAAAAAAAA", "src:AAAAAAAAAAAA", "xp:AAAAAAAAAAAA", "junk"):
            _refused(await _press(harness, data, (USER_ID, 42)), RU.button_outdated)

    async def test_a_tap_without_a_message_says_outdated(self, harness: Harness) -> None:
        update = harness.updates.callback("fb:up:AAAAAAAAAAAA")
        await harness.feed(update)
        _refused(harness.session.calls, RU.button_outdated)

    async def test_the_pop_up_is_in_the_tappers_language(self, harness: Harness) -> None:
        message = _message(USER_ID, 42)
        await harness.feed(
            harness.updates.callback("fb:up:x", message=message, language_code="en")
        )
        _refused(harness.session.calls, texts_for("en").button_outdated)


class TestARecordThatCannotBeRead:
    async def test_a_tap_is_refused_plainly_and_an_answer_still_goes_out(
        self, harness: Harness, caplog: pytest.LogCaptureFixture
    ) -> None:
        answered = await ask_reading(harness, CHARLOTTE)
        store: Buttons = harness.dp.workflow_data["buttons"]
        await store.close()
        _refused(
            await _press(harness, _vote_data(answered, "up"), _on(answered)), RU.error_generic
        )

        harness.llm.reply_text("Стакан сахара.")
        await harness.feed(harness.updates.message("сколько сахара?"))
        assert harness.session.sent_texts()[-1].startswith("Стакан сахара.")
        assert any("were not recorded" in r.getMessage() for r in caplog.records)
