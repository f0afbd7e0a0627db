"""Forum topics through the whole bot: real Dispatcher and Agent, the fake Bot API and model.

In a supergroup with topics the bot answers in the topic it was asked in, on every path that
sends (the status line, the answer, its buttons, a source file a button sends), each topic is
a conversation of its own, and a topic may have a scope of its own.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from aiogram.methods import SendMessage, TelegramMethod

from bot.telegram.texts.scope import RUSSIAN_SCOPE
from tests.bot.source_support import (
    CHARLOTTE,
    GROUP_ID,
    ask_reading,
    documents,
    in_topic,
    tap,
)
from tests.fakes.accounts import ADMIN_ID, BOT_USERNAME, USER_ID
from tests.fakes.harness import Harness
from tests.fakes.updates import mention_entity

TOPIC = 7
OTHER_TOPIC = 9


def _sends_to_the_group(harness: Harness) -> list[TelegramMethod[Any]]:
    """Every call that posts something new into the group (edits keep their message's
    place; a method with no `message_thread_id` field cannot choose one)."""
    return [
        call
        for call in harness.session.calls
        if getattr(call, "chat_id", None) == GROUP_ID and hasattr(call, "message_thread_id")
    ]


def _question(harness: Harness, text: str, topic: int, *, user_id: int = USER_ID) -> Any:
    full = f"@{BOT_USERNAME} {text}"
    return harness.updates.message(
        full,
        user_id=user_id,
        chat_id=GROUP_ID,
        chat_type="supergroup",
        entities=[mention_entity(full, f"@{BOT_USERNAME}")],
        **in_topic(topic),
    )


def _searched_paths(harness: Harness) -> set[str]:
    """The paths of every search result the model received."""
    found: set[str] = set()
    for request in harness.llm.requests:
        for message in request["messages"]:
            if message["role"] == "tool":
                result = json.loads(message["content"])
                found |= {r["path"] for r in result.get("results", [])}
    return found


class TestEverySendStaysInTheTopic:
    async def test_the_answer_its_buttons_and_a_tapped_source(self, make_dispatcher: Any) -> None:
        async with make_dispatcher() as harness:
            answered = await ask_reading(harness, CHARLOTTE, topic=TOPIC)
            await tap(harness, answered, answered.data[0])
            sent = _sends_to_the_group(harness)
            kinds = {type(call).__name__ for call in sent}
            assert {"SendMessage", "SendDocument"} <= kinds
            assert [c for c in sent if getattr(c, "message_thread_id", None) != TOPIC] == []
            (document,) = documents(harness)
            assert document.message_thread_id == TOPIC

    async def test_a_command_is_answered_in_its_topic(self, make_dispatcher: Any) -> None:
        async with make_dispatcher() as harness:
            update = harness.updates.command(
                "/help", chat_id=GROUP_ID, chat_type="supergroup", **in_topic(TOPIC)
            )
            await harness.feed(update)
            (reply,) = harness.session.called("sendMessage")
            assert reply.message_thread_id == TOPIC


class TestATopicIsAConversation:
    async def test_one_topics_question_is_not_in_anothers_history(
        self, make_dispatcher: Any
    ) -> None:
        async with make_dispatcher() as harness:
            harness.llm.reply_text("Про отпуск.")
            await harness.feed(_question(harness, "сколько дней отпуска", TOPIC))
            harness.llm.reply_text("Про сервер.")
            await harness.feed(_question(harness, "как зайти на сервер", OTHER_TOPIC))
            harness.llm.reply_text("Ещё про отпуск.")
            await harness.feed(_question(harness, "а перенести можно", TOPIC))
            asked = [
                [m["content"] for m in r["messages"] if m["role"] == "user"]
                for r in harness.llm.requests
            ]
            second, third = " ".join(map(str, asked[1])), " ".join(map(str, asked[2]))
            assert "отпуска" not in second
            assert "сервер" in second
            assert "сколько дней отпуска" in third
            assert "сервер" not in third
            replies = [c for c in harness.session.calls if isinstance(c, SendMessage)]
            assert {r.message_thread_id for r in replies} == {TOPIC, OTHER_TOPIC}


class TestATopicsOwnScope:
    async def test_the_file_gives_a_topic_its_folders(
        self, make_dispatcher: Any, tmp_path: Path
    ) -> None:
        scopes = tmp_path / "scopes.toml"
        scopes.write_text(f'{GROUP_ID} = ["документы"]\n"{GROUP_ID}/{TOPIC}" = ["hr"]\n')
        async with make_dispatcher(scopes_file=scopes) as harness:
            harness.llm.reply_tool_calls(("search_files", {"query": "отпуск"}))
            harness.llm.reply_text("Нашёл.")
            await harness.feed(_question(harness, "отпуск", TOPIC))
            in_hr = _searched_paths(harness)
            assert in_hr
            assert all(path.startswith("hr/") for path in in_hr)
            harness.llm.requests.clear()
            harness.llm.reply_tool_calls(("search_files", {"query": "шарлотка"}))
            harness.llm.reply_text("Нашёл.")
            await harness.feed(_question(harness, "шарлотка", OTHER_TOPIC))
            assert _searched_paths(harness) == {CHARLOTTE}

    async def test_scope_inside_a_topic_sets_that_topic_alone(self, make_dispatcher: Any) -> None:
        texts = RUSSIAN_SCOPE
        group = {"chat_id": GROUP_ID, "chat_type": "supergroup", "user_id": ADMIN_ID}
        async with make_dispatcher() as harness:
            await harness.feed(harness.updates.command("/scope hr", **group, **in_topic(TOPIC)))
            done = harness.session.called("sendMessage")[-1]
            assert done.text == texts.set_done.format(folders="<code>hr/</code>")
            assert done.message_thread_id == TOPIC
            await harness.feed(harness.updates.command("/scope", **group, **in_topic(TOPIC)))
            assert "<code>hr/</code>" in str(harness.session.called("sendMessage")[-1].text)
            await harness.feed(harness.updates.command("/scope", **group))
            assert texts.everything in str(harness.session.called("sendMessage")[-1].text)
            await harness.feed(harness.updates.command("/status", user_id=ADMIN_ID))
            status = str(harness.session.called("sendMessage")[-1].text)
            assert f"<code>{GROUP_ID}/{TOPIC}</code>: <code>hr/</code>" in status
