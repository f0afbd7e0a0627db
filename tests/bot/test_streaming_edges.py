"""Streamed answers at their edges: drafts refused, long answers, tools after thinking aloud,
Markdown left open mid-stream, streams cut off or refused, and a send that fails midway."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bot.telegram.render import render_answer
from bot.telegram.texts import RUSSIAN
from tests.bot.stream_support import (
    ANSWER,
    CHARLOTTE,
    LONG,
    Watch,
    group_question,
    slow_stream,
    visible,
    whole_answer,
    without_cursor,
)
from tests.fakes.accounts import ADMIN_ID, USER_ID
from tests.fakes.fake_llm import FakeLLM, Reply, text_reply
from tests.fakes.fake_stream import StreamHold
from tests.fakes.fake_telegram import FakeTelegramSession
from tests.fakes.fixtures import DispatcherFactory
from tests.fakes.harness import Harness

OPEN_MARKDOWN = (
    "Сначала **важное**: `pip install x`, потом [ссылка](https://example.com/a_b), ~~старое~~.\n\n"
    "```python\nprint(2 * 3)\n```\n\n"
    "| шаг | время |\n|---|---|\n| тесто | 10 мин |\n| духовка | 40 мин |\n\n"
    "Итог: **готово** & <без тегов>."
)


def in_private(harness: Harness, text: str = "вопрос") -> Any:
    return harness.updates.message(text)


def _first_part_sent_then_the_rest_drafted(session: FakeTelegramSession) -> bool:
    """A message with the answer's first paragraph, then a draft of a later one."""
    names = [(c.__api_method__, str(getattr(c, "text", ""))) for c in session.calls]
    sent = [
        i
        for i, (name, text) in enumerate(names)
        if name != "sendMessageDraft" and "Абзац 0" in text
    ]
    return bool(sent) and any(
        name == "sendMessageDraft" and "Абзац" in text for name, text in names[sent[0] + 1 :]
    )


class TestDraftsRefused:
    async def test_refused_drafts_fall_back_to_edits_and_are_not_tried_again(
        self, make_dispatcher: DispatcherFactory, bot_session: Any
    ) -> None:
        watch = Watch.on(bot_session)
        async with make_dispatcher() as harness:
            slow_stream(harness.llm)
            harness.session.add_error("sendMessageDraft", 400, "Bad Request: not supported")
            harness.llm.reply_text(ANSWER)
            harness.llm.reply_text("Второй ответ, тоже **по частям**, и довольно длинный.")
            await harness.feed(in_private(harness))
            assert len(harness.session.called("sendMessageDraft")) == 1
            assert any(e.text.endswith("▌") for e in watch.edits()), "edits took over"
            assert watch.screen() == [visible(render_answer(ANSWER)[0].html, "HTML")]
            await harness.feed(in_private(harness, "ещё вопрос"))
            assert len(harness.session.called("sendMessageDraft")) == 1, "not tried again"
            assert watch.screen()[-1].startswith("Второй ответ")

    async def test_a_server_without_drafts_turns_them_off_for_every_chat(
        self, make_dispatcher: DispatcherFactory, bot_session: Any
    ) -> None:
        async with make_dispatcher() as harness:
            slow_stream(harness.llm)
            harness.session.add_error("sendMessageDraft", 404, "Not Found: method not found")
            harness.llm.reply_text(ANSWER)
            harness.llm.reply_text(ANSWER)
            await harness.feed(in_private(harness))
            await harness.feed(harness.updates.message("вопрос", user_id=ADMIN_ID))
            assert len(harness.session.called("sendMessageDraft")) == 1


class TestLongAnswers:
    async def test_a_long_answer_goes_on_in_a_second_message_while_it_streams(
        self, make_dispatcher: DispatcherFactory, bot_session: Any
    ) -> None:
        watch = Watch.on(bot_session)

        def script(llm: FakeLLM) -> None:
            llm.reply_text(LONG)

        expected = await whole_answer(make_dispatcher, watch, script, in_private)
        assert len(expected) >= 2
        second = render_answer(LONG)[1].plain
        # the model stops halfway through the second part until the chat shows the first
        hold = StreamHold(after_chars=LONG.index(second[:40]) + len(second) // 2)
        async with make_dispatcher() as harness:
            slow_stream(harness.llm, chars=24)
            harness.llm.streaming.hold = hold
            script(harness.llm)
            asking = asyncio.create_task(harness.feed(in_private(harness)))
            try:
                await asyncio.wait_for(hold.reached(), 30)
                await harness.session.wait_for(_first_part_sent_then_the_rest_drafted, 30)
            finally:
                hold.release()
                await asking
        assert watch.screen_html() == expected, "exactly the parts of a whole answer"
        first = next(s for s in watch.shown if s.message_id is not None and "Абзац 0" in s.text)
        assert any(d.at > first.at and "Абзац" in d.text for d in watch.drafts()), (
            "the first part was sent while the rest was still being written"
        )

    async def test_in_a_group_the_first_message_is_finished_and_the_next_one_grows(
        self, make_dispatcher: DispatcherFactory, bot_session: Any
    ) -> None:
        watch = Watch.on(bot_session)

        def script(llm: FakeLLM) -> None:
            llm.reply_text(LONG)

        def ask(harness: Harness) -> Any:
            return group_question(harness.updates, "расскажи всё", user_id=USER_ID)

        expected = await whole_answer(make_dispatcher, watch, script, ask)
        async with make_dispatcher() as harness:
            slow_stream(harness.llm, chars=24, delay_s=0.003)
            script(harness.llm)
            await harness.feed(ask(harness))
        assert watch.screen_html() == expected
        ids = sorted(watch.messages)
        second = [e for e in watch.shown if e.message_id == ids[1]]
        assert second[0].text.endswith("▌"), "the second message grew while streaming"
        first = [s for s in watch.shown if s.message_id == ids[0]]
        assert not first[-1].text.endswith("▌"), "the first message was finished"

    async def test_a_send_that_fails_midway_loses_and_repeats_nothing(
        self, make_dispatcher: DispatcherFactory, bot_session: Any
    ) -> None:
        watch = Watch.on(bot_session)
        expected = await whole_answer(
            make_dispatcher, watch, lambda llm: llm.reply_text(LONG), in_private
        )
        failing = ["Абзац 0", "конец-15"]  # the first part while streaming, the last one after

        async def flood(method: Any) -> None:
            text = str(getattr(method, "text", ""))
            if failing and failing[0] in text:
                failing.pop(0)
                name = method.__api_method__
                harness.session.add_error(name, 429, "Too Many Requests", retry_after=1)

        async with make_dispatcher() as harness:
            slow_stream(harness.llm, chars=24, delay_s=0.003)
            harness.llm.reply_text(LONG)
            harness.session.hooks["sendMessage"] = flood
            harness.session.hooks["editMessageText"] = flood
            await harness.feed(in_private(harness))
        assert not failing
        assert watch.screen_html() == expected


class TestThinkingAloud:
    async def test_text_before_tool_calls_never_stays(
        self, make_dispatcher: DispatcherFactory, bot_session: Any
    ) -> None:
        watch = Watch.on(bot_session)
        async with make_dispatcher() as harness:
            slow_stream(harness.llm, chars=2, delay_s=0.03)
            harness.llm.reply_tool_calls(
                ("read_file", {"path": CHARLOTTE}), content="Сейчас посмотрю рецепт шарлотки..."
            )
            harness.llm.reply_text("Нужен **стакан сахара**.")
            await harness.feed(in_private(harness))
        assert watch.drafted("Сейчас"), "the thinking aloud was shown"
        retracted = watch.drafts().index(next(d for d in watch.drafts() if d.text == ""))
        assert all("Сейчас" not in d.text for d in watch.drafts()[retracted:])
        assert not any("Сейчас" in text for text in watch.screen())
        assert watch.screen()[0].startswith("Нужен стакан сахара.")

    async def test_in_a_group_the_status_line_comes_back(
        self, make_dispatcher: DispatcherFactory, bot_session: Any
    ) -> None:
        watch = Watch.on(bot_session)
        async with make_dispatcher() as harness:
            slow_stream(harness.llm)
            harness.llm.reply_tool_calls(
                ("read_file", {"path": CHARLOTTE}), content="Сейчас посмотрю рецепт шарлотки..."
            )
            harness.llm.reply_text("Нужен **стакан сахара**.")
            toolbox = harness.dp.workflow_data["toolbox"]
            execute = toolbox.execute

            async def held(name: str, arguments: Any, **options: Any) -> Any:
                await harness.session.wait_for(lambda _: watch.edited("Сейчас посмотрю"))
                await harness.session.wait_for(
                    lambda _: "Сейчас" not in watch.edits()[-1].text, within_s=5
                )
                return await execute(name, arguments, **options)

            toolbox.execute = held
            await harness.feed(group_question(harness.updates, "сахар?", user_id=USER_ID))
        status_lines = [e.text for e in watch.edits() if "Сейчас" not in e.text]
        assert any(line.startswith(("🤔", "📖", "✍️")) for line in status_lines)
        assert not any("Сейчас" in text for text in watch.screen())
        assert watch.screen()[0].startswith("Нужен стакан сахара.")


class TestOpenMarkdown:
    async def test_open_constructs_never_break_the_html_or_show_raw_markup(
        self, make_dispatcher: DispatcherFactory, bot_session: Any
    ) -> None:
        watch = Watch.on(bot_session)
        for place in ("private", "group"):
            async with make_dispatcher() as harness:
                slow_stream(harness.llm, chars=1, delay_s=0.002)
                harness.llm.reply_text(OPEN_MARKDOWN)
                update = (
                    in_private(harness)
                    if place == "private"
                    else group_question(harness.updates, "что делать?", user_id=USER_ID)
                )
                await harness.feed(update)
        assert not watch.refused, "Telegram refused nothing"
        snapshots = [without_cursor(s.text) for s in watch.shown if s.text]
        assert len(snapshots) >= 6
        for text in snapshots:
            for raw in ("**", "`", "](", "~~", "|---", "&lt;", "<b>"):
                assert raw not in text, (raw, text)


class TestCutAndRefused:
    async def test_a_cut_stream_is_marked_as_cut_and_told_once(
        self, make_dispatcher: DispatcherFactory, bot_session: Any
    ) -> None:
        watch = Watch.on(bot_session)
        async with make_dispatcher() as harness:
            slow_stream(harness.llm)
            harness.llm.reply(Reply(body=text_reply(ANSWER).body, cut_after=30))
            await harness.feed(in_private(harness))
        (final,) = watch.screen()
        assert final.startswith("Для шарлотки нужны 1 стакан сахара")
        assert "✂️ …" in final
        assert final.endswith(RUSSIAN.error_stream_cut)
        everything = [s.text for s in watch.shown if s.method == "sendMessage"]
        assert sum(text.count("оборвался") for text in everything) == 1

    async def test_a_model_server_that_will_not_stream_still_answers_once(
        self, make_dispatcher: DispatcherFactory, bot_session: Any
    ) -> None:
        watch = Watch.on(bot_session)
        async with make_dispatcher() as harness:
            harness.llm.streaming.refuse = True
            harness.llm.reply_text(ANSWER)
            await harness.feed(in_private(harness))
        assert [text.startswith("Для шарлотки") for text in watch.screen()] == [True]
        assert sum("Для шарлотки" in s.text for s in watch.shown) == 1

    async def test_an_error_after_partial_text_replaces_it(
        self, make_dispatcher: DispatcherFactory, bot_session: Any
    ) -> None:
        watch = Watch.on(bot_session)
        async with make_dispatcher() as harness:
            slow_stream(harness.llm)
            harness.llm.reply(Reply(body=text_reply(ANSWER).body, garble_after=30))
            harness.llm.reply_error(503)
            await harness.feed(group_question(harness.updates, "шарлотка?", user_id=USER_ID))
        assert watch.edited("Для шарлотки"), "part of the answer was shown"
        assert watch.screen() == [RUSSIAN.error_unavailable]


class TestDisplayFailure:
    async def test_a_failing_display_never_costs_the_answer(
        self,
        make_dispatcher: DispatcherFactory,
        bot_session: Any,
        monkeypatch: pytest.MonkeyPatch,
    ) -> None:
        def broken(markdown: str, **_: Any) -> list[Any]:
            raise RuntimeError(markdown[:10])

        monkeypatch.setattr("bot.telegram.output.streaming.render_answer", broken)
        watch = Watch.on(bot_session)
        async with make_dispatcher() as harness:
            slow_stream(harness.llm)
            harness.llm.reply_text(ANSWER)
            await harness.feed(in_private(harness))
        assert not watch.drafts()
        (answer,) = watch.screen()
        assert answer.startswith("Для шарлотки")
