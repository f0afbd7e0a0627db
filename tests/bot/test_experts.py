""" "Ask an expert" through the real Dispatcher: the button under an unanswered or disliked
answer, the question sent once to the experts' chat (and its topic), the expert's reply
delivered to the asker, and saved as a document the next search finds, or refused."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from aiogram.methods import EditMessageText, SendMessage
from aiogram.types import InlineKeyboardMarkup, Update

from bot.documents.retention import Retention
from bot.storage.audit import AuditLog
from bot.storage.experts import ExpertRequests
from tests.bot.access_support import tuning
from tests.bot.button_support import put_buttons
from tests.bot.source_support import (
    CHARLOTTE,
    Answered,
    _track_sent,
    answers,
    ask_reading,
    last_answer,
    tap,
)
from tests.bot.test_privacy import _forget
from tests.fakes.accounts import ADMIN_ID, USER_ID, bot_user_json
from tests.fakes.clock import FakeClock
from tests.fakes.fixtures import DispatcherFactory
from tests.fakes.harness import Harness

EXPERTS = -100_900
TOPIC = 7
QUESTION = "сколько стоит кофе в офисе?"
PROMPT_ID = 7_100
FORWARD_ID = 7_200
NOTE_ID = 7_300
DELIVERED_ID = 7_350
REPLY_ID = 7_400
EXPERT_ANSWER = "Кофе в офисе бесплатный, <капсулы> у Марины."


@pytest.fixture
async def experts(make_dispatcher: DispatcherFactory) -> AsyncIterator[Harness]:
    """A dispatcher with an experts' group and its forum topic."""
    async with make_dispatcher(experts_chat_id=f"{EXPERTS}/{TOPIC}") as harness:
        yield harness


def _chat(chat_id: int) -> dict[str, Any]:
    if chat_id < 0:
        return {"id": chat_id, "type": "supergroup", "title": "Experts", "is_forum": True}
    return {"id": chat_id, "type": "private", "first_name": "User"}


def _bot_message(chat_id: int, message_id: int, call: SendMessage) -> dict[str, Any]:
    """A message the bot sent, as a tap or a reply carries it."""
    message: dict[str, Any] = {
        "message_id": message_id,
        "date": int(time.time()),
        "chat": _chat(chat_id),
        "from": bot_user_json(),
        "text": str(call.text),
    }
    if isinstance(call.reply_markup, InlineKeyboardMarkup):
        message["reply_markup"] = call.reply_markup.model_dump(mode="json", exclude_none=True)
    if call.message_thread_id is not None:
        message["message_thread_id"] = call.message_thread_id
        message["is_topic_message"] = True
    return message


def _next_message_id(harness: Harness, chat_id: int, message_id: int) -> None:
    """The next sendMessage gets `message_id` (in `chat_id`)."""
    harness.session.add_result(
        "sendMessage",
        {
            "message_id": message_id,
            "date": int(time.time()),
            "chat": _chat(chat_id),
            "from": bot_user_json(),
            "text": "…",
        },
    )


def _sent_to(harness: Harness, chat_id: int) -> list[SendMessage]:
    return [
        c
        for c in harness.session.calls
        if isinstance(c, SendMessage) and int(str(c.chat_id)) == chat_id
    ]


def _sent_with(harness: Harness, chat_id: int, words: str) -> SendMessage:
    found = [c for c in _sent_to(harness, chat_id) if words in str(c.text)]
    assert len(found) == 1, f"one message with {words!r} in chat {chat_id}: {found}"
    return found[0]


def _button(markup: Any, prefix: str) -> str:
    assert isinstance(markup, InlineKeyboardMarkup)
    found = [
        str(b.callback_data)
        for row in markup.inline_keyboard
        for b in row
        if str(b.callback_data).startswith(prefix)
    ]
    assert found, f"no {prefix} button"
    return found[0]


def _pop_up(harness: Harness) -> str:
    return str(answers(harness)[-1].text)


async def _unanswered(harness: Harness) -> Answered:
    """A question the documents have nothing for: the answer read no document."""
    harness.llm.reply_text("В документах об этом ничего нет.")
    sent = _track_sent(harness.session)
    await harness.feed(harness.updates.message(QUESTION))
    answered = last_answer(harness, sent)
    assert answered is not None
    return answered


async def _ask_expert(harness: Harness, answered: Answered, *, named: bool = True) -> SendMessage:
    """Tap "Ask an expert", then a choice about the name; the message the experts got."""
    _next_message_id(harness, USER_ID, PROMPT_ID)
    await tap(harness, answered, _button(answered.markup, "xp:"))
    prompt = _sent_with(harness, USER_ID, "Показать экспертам")
    choice = _button(prompt.reply_markup, "xpn:y:" if named else "xpn:n:")
    _next_message_id(harness, EXPERTS, FORWARD_ID)
    await tap(
        harness,
        Answered(
            _bot_message(USER_ID, PROMPT_ID, prompt), InlineKeyboardMarkup(inline_keyboard=[])
        ),
        choice,
    )
    (forward,) = _sent_to(harness, EXPERTS)
    return forward


def _reply(harness: Harness, forward: SendMessage, expert: int) -> Update:
    """An expert's reply in the topic to the bot's message with the question."""
    return harness.updates.wrap(
        "message",
        harness.updates.message_json(
            EXPERT_ANSWER,
            user_id=expert,
            chat_id=EXPERTS,
            chat_type="supergroup",
            message_id=REPLY_ID,
            message_thread_id=TOPIC,
            is_topic_message=True,
            reply_to_message=_bot_message(EXPERTS, FORWARD_ID, forward),
        ),
    )


async def _expert_replies(harness: Harness, forward: SendMessage, expert: int) -> SendMessage:
    """An expert replies; the bot's note under the reply (sent after the answer to the asker)."""
    _next_message_id(harness, USER_ID, DELIVERED_ID)
    _next_message_id(harness, EXPERTS, NOTE_ID)
    before = len(_sent_to(harness, EXPERTS))
    await harness.feed(_reply(harness, forward, expert))
    notes = _sent_to(harness, EXPERTS)[before:]
    assert len(notes) == 1, "one note under the reply"
    return notes[0]


async def _save(harness: Harness, note: SendMessage, user_id: int) -> None:
    data = _button(note.reply_markup, "xps:")
    message = _bot_message(EXPERTS, NOTE_ID, note)
    await harness.feed(harness.updates.callback(data, user_id=user_id, message=message))


async def _search(harness: Harness, query: str) -> dict[str, Any]:
    toolbox = harness.dp.workflow_data["toolbox"]
    return dict(json.loads((await toolbox.execute("search_files", {"query": query})).text))


def _faq_files(harness: Harness) -> list[Path]:
    folder = harness.settings.sandbox_dir / "FAQ"
    return sorted(folder.glob("*.md")) if folder.is_dir() else []


class TestTheButton:
    async def test_an_unanswered_answer_has_it_above_the_votes(self, experts: Harness) -> None:
        answered = await _unanswered(experts)
        rows = answered.markup.inline_keyboard
        assert [b.text for b in rows[-1]] == ["👍", "👎"]
        assert [b.text for b in rows[-2]] == ["🧑‍🏫 Спросить эксперта"]

    async def test_an_answer_from_the_documents_gets_it_with_a_thumbs_down(
        self, experts: Harness
    ) -> None:
        answered = await ask_reading(experts, CHARLOTTE)
        assert not any(
            str(b.callback_data).startswith("xp:")
            for r in answered.markup.inline_keyboard
            for b in r
        )
        await tap(experts, answered, answered.votes[1][1])
        edit = experts.session.called("editMessageReplyMarkup")[-1]
        assert _button(edit.reply_markup, "xp:").removeprefix("xp:") in answered.votes[1][1]

    async def test_off_without_experts_chat_id(self, harness: Harness) -> None:
        assert harness.settings.experts_chat is None
        answered = await _unanswered(harness)
        assert not any(
            str(b.callback_data).startswith("xp:")
            for r in answered.markup.inline_keyboard
            for b in r
        )
        await tap(harness, answered, answered.votes[1][1])
        edit = harness.session.called("editMessageReplyMarkup")[-1]
        labels = [b.text for row in edit.reply_markup.inline_keyboard for b in row]
        assert "🧑‍🏫 Спросить эксперта" not in labels
        made_while_on = "xp:" + answered.votes[1][1].removeprefix("fb:down:")
        message = answered.message
        await put_buttons(harness, USER_ID, message["message_id"], made_while_on)
        await tap(harness, answered, made_while_on)
        assert _pop_up(harness) == "Вопросы экспертам отключены."
        assert not [
            c
            for c in harness.session.calls
            if isinstance(c, SendMessage) and int(str(c.chat_id)) < 0
        ]


class TestSending:
    async def test_the_question_goes_to_the_topic_with_the_name_and_what_was_found(
        self, experts: Harness
    ) -> None:
        answered = await _unanswered(experts)
        forward = await _ask_expert(experts, answered)
        assert forward.message_thread_id == TOPIC
        text = str(forward.text)
        assert f"<blockquote>{QUESTION}</blockquote>" in text
        assert f"Спрашивает: User{USER_ID}" in text
        assert "Прочитаны файлы: ни одного" in text
        assert "В документах об этом ничего нет." in text
        told = experts.session.called("editMessageText")[-1]
        assert isinstance(told, EditMessageText) and told.message_id == PROMPT_ID
        assert "Вопрос отправлен экспертам" in str(told.text)

    async def test_anonymously_the_experts_do_not_see_who_asked(self, experts: Harness) -> None:
        answered = await _unanswered(experts)
        forward = await _ask_expert(experts, answered, named=False)
        assert "Спрашивает: анонимно" in str(forward.text)
        assert f"User{USER_ID}" not in str(forward.text)

    async def test_the_files_read_are_named(self, experts: Harness) -> None:
        answered = await ask_reading(experts, CHARLOTTE)
        await tap(experts, answered, answered.votes[1][1])
        edit = experts.session.called("editMessageReplyMarkup")[-1]
        answered = Answered(answered.message, edit.reply_markup)
        forward = await _ask_expert(experts, answered)
        assert "<blockquote>где это?</blockquote>" in str(forward.text)
        assert f"Прочитаны файлы: <code>{CHARLOTTE}</code>" in str(forward.text)

    async def test_it_is_sent_once(self, experts: Harness) -> None:
        answered = await _unanswered(experts)
        forward = await _ask_expert(experts, answered)
        await tap(experts, answered, _button(answered.markup, "xp:"))
        assert _pop_up(experts) == "Этот вопрос уже отправлен экспертам."
        prompt = _sent_with(experts, USER_ID, "Показать экспертам")
        choice = _button(prompt.reply_markup, "xpn:n:")
        shown = Answered(
            _bot_message(USER_ID, PROMPT_ID, prompt), InlineKeyboardMarkup(inline_keyboard=[])
        )
        await tap(experts, shown, choice)
        assert _pop_up(experts) == "Этот вопрос уже отправлен экспертам."
        assert _sent_to(experts, EXPERTS) == [forward]

    async def test_only_the_asker_may_send_it(self, experts: Harness) -> None:
        answered = await _unanswered(experts)
        await tap(experts, answered, _button(answered.markup, "xp:"), user_id=ADMIN_ID)
        assert "только тот, кто его задал" in _pop_up(experts)
        assert not _sent_to(experts, EXPERTS)


class TestTheExpertsReply:
    async def test_it_reaches_the_asker_and_is_saved_as_a_document_found_by_search(
        self, experts: Harness
    ) -> None:
        answered = await _unanswered(experts)
        forward = await _ask_expert(experts, answered)
        note = await _expert_replies(experts, forward, ADMIN_ID)
        delivered = _sent_with(experts, USER_ID, "Ответ эксперта")
        assert "Кофе в офисе бесплатный, &lt;капсулы&gt; у Марины." in str(delivered.text)
        assert f"<blockquote>{QUESTION}</blockquote>" in str(delivered.text)
        assert delivered.reply_parameters is not None
        assert delivered.reply_parameters.message_id == answered.message["message_id"]
        assert note.message_thread_id == TOPIC
        assert "Отправлено спросившему" in str(note.text)
        assert note.reply_parameters is not None
        assert note.reply_parameters.message_id == REPLY_ID

        await _save(experts, note, ADMIN_ID)
        (saved,) = _faq_files(experts)
        assert saved.name == "сколько стоит кофе в офисе.md"
        text = saved.read_text(encoding="utf-8")
        assert QUESTION in text and EXPERT_ANSWER in text
        assert f"Ответил(а) User{ADMIN_ID}" in text
        assert f"Спросил(а) User{USER_ID}" in text
        found = await _search(experts, "капсулы Марины")
        assert "FAQ/сколько стоит кофе в офисе.md" in json.dumps(found, ensure_ascii=False)
        audit: AuditLog = experts.dp.workflow_data["audit"]
        (entry,) = [e for e in await audit.recent() if e.action == "upload"]
        assert (entry.subject, entry.actor_id) == ("FAQ/сколько стоит кофе в офисе.md", ADMIN_ID)
        shown = experts.session.called("editMessageText")[-1]
        assert "FAQ/сколько стоит кофе в офисе.md" in shown.text

        await _save(experts, note, ADMIN_ID)
        assert "Уже сохранено как FAQ/сколько стоит кофе в офисе.md" in _pop_up(experts)
        assert len(_faq_files(experts)) == 1

    async def test_an_anonymous_asker_is_not_named_in_the_document(self, experts: Harness) -> None:
        answered = await _unanswered(experts)
        forward = await _ask_expert(experts, answered, named=False)
        note = await _expert_replies(experts, forward, ADMIN_ID)
        await _save(experts, note, ADMIN_ID)
        (saved,) = _faq_files(experts)
        text = saved.read_text(encoding="utf-8")
        assert "Спросил" not in text and f"User{USER_ID}" not in text

    async def test_an_expert_who_is_not_an_admin_may_not_save(self, experts: Harness) -> None:
        answered = await _unanswered(experts)
        forward = await _ask_expert(experts, answered)
        note = await _expert_replies(experts, forward, USER_ID)
        assert _sent_with(experts, USER_ID, "Ответ эксперта")
        await _save(experts, note, USER_ID)
        assert "может только администратор" in _pop_up(experts)
        assert answers(experts)[-1].show_alert
        assert _faq_files(experts) == []

    async def test_an_admin_whose_scope_leaves_the_folder_out_may_not_save(
        self, make_dispatcher: DispatcherFactory, tmp_path: Path
    ) -> None:
        scopes = tmp_path / "scopes.toml"
        scopes.write_text(f'{ADMIN_ID} = ["документы"]\n', encoding="utf-8")
        async with make_dispatcher(experts_chat_id=str(EXPERTS), scopes_file=scopes) as harness:
            answered = await _unanswered(harness)
            forward = await _ask_expert(harness, answered)
            assert forward.message_thread_id is None
            note = await _expert_replies(harness, forward, ADMIN_ID)
            await _save(harness, note, ADMIN_ID)
            assert "Папка FAQ вне папок, которые вам доступны" in _pop_up(harness)
            assert _faq_files(harness) == []


class TestKeptLikeTheHistory:
    async def test_forget_deletes_the_request_so_a_later_reply_goes_nowhere(
        self, experts: Harness
    ) -> None:
        answered = await _unanswered(experts)
        forward = await _ask_expert(experts, answered)
        store: ExpertRequests = experts.dp.workflow_data["experts"]
        request_id = _button(answered.markup, "xp:").removeprefix("xp:")
        assert await store.find(request_id) is not None
        await _forget(experts)
        assert await store.find(request_id) is None
        before = len(_sent_to(experts, USER_ID))
        experts.llm.reply_text("Отвечаю как на вопрос.")
        await experts.feed(_reply(experts, forward, ADMIN_ID))
        assert len(_sent_to(experts, USER_ID)) == before, "nothing reaches the asker"
        assert not [c for c in _sent_to(experts, EXPERTS) if "Отправлено" in str(c.text)]

    async def test_the_sweep_deletes_requests_older_than_history_days(
        self, make_dispatcher: DispatcherFactory
    ) -> None:
        clock = FakeClock(time.time())
        async with make_dispatcher(
            tuning=tuning(clock), history_days=3, experts_chat_id=str(EXPERTS)
        ) as harness:
            answered = await _unanswered(harness)
            await _ask_expert(harness, answered)
            store: ExpertRequests = harness.dp.workflow_data["experts"]
            request_id = _button(answered.markup, "xp:").removeprefix("xp:")
            clock.advance(2 * 86400)
            retention: Retention = harness.dp.workflow_data["upkeep"].retention
            await retention.sweep()
            assert await store.find(request_id) is not None
            clock.advance(2 * 86400)
            await retention.sweep()
            assert await store.find(request_id) is None
