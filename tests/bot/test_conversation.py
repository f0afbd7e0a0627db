"""Questions end to end: real Dispatcher, real Agent over HTTP, real Toolbox, fake Bot API."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from aiogram.methods import EditMessageText, SendMessage

from bot.telegram.render import utf16_len
from bot.telegram.tuning import Tuning
from tests.fakes.fake_llm import Reply
from tests.fakes.fake_telegram import FakeTelegramSession
from tests.fakes.harness import Harness

CHARLOTTE_PATH = "документы/рецепт_шарлотки.txt"


def _edits(session: FakeTelegramSession) -> list[EditMessageText]:
    return session.called("editMessageText")


def _sends(session: FakeTelegramSession) -> list[SendMessage]:
    return session.called("sendMessage")


def _tool_results(request: dict[str, Any]) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]


def _edited(session: FakeTelegramSession, text: str) -> bool:
    return any(text in str(e.text) for e in _edits(session))


def _hold_tools(harness: Harness, until: dict[str, Callable[[FakeTelegramSession], bool]]) -> None:
    """Hold each named tool until the fake Telegram has seen something.

    The bot promises that a running tool's status line is shown while it runs; a tool that has
    already finished may be replaced by the next line before its edit (edits are paced).
    """
    toolbox = harness.dp.workflow_data["toolbox"]
    execute = toolbox.execute

    async def held(name: str, arguments: Any, **options: Any) -> Any:
        condition = until.get(name)
        if condition is not None:
            await harness.session.wait_for(condition)
        return await execute(name, arguments, **options)

    toolbox.execute = held


class TestCharlotteChain:
    async def test_search_read_answer_with_progress_and_sources(
        self, make_dispatcher: Any
    ) -> None:
        async with make_dispatcher(stream="off") as harness:  # the status becomes the answer
            llm, session = harness.llm, harness.session
            llm.reply_tool_calls(("search_files", {"query": "шарлотка"}))
            llm.reply_tool_calls(("read_file", {"path": CHARLOTTE_PATH}))
            llm.reply_text("Для шарлотки нужен **1 стакан сахара**.")
            _hold_tools(
                harness,
                {
                    "search_files": lambda s: any(
                        "Ищу «шарлотка»" in str(e.text) for e in _edits(s)
                    ),
                    "read_file": lambda s: any(
                        f"Читаю {CHARLOTTE_PATH}" in str(e.text) for e in _edits(s)
                    ),
                },
            )

            await harness.feed(harness.updates.message("Сколько сахара нужно для шарлотки?"))

            assert len(llm.requests) == 3
            assert "рецепт_шарлотки.txt" in _tool_results(llm.requests[1])[0]
            assert "сахар - 1 стакан" in _tool_results(llm.requests[2])[-1]
            status = _sends(session)[0]
            assert status.text == "🤔 Думаю…"
            final = _edits(session)[-1]
            assert final.parse_mode == "HTML"
            assert "<b>1 стакан сахара</b>" in str(final.text)
            assert f"📄 Источники: <code>{CHARLOTTE_PATH}</code>" in str(final.text)
            assert len(_sends(session)) == 1, "the status message became the answer"
            assert {e.message_id for e in _edits(session)} == {100}
            methods = [c.__api_method__ for c in session.calls]
            assert "sendChatAction" in methods
            assert (
                max(i for i, m in enumerate(methods) if m == "sendChatAction") < len(methods) - 1
            )

    async def test_english_user_gets_english_texts(self, harness: Harness) -> None:
        harness.llm.reply_tool_calls(("read_file", {"path": CHARLOTTE_PATH}))
        harness.llm.reply_text("One glass of sugar.")
        await harness.feed(harness.updates.message("How much sugar?", language_code="en"))
        session = harness.session
        assert _sends(session)[0].text == "🤔 Thinking…"
        assert f"📄 Sources: <code>{CHARLOTTE_PATH}</code>" in session.sent_texts()[-1]


class TestTyping:
    async def test_typing_is_renewed_while_working_and_stopped_after(
        self, make_dispatcher: Any
    ) -> None:
        tuning = Tuning(edit_interval_s=0.0, typing_interval_s=0.01)
        async with make_dispatcher(tuning=tuning) as harness:
            session = harness.session

            async def responder(_: dict[str, Any]) -> Reply | None:
                await session.wait_for(lambda s: len(s.called("sendChatAction")) >= 3)
                return None

            harness.llm.responder = responder
            harness.llm.reply_text("Ответ.")
            await harness.feed(harness.updates.message("вопрос"))
            running = {t.get_coro().__qualname__ for t in asyncio.all_tasks()}  # type: ignore[union-attr]
            assert not any(name.startswith("Progress.") for name in running)
            assert session.sent_texts()[-1] == "Ответ."


class TestLongAnswers:
    async def test_split_under_limit_without_loss(self, make_dispatcher: Any) -> None:
        paragraphs = [f"Абзац номер {i}: " + "слово " * 120 + f"конец-{i}." for i in range(40)]
        async with make_dispatcher(stream="off") as harness:  # the status becomes part one
            harness.llm.reply_text("\n\n".join(paragraphs))
            await harness.feed(harness.updates.message("Расскажи всё подробно"))

        session = harness.session
        parts = [str(_edits(session)[-1].text)] + [str(m.text) for m in _sends(session)[1:]]
        assert len(parts) >= 3
        assert all(utf16_len(p) <= 4096 for p in parts)
        joined = "\n".join(parts)
        positions = [joined.index(f"конец-{i}.") for i in range(40)]
        assert positions == sorted(positions)
        assert joined.count("слово") == 40 * 120


class TestMarkupFallback:
    async def test_rejected_markup_is_resent_as_plain_text(self, make_dispatcher: Any) -> None:
        async with make_dispatcher(stream="off") as harness:  # the answer is the status edit
            harness.llm.reply_text("Ответ с **жирным** и `кодом`.")
            harness.session.add_error(
                "editMessageText", 400, "Bad Request: can't parse entities: unsupported start tag"
            )
            await harness.feed(harness.updates.message("вопрос"))

        edits = _edits(harness.session)
        assert edits[-2].parse_mode == "HTML"
        assert edits[-1].parse_mode is None
        assert edits[-1].text == "Ответ с жирным и кодом."
        assert edits[-1].message_id == edits[-2].message_id


class TestCosmeticFailures:
    async def test_failing_chat_action_does_not_block_the_answer(self, harness: Harness) -> None:
        harness.session.add_error("sendChatAction", 400, "Bad Request: chat action failed")
        harness.llm.reply_text("Готово.")
        await harness.feed(harness.updates.message("вопрос"))
        assert harness.session.sent_texts()[-1] == "Готово."

    async def test_hanging_chat_action_does_not_block_the_answer(self, harness: Harness) -> None:
        never = asyncio.Event()

        async def hang(_: Any) -> None:
            await never.wait()

        harness.session.hooks["sendChatAction"] = hang
        harness.llm.reply_text("Готово.")
        await asyncio.wait_for(harness.feed(harness.updates.message("вопрос")), 10)
        assert harness.session.sent_texts()[-1] == "Готово."

    async def test_failing_status_message_still_delivers(self, harness: Harness) -> None:
        harness.session.add_error("sendMessage", 500, "Internal Server Error")
        harness.llm.reply_text("Ответ.")
        await harness.feed(harness.updates.message("вопрос"))
        sends = _sends(harness.session)
        assert sends[-1].text == "Ответ."
        assert not _edits(harness.session)

    async def test_progress_off_sends_only_the_answer(self, make_dispatcher: Any) -> None:
        async with make_dispatcher(show_progress=False) as harness:
            harness.llm.reply_tool_calls(("search_files", {"query": "шарлотка"}))
            harness.llm.reply_text("Ответ.")
            await harness.feed(harness.updates.message("вопрос"))
            assert [m.text for m in _sends(harness.session)] == ["Ответ."]
            assert not _edits(harness.session)


class TestAgentErrors:
    async def test_model_down_gives_a_short_message(self, harness: Harness) -> None:
        harness.llm.reply_error(503)
        await harness.feed(harness.updates.message("вопрос"))
        text = str(_edits(harness.session)[-1].text)
        assert "Сервер модели сейчас недоступен" in text
        assert "503" not in text

    async def test_bad_key_is_reported_without_detail(self, harness: Harness) -> None:
        harness.llm.reply_error(401)
        await harness.feed(harness.updates.message("question", language_code="en"))
        text = str(_edits(harness.session)[-1].text)
        assert "refused the key" in text
        assert "sk-test" not in text

    async def test_cut_short_and_truncated_are_said(self, make_dispatcher: Any) -> None:
        async with make_dispatcher(max_rounds=1) as harness:
            harness.llm.reply_tool_calls(("search_files", {"query": "шарлотка"}))
            harness.llm.reply_text("Частичный ответ", finish_reason="length")
            await harness.feed(harness.updates.message("вопрос"))
            text = harness.session.sent_texts()[-1]
            assert "Частичный ответ" in text
            assert "Поиск пришлось прервать" in text
            assert "Напишите «продолжи»" in text


class TestQuestionShapes:
    async def test_emoji_only_gets_a_hint_without_a_model_call(self, harness: Harness) -> None:
        await harness.feed(harness.updates.message("🍎🍏 !!"))
        assert not harness.llm.requests
        assert "Напишите вопрос словами" in str(_sends(harness.session)[-1].text)

    async def test_forwarded_text_is_a_question(self, harness: Harness) -> None:
        harness.llm.reply_text("Это про отпуск.")
        forward = {
            "type": "user",
            "date": 1,
            "sender_user": {"id": 5, "is_bot": False, "first_name": "A"},
        }
        await harness.feed(
            harness.updates.message("Сколько дней отпуска?", forward_origin=forward)
        )
        question = harness.llm.requests[0]["messages"][-1]
        assert question == {"role": "user", "content": "Сколько дней отпуска?"}
        assert harness.session.sent_texts()[-1] == "Это про отпуск."

    async def test_edited_messages_are_ignored(self, harness: Harness) -> None:
        await harness.feed(harness.updates.edited("исправленный вопрос"))
        assert not harness.llm.requests
        assert not harness.session.calls

    async def test_sticker_gets_what_the_bot_can_do(self, harness: Harness) -> None:
        sticker = {
            "file_id": "s1",
            "file_unique_id": "us1",
            "type": "regular",
            "width": 512,
            "height": 512,
            "is_animated": False,
            "is_video": False,
        }
        await harness.feed(harness.updates.message(None, sticker=sticker))
        assert not harness.llm.requests
        assert "Стикеры и видео я не читаю" in str(_sends(harness.session)[-1].text)

    async def test_model_sees_tools_on_every_question(self, harness: Harness) -> None:
        harness.llm.reply_text("Ответ.")
        await harness.feed(harness.updates.message("вопрос"))
        names = {t["function"]["name"] for t in harness.llm.requests[0]["tools"]}
        assert names == {"search_files", "read_file", "list_files"}
        assert json.dumps(harness.llm.requests[0], ensure_ascii=False).count("вопрос") >= 1
