"""Who gets answered: the access list, strangers, and group-chat addressing."""

from __future__ import annotations

from typing import Any

from aiogram.methods import SendMessage

from tests.fakes.accounts import ADMIN_ID, BOT_USERNAME, STRANGER_ID, bot_user_json
from tests.fakes.harness import Harness
from tests.fakes.updates import mention_entity

GROUP_ID = -100_555


def _sends(harness: Harness, chat_id: int | None = None) -> list[SendMessage]:
    sent = harness.session.called("sendMessage")
    return [m for m in sent if chat_id is None or m.chat_id == chat_id]


def _group_message(harness: Harness, text: str, **extra: Any) -> Any:
    return harness.updates.message(text, chat_id=GROUP_ID, chat_type="supergroup", **extra)


class TestStrangers:
    async def test_stranger_gets_their_id_and_nothing_from_the_files(
        self, harness: Harness
    ) -> None:
        await harness.feed(harness.updates.message("рецепт шарлотки", user_id=STRANGER_ID))
        assert not harness.llm.requests
        (reply,) = _sends(harness, STRANGER_ID)
        assert f"<code>{STRANGER_ID}</code>" in reply.text
        assert "попросил администраторов" in reply.text
        assert "сахар" not in reply.text
        (request,) = _sends(harness, ADMIN_ID)
        assert "сахар" not in request.text

    async def test_stranger_commands_and_documents_are_refused_too(self, harness: Harness) -> None:
        await harness.feed(harness.updates.command("/files", user_id=STRANGER_ID))
        await harness.feed(harness.updates.document("a.txt", user_id=STRANGER_ID, caption="docs"))
        texts = [str(m.text) for m in _sends(harness, STRANGER_ID)]
        assert len(texts) == 1, "one notice per minute, not one per message"
        assert str(STRANGER_ID) in texts[0]
        assert not harness.session.called("getFile")

    async def test_stranger_edits_are_dropped_quietly(self, harness: Harness) -> None:
        await harness.feed(harness.updates.edited("вопрос", user_id=STRANGER_ID))
        assert not harness.session.calls

    async def test_stranger_in_a_group_is_refused_only_when_addressing_the_bot(
        self, harness: Harness
    ) -> None:
        await harness.feed(_group_message(harness, "просто болтаем", user_id=STRANGER_ID))
        assert not harness.session.calls
        text = f"@{BOT_USERNAME} где договор?"
        await harness.feed(
            _group_message(
                harness,
                text,
                user_id=STRANGER_ID,
                entities=[mention_entity(text, f"@{BOT_USERNAME}")],
            )
        )
        assert str(STRANGER_ID) in str(_sends(harness)[0].text)

    async def test_allow_all_lets_anyone_ask(self, make_dispatcher: Any) -> None:
        async with make_dispatcher(allow_all=True) as harness:
            harness.llm.reply_text("Ответ.")
            await harness.feed(harness.updates.message("вопрос", user_id=STRANGER_ID))
            assert harness.session.sent_texts()[-1] == "Ответ."


class TestGroups:
    async def test_message_without_mention_is_ignored(self, harness: Harness) -> None:
        await harness.feed(_group_message(harness, "кто-нибудь знает рецепт шарлотки?"))
        assert not harness.llm.requests
        assert not harness.session.calls

    async def test_mention_is_answered_and_stripped(self, harness: Harness) -> None:
        harness.llm.reply_text("Стакан сахара.")
        text = f"@{BOT_USERNAME.upper()} сколько сахара в шарлотке?"
        entities = [mention_entity(text, f"@{BOT_USERNAME.upper()}")]
        await harness.feed(_group_message(harness, text, entities=entities))

        question = harness.llm.requests[0]["messages"][-1]["content"]
        assert question == "сколько сахара в шарлотке?"
        status = _sends(harness)[0]
        assert status.reply_parameters is not None
        assert harness.session.called("editMessageText")[-1].text == "Стакан сахара."

    async def test_mention_of_another_bot_is_ignored(self, harness: Harness) -> None:
        text = "@other_bot сколько сахара?"
        await harness.feed(
            _group_message(harness, text, entities=[mention_entity(text, "@other_bot")])
        )
        assert not harness.session.calls

    async def test_reply_to_the_bot_is_answered(self, harness: Harness) -> None:
        harness.llm.reply_text("Да.")
        replied = {
            "message_id": 7,
            "date": 1,
            "chat": {"id": GROUP_ID, "type": "supergroup", "title": "Team"},
            "from": bot_user_json(),
            "text": "Прошлый ответ",
        }
        await harness.feed(_group_message(harness, "а подробнее?", reply_to_message=replied))
        # In a group the bot's message may belong to another member's conversation, which
        # this one never saw, so it is quoted.
        content = harness.llm.requests[0]["messages"][-1]["content"]
        assert content.endswith("\n\nа подробнее?")
        assert "> Прошлый ответ" in content

    async def test_reply_to_someone_else_quotes_their_text(self, harness: Harness) -> None:
        harness.llm.reply_text("Да.")
        replied = {
            "message_id": 8,
            "date": 1,
            "chat": {"id": GROUP_ID, "type": "supergroup", "title": "Team"},
            "from": {"id": 4242, "is_bot": False, "first_name": "Colleague"},
            "text": "Отпуск переносится на август\n" + "очень " * 500,
        }
        text = f"@{BOT_USERNAME} это правда?"
        await harness.feed(
            _group_message(
                harness,
                text,
                entities=[mention_entity(text, f"@{BOT_USERNAME}")],
                reply_to_message=replied,
            )
        )
        content = harness.llm.requests[0]["messages"][-1]["content"]
        assert "> Отпуск переносится на август" in content
        assert content.endswith("это правда?")
        assert len(content) < 1700

    async def test_a_selected_quote_wins_over_the_whole_message(self, harness: Harness) -> None:
        harness.llm.reply_text("Да.")
        replied = {
            "message_id": 9,
            "date": 1,
            "chat": {"id": GROUP_ID, "type": "supergroup", "title": "Team"},
            "from": {"id": 4242, "is_bot": False, "first_name": "Colleague"},
            "text": "Первое. Второе важное.",
        }
        text = f"@{BOT_USERNAME} а это?"
        await harness.feed(
            _group_message(
                harness,
                text,
                entities=[mention_entity(text, f"@{BOT_USERNAME}")],
                reply_to_message=replied,
                quote={"text": "Второе важное.", "position": 8},
            )
        )
        content = harness.llm.requests[0]["messages"][-1]["content"]
        assert "> Второе важное." in content
        assert "Первое" not in content

    async def test_bare_unknown_command_in_a_group_is_ignored(self, harness: Harness) -> None:
        await harness.feed(
            harness.updates.command("/weather", chat_id=GROUP_ID, chat_type="supergroup")
        )
        assert not harness.session.calls
        assert not harness.llm.requests

    async def test_unknown_command_addressed_to_the_bot_gets_help(self, harness: Harness) -> None:
        await harness.feed(
            harness.updates.command(
                f"/weather@{BOT_USERNAME}", chat_id=GROUP_ID, chat_type="supergroup"
            )
        )
        assert "/files" in str(_sends(harness)[-1].text)

    async def test_group_members_keep_separate_conversations(self, harness: Harness) -> None:
        harness.llm.reply_text("Первый.")
        harness.llm.reply_text("Второй.")
        first = f"@{BOT_USERNAME} вопрос первого"
        second = f"@{BOT_USERNAME} вопрос второго"
        await harness.feed(
            _group_message(harness, first, entities=[mention_entity(first, f"@{BOT_USERNAME}")])
        )
        await harness.feed(
            _group_message(
                harness,
                second,
                user_id=ADMIN_ID,
                entities=[mention_entity(second, f"@{BOT_USERNAME}")],
            )
        )
        contents = [m.get("content") for m in harness.llm.requests[1]["messages"]]
        assert "вопрос первого" not in contents
        assert "Первый." not in contents

    async def test_start_in_a_group_explains_privacy_mode(self, harness: Harness) -> None:
        await harness.feed(
            harness.updates.command(
                f"/start@{BOT_USERNAME}", chat_id=GROUP_ID, chat_type="supergroup"
            )
        )
        (reply,) = _sends(harness)
        assert "режим приватности" in reply.text
        assert "\n" not in reply.text

    async def test_command_for_another_bot_is_ignored(self, harness: Harness) -> None:
        await harness.feed(
            harness.updates.command("/start@other_bot", chat_id=GROUP_ID, chat_type="supergroup")
        )
        assert not harness.session.calls


class TestGroupLimits:
    async def test_outside_allowed_chats_a_mention_gets_one_refusal(
        self, make_dispatcher: Any
    ) -> None:
        async with make_dispatcher(allowed_chat_ids=frozenset({-100_777})) as harness:
            text = f"@{BOT_USERNAME} где рецепт?"
            for _ in range(2):
                await harness.feed(
                    _group_message(
                        harness, text, entities=[mention_entity(text, f"@{BOT_USERNAME}")]
                    )
                )
            await harness.feed(_group_message(harness, "просто болтаем"))
            sent = _sends(harness)
            assert len(sent) == 1
            assert "В этой группе я не отвечаю" in str(sent[0].text)
            assert not harness.llm.requests

    async def test_allowed_chat_is_answered(self, make_dispatcher: Any) -> None:
        async with make_dispatcher(allowed_chat_ids=frozenset({GROUP_ID})) as harness:
            harness.llm.reply_text("Вот.")
            text = f"@{BOT_USERNAME} где рецепт?"
            await harness.feed(
                _group_message(harness, text, entities=[mention_entity(text, f"@{BOT_USERNAME}")])
            )
            assert harness.llm.requests

    async def test_allow_all_keeps_the_group_list(self, make_dispatcher: Any) -> None:
        listed = -100_777
        async with make_dispatcher(
            allow_all=True, allowed_chat_ids=frozenset({listed})
        ) as harness:
            harness.llm.reply_text("Вот.")
            text = f"@{BOT_USERNAME} где рецепт?"
            mention = [mention_entity(text, f"@{BOT_USERNAME}")]
            await harness.feed(
                _group_message(harness, text, user_id=STRANGER_ID, entities=mention)
            )
            assert not harness.llm.requests
            (notice,) = _sends(harness, GROUP_ID)
            assert "В этой группе я не отвечаю" in str(notice.text)

            await harness.feed(
                harness.updates.message(
                    text,
                    chat_id=listed,
                    chat_type="supergroup",
                    user_id=STRANGER_ID,
                    entities=mention,
                )
            )
            assert len(harness.llm.requests) == 1
            assert "Вот." in harness.session.sent_texts()

    async def test_anonymous_admin_is_asked_to_write_as_themselves(self, harness: Harness) -> None:
        text = f"@{BOT_USERNAME} где рецепт?"
        for _ in range(2):
            message = harness.updates.message_json(
                text,
                chat_id=GROUP_ID,
                chat_type="supergroup",
                entities=[mention_entity(text, f"@{BOT_USERNAME}")],
                sender_chat={"id": GROUP_ID, "type": "supergroup", "title": "Team"},
            )
            message["from"] = {"id": 1087968824, "is_bot": True, "first_name": "Group"}
            await harness.feed(harness.updates.wrap("message", message))
        sent = _sends(harness)
        assert len(sent) == 1
        assert "write from your own account" in str(sent[0].text)
        assert not harness.llm.requests
