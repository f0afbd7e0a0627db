"""Commands: /start, /help, /reset, /files, /status, the command menu, the language."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from aiogram.methods import DeleteMyCommands, SetMyCommands
from aiogram.types import BotCommandScopeChat

from tests.agent.test_stream_dialects import answer_stream
from tests.fakes.accounts import ADMIN_ID
from tests.fakes.harness import Harness


def _chat_of(scope: object) -> int | str:
    assert isinstance(scope, BotCommandScopeChat)
    return scope.chat_id


def _last_text(harness: Harness) -> str:
    return str(harness.session.called("sendMessage")[-1].text)


class TestStartAndHelp:
    async def test_start_says_what_the_bot_does_and_counts_documents(
        self, harness: Harness
    ) -> None:
        await harness.feed(harness.updates.command("/start"))
        text = _last_text(harness)
        assert "отвечаю на вопросы по документам" in text
        assert "Документов в поиске: <b>8</b>" in text
        assert "/reindex" not in text
        assert harness.session.called("sendMessage")[-1].parse_mode == "HTML"

    async def test_start_for_an_admin_mentions_uploads(self, harness: Harness) -> None:
        await harness.feed(harness.updates.command("/start", user_id=ADMIN_ID))
        assert "/reindex" in _last_text(harness)

    async def test_help_in_english(self, harness: Harness) -> None:
        await harness.feed(harness.updates.command("/help", language_code="en-US"))
        text = _last_text(harness)
        assert "/reset — start a new conversation (or /new)" in text
        assert "Just type your question" in text

    async def test_ukrainian_users_read_english(self, harness: Harness) -> None:
        await harness.feed(harness.updates.command("/help", language_code="uk"))
        assert "start a new conversation" in _last_text(harness)

    async def test_unknown_command_shows_help(self, harness: Harness) -> None:
        await harness.feed(harness.updates.command("/weather"))
        assert not harness.llm.requests
        assert "/files" in _last_text(harness)

    async def test_a_path_with_words_is_a_question(self, harness: Harness) -> None:
        harness.llm.reply_text("В /usr/share лежат общие данные.")
        await harness.feed(harness.updates.message("/usr/share где лежит?"))
        assert harness.llm.requests[0]["messages"][-1]["content"] == "/usr/share где лежит?"

    async def test_unknown_command_with_words_is_a_question(self, harness: Harness) -> None:
        harness.llm.reply_text("Завтра солнечно.")
        await harness.feed(harness.updates.command("/weather завтра"))
        assert harness.llm.requests[0]["messages"][-1]["content"] == "/weather завтра"

    async def test_command_menu_is_registered_in_both_languages(self, harness: Harness) -> None:
        menus = [
            c
            for c in harness.startup_calls
            if isinstance(c, SetMyCommands) and not isinstance(c.scope, BotCommandScopeChat)
        ]
        by_language = {
            m.language_code: {c.command: c.description for c in m.commands} for m in menus
        }
        assert set(by_language) == {None, "ru", "be", "kk"}
        assert by_language["ru"]["reset"] == "Начать разговор заново"
        assert by_language["kk"] == by_language["ru"]
        assert by_language[None]["reset"] == "Start a new conversation"
        assert set(by_language["ru"]) == {
            "start",
            "help",
            "reset",
            "files",
            "status",
            "subscribe",
            "forget",
            "usage",
        }

    async def test_admins_get_reindex_in_their_menu(self, harness: Harness) -> None:
        menus = [c for c in harness.startup_calls if isinstance(c, SetMyCommands)]
        scoped = [m for m in menus if isinstance(m.scope, BotCommandScopeChat)]
        assert {(_chat_of(m.scope), m.language_code) for m in scoped} == {
            (ADMIN_ID, language) for language in (None, "ru", "be", "kk")
        }
        assert all("reindex" in {c.command for c in m.commands} for m in scoped)

    async def test_a_former_admin_loses_the_admin_menu(
        self, make_dispatcher: Any, tmp_path: Path
    ) -> None:
        (tmp_path / "data").mkdir()
        (tmp_path / "data" / "admin_menus.json").write_text(json.dumps([ADMIN_ID, 4040]))
        async with make_dispatcher() as harness:
            removed = [c for c in harness.startup_calls if isinstance(c, DeleteMyCommands)]
            assert {(_chat_of(c.scope), c.language_code) for c in removed} == {
                (4040, language) for language in (None, "ru", "be", "kk")
            }
        remembered = json.loads((tmp_path / "data" / "admin_menus.json").read_text())
        assert remembered == [ADMIN_ID]


class TestReset:
    async def test_next_question_carries_no_old_turns(self, harness: Harness) -> None:
        harness.llm.reply_text("Старый ответ про шарлотку.")
        harness.llm.reply_text("Новый ответ.")
        await harness.feed(harness.updates.message("первый вопрос про шарлотку"))
        await harness.feed(harness.updates.command("/reset"))
        assert "Начинаем новый разговор" in _last_text(harness)
        await harness.feed(harness.updates.message("второй вопрос"))

        roles = [m["role"] for m in harness.llm.requests[1]["messages"]]
        contents = [m.get("content") for m in harness.llm.requests[1]["messages"]]
        assert roles == ["system", "user"]
        assert contents[-1] == "второй вопрос"

    async def test_new_is_an_alias(self, harness: Harness) -> None:
        harness.llm.reply_text("Ответ.")
        harness.llm.reply_text("Ответ 2.")
        await harness.feed(harness.updates.message("вопрос"))
        await harness.feed(harness.updates.command("/new"))
        await harness.feed(harness.updates.message("другой вопрос"))
        assert [m["role"] for m in harness.llm.requests[1]["messages"]] == ["system", "user"]

    async def test_without_reset_history_is_kept(self, harness: Harness) -> None:
        harness.llm.reply_text("Ответ.")
        harness.llm.reply_text("Ответ 2.")
        await harness.feed(harness.updates.message("вопрос"))
        await harness.feed(harness.updates.message("другой вопрос"))
        contents = [m.get("content") for m in harness.llm.requests[1]["messages"]]
        assert "вопрос" in contents
        assert "Ответ." in contents


class TestFiles:
    async def test_lists_folders_and_files_without_hidden_ones(self, harness: Harness) -> None:
        await harness.feed(harness.updates.command("/files"))
        text = _last_text(harness)
        assert "Файлы в папке (8)" in text
        assert "📁 <b>документы/</b> (2)" in text
        assert "рецепт_шарлотки.txt" in text
        assert "📄 README.md" in text
        assert ".secret" not in text
        assert ".upload" not in text


class TestStatus:
    async def test_shows_model_context_index_and_last_question(self, harness: Harness) -> None:
        harness.llm.reply_tool_calls(("search_files", {"query": "шарлотка"}), usage=(900, 20))
        harness.llm.reply_text("Ответ.", usage=(1500, 30))
        await harness.feed(harness.updates.message("вопрос"))
        await harness.feed(harness.updates.command("/status"))

        text = _last_text(harness)
        assert f"Модель: <code>{harness.settings.model}</code>" in text
        assert "из 128\u00a0000 токенов" in text
        assert "Документов в поиске: 8" in text
        assert "раундов: 2, токенов: 2\u00a0400 (запрос) + 50 (ответ)" in text
        assert "sk-test" not in text
        assert "TEST_token" not in text

    async def test_tokens_the_bot_estimated_are_marked(self, harness: Harness) -> None:
        harness.llm.reply_raw(answer_stream("Ответ без счёта."), content_type="text/event-stream")
        await harness.feed(harness.updates.message("вопрос"))
        await harness.feed(harness.updates.command("/status"))
        text = _last_text(harness)
        assert "токенов: ≈" in text
        assert "(запрос) + ≈" in text
        assert "≈ — оценка: сервер модели не сообщил число токенов" in text

    async def test_before_any_question(self, harness: Harness) -> None:
        await harness.feed(harness.updates.command("/status", language_code="en"))
        text = _last_text(harness)
        assert "No questions in this conversation yet." in text
        assert "Searchable documents: 8" in text
        assert "of 128,000 tokens" in text
