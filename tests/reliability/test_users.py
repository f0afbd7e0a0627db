"""What users send: odd sizes and shapes, odd commands, floods and uploads.

Each case states the behaviour a user should see: an answer, one clear refusal or hint, or
silence where the bot was not addressed; never a crash, never two replies to one message.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest

from bot.telegram.texts import RUSSIAN
from tests.fakes.accounts import ADMIN_ID, BOT_TOKEN, STRANGER_ID, USER_ID
from tests.fakes.fake_llm import Reply
from tests.fakes.harness import Harness
from tests.reliability.conftest import bot_log
from tests.reliability.flaky_bot_api import FlakyBotApi
from tests.reliability.polling import http_bot
from tests.reliability.transcript import Transcript


def uploads_left(root: Path) -> list[Path]:
    return [p for p in root.rglob(".upload-*") if p.name != ".upload-1a2b.part"]


class TestUploadsOverHttp:
    async def test_a_failed_download_is_explained_without_the_file_url(
        self, harness: Harness, bot_api: FlakyBotApi, caplog: pytest.LogCaptureFixture
    ) -> None:
        """The fake API answers getFile but serves no file: the download gets HTTP 404."""
        bot = http_bot(bot_api.base_url)
        try:
            update = harness.updates.document("a.txt", file_id="doc7", user_id=ADMIN_ID)
            with caplog.at_level(logging.DEBUG):
                await harness.dp.feed_update(bot, update)
        finally:
            await bot.session.close()
        (reply,) = bot_api.texts_to(ADMIN_ID)
        assert reply == RUSSIAN.upload_download_failed
        logged = bot_log(caplog.records)
        assert "HTTP 404" in logged
        assert BOT_TOKEN not in reply + logged
        assert "/file/bot" not in reply + logged
        assert not uploads_left(harness.settings.sandbox_dir)
        assert not (harness.settings.sandbox_dir / "a.txt").exists()


def only_reply(transcript: Transcript) -> str:
    (reply,) = transcript.replies(USER_ID)
    return reply


def question_sent(harness: Harness) -> str:
    (request,) = harness.llm.requests
    return str(request["messages"][-1]["content"])


LONG_QUESTION = ("Где найти договор аренды офиса? " * 200)[:4096]
EMOJI_QUESTION = "Вопрос про яблоки " + "🍎" * 2039  # 4096 UTF-16 units


class TestMessageShapes:
    @pytest.mark.parametrize(
        "text",
        [LONG_QUESTION, EMOJI_QUESTION, "\u202eгде договор аренды?", "где\u200bдоговор?"],
        ids=["4096-chars", "4096-utf16-units", "rtl-override", "zero-width-inside"],
    )
    async def test_reaches_the_model_intact_and_gets_one_answer(
        self, harness: Harness, transcript: Transcript, text: str
    ) -> None:
        harness.llm.reply_text("Ответ.")
        await harness.feed(harness.updates.message(text))
        assert question_sent(harness) == text.strip()
        assert only_reply(transcript) == "Ответ."

    @pytest.mark.parametrize(
        "text",
        ["   \n\t  ", "\u200b\u200c\u2060", "👨\u200d👩\u200d👧 🏳️\u200d🌈", "?!… — ¯\\_(°_°)_/¯"],
        ids=["whitespace", "zero-width-only", "zwj-emoji", "punctuation"],
    )
    async def test_no_words_gets_a_hint_and_no_model_call(
        self, harness: Harness, transcript: Transcript, text: str
    ) -> None:
        await harness.feed(harness.updates.message(text))
        assert not harness.llm.requests
        assert only_reply(transcript) == RUSSIAN.empty_question

    async def test_empty_text_is_left_alone(self, harness: Harness) -> None:
        await harness.feed(harness.updates.message(""))
        assert not harness.llm.requests
        assert not harness.session.calls

    async def test_markup_in_the_question_and_the_answer_is_text(
        self, harness: Harness, transcript: Transcript
    ) -> None:
        question = "<b>жирный</b> & <script>alert(1)</script> где договор?"
        harness.llm.reply_text("Тег <script> и знак & остаются текстом.")
        await harness.feed(harness.updates.message(question))
        assert question_sent(harness) == question
        assert only_reply(transcript) == "Тег &lt;script&gt; и знак &amp; остаются текстом."

    @pytest.mark.parametrize(
        "origin",
        [
            {
                "type": "channel",
                "date": 1,
                "message_id": 9,
                "chat": {"id": -1001, "type": "channel", "title": "C"},
            },
            {"type": "hidden_user", "date": 1, "sender_user_name": "Аноним"},
            {
                "type": "chat",
                "date": 1,
                "sender_chat": {"id": -1002, "type": "group", "title": "G"},
            },
        ],
        ids=["from-a-channel", "from-a-hidden-user", "from-a-group"],
    )
    async def test_forwarded_text_is_a_question(
        self, harness: Harness, transcript: Transcript, origin: dict[str, Any]
    ) -> None:
        harness.llm.reply_text("Ответ на пересланное.")
        await harness.feed(harness.updates.message("Сколько дней отпуска?", forward_origin=origin))
        assert question_sent(harness) == "Сколько дней отпуска?"
        assert only_reply(transcript) == "Ответ на пересланное."

    async def test_an_edit_during_the_answer_changes_nothing(
        self, harness: Harness, transcript: Transcript
    ) -> None:
        release = asyncio.Event()

        async def held(_: dict[str, Any]) -> Reply | None:
            await release.wait()
            return None

        harness.llm.responder = held
        harness.llm.reply_text("Ответ на исходный вопрос.")
        original = harness.updates.message_json("исходный вопрос")
        asking = asyncio.create_task(harness.feed(harness.updates.wrap("message", original)))
        await harness.llm.wait_for_requests(1)
        edited = {**original, "text": "исправленный вопрос", "edit_date": original["date"] + 5}
        await harness.feed(harness.updates.wrap("edited_message", edited))
        release.set()
        await asyncio.wait_for(asking, 10)
        assert len(harness.llm.requests) == 1
        assert only_reply(transcript) == "Ответ на исходный вопрос."

    async def test_messages_from_bots_are_dropped(self, harness: Harness) -> None:
        message = harness.updates.message_json("вопрос от бота")
        message["from"]["is_bot"] = True
        await harness.feed(harness.updates.wrap("message", message))
        assert not harness.llm.requests
        assert not harness.session.calls


HELP = RUSSIAN.help(admin=False)


class TestOddCommands:
    @pytest.mark.parametrize(
        ("text", "expected"),
        [
            ("/reset now", RUSSIAN.reset_done),
            ("/new please, right now", RUSSIAN.reset_done),
            ("/start@other_bot", HELP),
            ("/start some-deep-link-payload", RUSSIAN.about),
            ("/start@docs_test_bot", RUSSIAN.about),
            ("/help@DOCS_TEST_BOT extra words", HELP),
            ("/files ../../etc", RUSSIAN.files_header.format(total=8)),
            ("/files /", RUSSIAN.files_header.format(total=8)),
            ("/status <script>junk</script> ../../ %00", RUSSIAN.status_title),
            ("/", RUSSIAN.empty_question),
            ("/no_such_command", HELP),
            ("/reindex", RUSSIAN.admin_only),
        ],
        ids=[
            "reset-now",
            "new-with-words",
            "start-for-another-bot",
            "start-with-payload",
            "start-for-this-bot",
            "help-mention-in-capitals",
            "files-traversal",
            "files-root",
            "status-junk",
            "slash-only",
            "unknown-command",
            "reindex-by-non-admin",
        ],
    )
    async def test_one_reply_no_model_call(
        self, harness: Harness, transcript: Transcript, text: str, expected: str
    ) -> None:
        await harness.feed(harness.updates.command(text))
        assert not harness.llm.requests
        reply = only_reply(transcript)
        assert reply.startswith(expected) or reply == expected
        assert "passwd" not in reply
        assert str(harness.settings.sandbox_dir) not in reply

    @pytest.mark.parametrize(
        "text",
        ["/no_such_command где договор?", "/usr/share где лежит?", "/" + "x" * 4000],
        ids=["unknown-command-with-words", "path-like", "4001-chars"],
    )
    async def test_a_slash_text_that_is_no_bare_command_is_a_question(
        self, harness: Harness, transcript: Transcript, text: str
    ) -> None:
        harness.llm.reply_text("Ответ.")
        await harness.feed(harness.updates.message(text))
        assert question_sent(harness) == text
        assert only_reply(transcript) == "Ответ."


class TestFlood:
    async def test_fifty_messages_in_a_second_with_the_default_settings(
        self, harness: Harness, transcript: Transcript
    ) -> None:
        """The per-chat queue takes the first few, the rest hear once that the bot is busy;
        refused messages do not use up the hourly limit, so the user may ask again later."""
        taken = 10  # the running question and the nine that may wait behind it
        for number in range(taken):
            harness.llm.reply_text(f"Ответ {number}.")
        flood = [harness.updates.message(f"вопрос {n}") for n in range(50)]
        await asyncio.wait_for(asyncio.gather(*(harness.feed(u) for u in flood)), 60)

        asked = [r["messages"][-1]["content"] for r in harness.llm.requests]
        assert asked == [f"вопрос {n}" for n in range(taken)], "in order, none twice"
        replies = transcript.replies(USER_ID)
        assert [r for r in replies if r.startswith("Ответ ")] == [
            f"Ответ {n}." for n in range(taken)
        ]
        assert [r for r in replies if not r.startswith("Ответ ")] == [RUSSIAN.chat_busy]

        harness.llm.reply_text("Ответ после потока.")
        await harness.feed(harness.updates.message("спокойный вопрос"))
        assert transcript.replies(USER_ID)[-1] == "Ответ после потока."

    async def test_another_user_is_not_slowed_by_the_flood(
        self, make_dispatcher: Any, transcript: Transcript
    ) -> None:
        other = USER_ID + 1
        async with make_dispatcher(
            allowed_user_ids=frozenset({USER_ID, other}), rate_limit_per_hour=3
        ) as harness:
            harness.llm.reply_text("Ответ.")
            harness.llm.reply_text("Ответ.")
            harness.llm.reply_text("Ответ.")
            harness.llm.reply_text("Ответ соседу.")
            flood = [harness.updates.message(f"вопрос {n}") for n in range(50)]
            await asyncio.wait_for(asyncio.gather(*(harness.feed(u) for u in flood)), 60)
            await harness.feed(harness.updates.message("мой вопрос", user_id=other))
            assert transcript.replies(other) == ["Ответ соседу."]


class TestUploadsByWhom:
    async def test_admin_document_in_a_group_is_not_saved(self, harness: Harness) -> None:
        harness.session.add_file("documents/g1", b"group file")
        update = harness.updates.document(
            "group.txt", file_id="g1", user_id=ADMIN_ID, chat_id=-100_777, chat_type="supergroup"
        )
        await harness.feed(update)
        assert not harness.session.called("getFile")
        assert not (harness.settings.sandbox_dir / "group.txt").exists()

    async def test_stranger_upload_with_a_folder_caption_is_refused(
        self, harness: Harness
    ) -> None:
        await harness.feed(
            harness.updates.document("x.txt", file_id="s1", user_id=STRANGER_ID, caption="hr")
        )
        assert not harness.session.called("getFile")
        assert not harness.llm.requests
        (reply,) = [m for m in harness.session.called("sendMessage") if m.chat_id == STRANGER_ID]
        assert str(STRANGER_ID) in str(reply.text)

    async def test_oversized_upload_from_a_non_admin_is_not_downloaded(
        self, harness: Harness, transcript: Transcript
    ) -> None:
        await harness.feed(
            harness.updates.document("huge.pdf", file_size=500 * 1024 * 1024, user_id=USER_ID)
        )
        assert not harness.session.called("getFile")
        assert only_reply(transcript) == RUSSIAN.upload_refused
