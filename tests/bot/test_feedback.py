"""👍 and 👎 under answers, through the real Dispatcher: the buttons, the votes kept, the reasons
and comments of a 👎, who may tap, `/feedback`, and their deletion by `/forget` and HISTORY_DAYS.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from aiogram.methods import AnswerCallbackQuery, EditMessageReplyMarkup, SendMessage
from aiogram.types import InlineKeyboardMarkup

from bot.documents.retention import Retention
from bot.storage.feedback import FeedbackRecord, FeedbackStore
from bot.telegram.texts import texts_for
from tests.bot.access_support import tuning
from tests.bot.source_support import (
    CHARLOTTE,
    GROUP_ID,
    LEASE,
    Answered,
    _track_sent,
    answers,
    ask_reading,
    last_answer,
    last_markup,
    tap,
)
from tests.bot.test_privacy import _forget
from tests.fakes.accounts import ADMIN_ID, USER_ID, bot_user_json
from tests.fakes.clock import FakeClock
from tests.fakes.harness import Harness

VACATION = "hr/отпуск.md"
PROMPT_ID = 7_000
WHY = "Что было не так?"


def _store(harness: Harness) -> FeedbackStore:
    store: FeedbackStore = harness.dp.workflow_data["feedback"]
    return store


def _answer_id(answered: Answered) -> str:
    (_, up), (_, down) = answered.votes
    assert up.startswith("fb:up:") and down.startswith("fb:down:")
    answer_id = up.removeprefix("fb:up:")
    assert down.removeprefix("fb:down:") == answer_id
    return answer_id


async def _record(harness: Harness, answered: Answered) -> FeedbackRecord:
    record = await _store(harness).find(_answer_id(answered))
    assert record is not None, "the delivered answer is kept"
    return record


def _expect_prompt(harness: Harness, chat_id: int, message_id: int = PROMPT_ID) -> None:
    """The next sendMessage (the "what was wrong?" question) gets `message_id`."""
    harness.session.add_result(
        "sendMessage",
        {
            "message_id": message_id,
            "date": int(time.time()),
            "chat": _chat(chat_id),
            "from": bot_user_json(),
            "text": WHY,
        },
    )


def _prompts(harness: Harness) -> list[SendMessage]:
    return [
        c
        for c in harness.session.calls
        if isinstance(c, SendMessage) and str(c.text).startswith(WHY)
    ]


def _prompt_json(harness: Harness, chat_id: int) -> dict[str, Any]:
    """The "what was wrong?" message as a tap or a reply carries it."""
    (prompt,) = _prompts(harness)
    markup = prompt.reply_markup
    assert isinstance(markup, InlineKeyboardMarkup)
    return {
        "message_id": PROMPT_ID,
        "date": int(time.time()),
        "chat": _chat(chat_id),
        "from": bot_user_json(),
        "text": str(prompt.text),
        "reply_markup": markup.model_dump(mode="json", exclude_none=True),
    }


def _chat(chat_id: int) -> dict[str, Any]:
    if chat_id < 0:
        return {"id": chat_id, "type": "supergroup", "title": "Team"}
    return {"id": chat_id, "type": "private", "first_name": "User"}


def _last_pop_up(harness: Harness) -> AnswerCallbackQuery:
    return answers(harness)[-1]


def _marked_votes(harness: Harness) -> list[str]:
    """The vote buttons' labels after the last edit of an answer's buttons."""
    edits = harness.session.called("editMessageReplyMarkup")
    assert edits, "the buttons were not updated"
    edit: EditMessageReplyMarkup = edits[-1]
    assert edit.reply_markup is not None
    rows = edit.reply_markup.inline_keyboard
    vote_rows = [r for r in rows if any(str(b.callback_data).startswith("fb:") for b in r)]
    assert vote_rows == [rows[-1]], "one vote row, at the bottom"
    return [b.text for b in rows[-1]]


async def _feedback_report(harness: Harness) -> str:
    await harness.feed(harness.updates.command("/feedback", user_id=ADMIN_ID))
    return harness.session.sent_texts()[-1]


class TestButtons:
    async def test_an_answer_has_a_vote_row_below_its_source_buttons(
        self, harness: Harness
    ) -> None:
        answered = await ask_reading(harness, CHARLOTTE, LEASE)
        rows = answered.markup.inline_keyboard
        assert [b.text for b in rows[-1]] == ["👍", "👎"]
        assert len(rows) == 3, "two source rows, then the votes"
        answer_id = _answer_id(answered)
        for _, data in answered.votes:
            assert len(data.encode()) <= 64 and "где" not in data and "шарлотк" not in data
        record = await _record(harness, answered)
        assert record.answered.question == "где это?"
        assert record.answered.answer.startswith("Вот ответ.")
        assert record.answered.files == (CHARLOTTE, LEASE)
        assert record.answered.chat_id == USER_ID and record.answered.user_id == USER_ID
        assert record.answered.model == harness.settings.model
        assert record.id == answer_id and record.vote is None

    async def test_an_error_gets_no_vote_buttons(self, harness: Harness) -> None:
        harness.llm.reply_error(500, "boom")
        await harness.feed(harness.updates.message("где это?"))
        assert last_markup(harness) is None


class TestVotes:
    async def test_a_thumbs_up_is_kept_and_shown(self, harness: Harness) -> None:
        answered = await ask_reading(harness, CHARLOTTE)
        await tap(harness, answered, answered.votes[0][1])
        record = await _record(harness, answered)
        assert record.vote == "up" and record.voted_at is not None
        assert _marked_votes(harness) == ["👍 ✓", "👎"]
        edit: EditMessageReplyMarkup = harness.session.called("editMessageReplyMarkup")[-1]
        assert edit.reply_markup is not None
        assert str(edit.reply_markup.inline_keyboard[0][0].callback_data).startswith("src:")
        assert not _last_pop_up(harness).show_alert
        assert not _prompts(harness), "a 👍 asks nothing"

    async def test_a_second_tap_changes_the_vote(self, harness: Harness) -> None:
        answered = await ask_reading(harness, CHARLOTTE)
        await tap(harness, answered, answered.votes[0][1])
        await tap(harness, answered, answered.votes[1][1])
        assert (await _record(harness, answered)).vote == "down"
        assert _marked_votes(harness) == ["👍", "👎 ✓"]

    async def test_a_thumbs_down_then_a_reason_then_words_are_kept_and_shown_in_feedback(
        self, harness: Harness
    ) -> None:
        answered = await ask_reading(harness, CHARLOTTE)
        _expect_prompt(harness, USER_ID)
        await tap(harness, answered, answered.votes[1][1])
        (prompt,) = _prompts(harness)
        assert prompt.reply_parameters is not None
        assert prompt.reply_parameters.message_id == answered.message["message_id"]
        assert isinstance(prompt.reply_markup, InlineKeyboardMarkup)
        reasons = prompt.reply_markup.inline_keyboard
        assert [row[0].text for row in reasons] == [
            "нет в документах",
            "неверный ответ",
            "не тот файл",
        ]
        prompt_message = _prompt_json(harness, USER_ID)
        await harness.feed(
            harness.updates.callback(str(reasons[1][0].callback_data), message=prompt_message)
        )
        assert (await _record(harness, answered)).reason == "wrong_answer"
        edit: EditMessageReplyMarkup = harness.session.called("editMessageReplyMarkup")[-1]
        assert edit.message_id == PROMPT_ID and edit.reply_markup is not None
        assert [row[0].text for row in edit.reply_markup.inline_keyboard] == [
            "нет в документах",
            "неверный ответ ✓",
            "не тот файл",
        ]
        await harness.feed(
            harness.updates.message(
                "Там про яблоки, а не <про> груши", reply_to_message=prompt_message
            )
        )
        record = await _record(harness, answered)
        assert record.comment == "Там про яблоки, а не <про> груши"
        assert "комментарий сохранён" in harness.session.sent_texts()[-1]
        assert len(harness.llm.requests) == 2, "the comment is not taken for a question"

        report = await _feedback_report(harness)
        assert "👎 1" in report
        assert "<i>где это?</i>" in report
        assert "неверный ответ; «Там про яблоки, а не &lt;про&gt; груши»" in report
        assert "<code>документы/рецепт_шарлотки.txt</code>: 1" in report

    async def test_not_in_the_documents_keeps_the_question_for_gaps(
        self, harness: Harness
    ) -> None:
        answered = await ask_reading(harness, CHARLOTTE)
        _expect_prompt(harness, USER_ID)
        await tap(harness, answered, answered.votes[1][1])
        (prompt,) = _prompts(harness)
        assert isinstance(prompt.reply_markup, InlineKeyboardMarkup)
        not_there = str(prompt.reply_markup.inline_keyboard[0][0].callback_data)
        unanswered = harness.dp.workflow_data["unanswered"]
        assert await unanswered.since(0.0) == [], "the answer read a document"
        message = _prompt_json(harness, USER_ID)
        await harness.feed(harness.updates.callback(not_there, message=message))
        await harness.feed(harness.updates.callback(not_there, message=message))
        (kept,) = await unanswered.since(0.0)
        assert (kept.question, kept.reason, kept.user_id) == ("где это?", "feedback", USER_ID)

    async def test_the_question_what_was_wrong_is_asked_once(self, harness: Harness) -> None:
        answered = await ask_reading(harness, CHARLOTTE)
        _expect_prompt(harness, USER_ID)
        await tap(harness, answered, answered.votes[1][1])
        await tap(harness, answered, answered.votes[0][1])
        await tap(harness, answered, answered.votes[1][1])
        assert len(_prompts(harness)) == 1

    async def test_a_comment_too_long_is_refused_and_nothing_kept(self, harness: Harness) -> None:
        answered = await ask_reading(harness, CHARLOTTE)
        _expect_prompt(harness, USER_ID)
        await tap(harness, answered, answered.votes[1][1])
        prompt_message = _prompt_json(harness, USER_ID)
        await harness.feed(harness.updates.message("я" * 1001, reply_to_message=prompt_message))
        assert "1001" in harness.session.sent_texts()[-1]
        assert (await _record(harness, answered)).comment == ""

    async def test_a_command_in_reply_is_a_command_not_a_comment(self, harness: Harness) -> None:
        answered = await ask_reading(harness, CHARLOTTE)
        _expect_prompt(harness, USER_ID)
        await tap(harness, answered, answered.votes[1][1])
        prompt_message = _prompt_json(harness, USER_ID)
        command = harness.updates.command("/help", reply_to_message=prompt_message)
        await harness.feed(command)
        assert (await _record(harness, answered)).comment == ""
        assert "/forget" in harness.session.sent_texts()[-1], "the help is shown"

    async def test_votes_and_reasons_are_counted_in_the_metrics(self, harness: Harness) -> None:
        answered = await ask_reading(harness, CHARLOTTE)
        _expect_prompt(harness, USER_ID)
        await tap(harness, answered, answered.votes[1][1])
        prompt_message = _prompt_json(harness, USER_ID)
        reasons = prompt_message["reply_markup"]["inline_keyboard"]
        await harness.feed(
            harness.updates.callback(str(reasons[0][0]["callback_data"]), message=prompt_message)
        )
        page = harness.services.metrics.render().decode()
        assert 'docs_bot_feedback_total{reason="none",vote="down"} 1.0' in page
        assert 'docs_bot_feedback_total{reason="not_in_documents",vote="down"} 1.0' in page
        assert 'docs_bot_feedback_total{reason="none",vote="up"} 0.0' in page


class TestWhoMayTap:
    async def test_someone_else_in_the_private_chat_is_refused(self, harness: Harness) -> None:
        answered = await ask_reading(harness, CHARLOTTE)
        await tap(harness, answered, answered.votes[1][1], user_id=ADMIN_ID)
        pop_up = _last_pop_up(harness)
        assert pop_up.show_alert and "только тот, кто задал вопрос" in str(pop_up.text)
        assert (await _record(harness, answered)).vote is None
        assert not harness.session.called("editMessageReplyMarkup")

    async def test_in_a_group_only_the_member_who_asked_may_vote(self, harness: Harness) -> None:
        answered = await ask_reading(harness, CHARLOTTE, group=True)
        await tap(harness, answered, answered.votes[0][1], user_id=ADMIN_ID)
        assert _last_pop_up(harness).show_alert
        assert (await _record(harness, answered)).vote is None
        await tap(harness, answered, answered.votes[0][1], user_id=USER_ID)
        record = await _record(harness, answered)
        assert record.vote == "up" and record.answered.chat_id == GROUP_ID

    async def test_an_unknown_or_malformed_id_gets_a_pop_up(self, harness: Harness) -> None:
        answered = await ask_reading(harness, CHARLOTTE)
        for data in ("fb:up:AAAAAAAAAAAA", "fb:sideways:" + _answer_id(answered), "fb:up"):
            await tap(harness, answered, data)
            pop_up = _last_pop_up(harness)
            assert pop_up.show_alert and pop_up.text, data
        assert (await _record(harness, answered)).vote is None

    async def test_someone_elses_reply_to_the_question_is_not_a_comment(
        self, harness: Harness
    ) -> None:
        answered = await ask_reading(harness, CHARLOTTE, group=True)
        _expect_prompt(harness, GROUP_ID)
        await tap(harness, answered, answered.votes[1][1])
        prompt_message = _prompt_json(harness, GROUP_ID)
        harness.llm.reply_text("Отвечаю на вопрос.")
        await harness.feed(
            harness.updates.message(
                "а что с отпуском?",
                user_id=ADMIN_ID,
                chat_id=GROUP_ID,
                chat_type="supergroup",
                reply_to_message=prompt_message,
            )
        )
        assert (await _record(harness, answered)).comment == ""


class TestReport:
    async def test_an_admin_sees_only_the_dislikes_within_their_scope(
        self, make_dispatcher: Any, tmp_path: Path
    ) -> None:
        scopes = tmp_path / "scopes.toml"
        scopes.write_text(f'{ADMIN_ID} = ["документы"]\n', encoding="utf-8")
        async with make_dispatcher(scopes_file=scopes) as harness:
            inside = await ask_reading(harness, CHARLOTTE)
            outside = await ask_reading(harness, VACATION)
            harness.llm.reply_text("Не знаю.")
            sent = _track_sent(harness.session)
            await harness.feed(harness.updates.message("а сколько стоит кофе?"))
            no_files = last_answer(harness, sent)
            assert no_files is not None
            for answered in (inside, outside, no_files):
                await tap(harness, answered, answered.votes[1][1])
            report = await _feedback_report(harness)
        assert "<i>где это?</i>" in report, "the answer that read documents/ is shown"
        assert "а сколько стоит кофе?" in report, "an answer that read nothing is everyone's"
        assert report.count("<i>где это?</i>") == 1, "the answer that read hr/ is not"
        assert "отпуск.md" not in report
        assert "рецепт_шарлотки.txt</code>: 1" in report
        assert report.count("👎 3") >= 1, "the counts are of every vote"

    async def test_feedback_is_for_admins_in_private(self, harness: Harness) -> None:
        await harness.feed(harness.updates.command("/feedback", user_id=USER_ID))
        assert "только для администраторов" in harness.session.sent_texts()[-1]


class TestDeletion:
    async def test_forget_deletes_the_persons_answers_and_their_votes(
        self, harness: Harness
    ) -> None:
        mine = await ask_reading(harness, CHARLOTTE)
        theirs = await ask_reading(harness, CHARLOTTE, user_id=ADMIN_ID)
        await tap(harness, mine, mine.votes[0][1])
        await _forget(harness)
        assert await _store(harness).find(_answer_id(mine)) is None
        assert await _store(harness).find(_answer_id(theirs)) is not None
        await tap(harness, mine, mine.votes[1][1])
        refusal = str(_last_pop_up(harness).text)
        assert refusal == texts_for("ru").button_outdated, "its buttons went with it"

    async def test_the_sweep_deletes_answers_older_than_history_days(
        self, make_dispatcher: Any
    ) -> None:
        clock = FakeClock(time.time())
        async with make_dispatcher(tuning=tuning(clock), history_days=3) as harness:
            old = await ask_reading(harness, CHARLOTTE)
            clock.advance(2 * 86400)
            recent = await ask_reading(harness, LEASE)
            clock.advance(2 * 86400)
            retention: Retention = harness.dp.workflow_data["upkeep"].retention
            await retention.sweep()
            assert await _store(harness).find(_answer_id(old)) is None
            assert await _store(harness).find(_answer_id(recent)) is not None
