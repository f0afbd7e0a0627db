"""Answers shown while the model writes them: drafts in private chats, edits in groups.

Real Dispatcher and Agent, the fake model server streaming in small pieces with small delays,
the fake Bot API enforcing Telegram's rules. What is checked is what the user sees: every
snapshot a beginning of the final answer, the final answer exactly what a whole answer would
have been, nothing shown twice or left behind.
"""

from __future__ import annotations

import time
from typing import Any

from bot.telegram.output.drafts import DRAFT_INTERVAL_S
from bot.telegram.texts import RUSSIAN
from bot.telegram.tuning import Tuning
from tests.bot.stream_support import (
    ANSWER,
    CHARLOTTE,
    GROUP_ID,
    LONG,
    Watch,
    gaps,
    group_question,
    slow_stream,
    whole_answer,
    without_cursor,
)
from tests.fakes.accounts import ADMIN_ID, USER_ID
from tests.fakes.fake_llm import FakeLLM
from tests.fakes.fixtures import DispatcherFactory
from tests.fakes.harness import RecordedSleep


class TestPrivateChat:
    async def test_drafts_grow_into_exactly_the_whole_answer(
        self, make_dispatcher: DispatcherFactory, bot_session: Any
    ) -> None:
        watch = Watch.on(bot_session)

        def script(llm: FakeLLM) -> None:
            llm.reply_text(ANSWER)

        def ask(harness: Any) -> Any:
            return harness.updates.message("как испечь шарлотку?")

        expected = await whole_answer(make_dispatcher, watch, script, ask)
        async with make_dispatcher() as harness:
            slow_stream(harness.llm)
            script(harness.llm)
            await harness.feed(ask(harness))
        drafts = watch.drafts()
        assert len(drafts) >= 2
        assert not watch.refused
        final = watch.screen()
        assert watch.screen_html() == expected, "the same parts as a whole answer"
        assert len(final) == 1
        for draft in drafts:
            assert draft.text and final[0].startswith(draft.text), draft.text
        sent = next(s for s in watch.shown if s.method == "sendMessage" and "шарлотки" in s.text)
        assert all(d.at <= sent.at for d in drafts), "drafts come before the message"
        assert min(gaps([d.at for d in drafts])) >= DRAFT_INTERVAL_S * 0.9
        assert RUSSIAN.progress_thinking not in final, "the status message is gone"

    async def test_without_status_lines_the_answer_still_streams(
        self, make_dispatcher: DispatcherFactory, bot_session: Any
    ) -> None:
        watch = Watch.on(bot_session)
        async with make_dispatcher(show_progress=False) as harness:
            slow_stream(harness.llm)
            harness.llm.reply_tool_calls(("search_files", {"query": "шарлотка"}))
            harness.llm.reply_text(ANSWER)
            await harness.feed(harness.updates.message("как испечь шарлотку?"))
        assert watch.drafts()
        assert not watch.edits()
        sends = [s.text for s in watch.shown if s.method == "sendMessage"]
        assert len(sends) == 1 and "Для шарлотки" in sends[0]
        assert len(watch.screen()) == 1


class TestGroup:
    async def test_without_status_lines_the_answer_is_its_own_growing_message(
        self, make_dispatcher: DispatcherFactory, bot_session: Any
    ) -> None:
        watch = Watch.on(bot_session)
        async with make_dispatcher(show_progress=False) as harness:
            slow_stream(harness.llm)
            harness.llm.reply_text(ANSWER)
            await harness.feed(group_question(harness.updates, "шарлотка?", user_id=USER_ID))
        (first, *_) = [s for s in watch.shown if s.method == "editMessageText"]
        assert first.text.startswith("Для") and first.text.endswith("▌")
        (sent,) = bot_session.called("sendMessage")
        assert sent.text == "▌", "the message starts as a bare cursor, its text comes by edits"
        assert sent.reply_parameters is not None, "it answers the question"
        assert all(s.message_id == first.message_id for s in watch.shown)
        (final,) = watch.screen()
        assert final.startswith("Для шарлотки") and not final.endswith("▌")
        assert not any(text.startswith(("🤔", "✍️")) for text in (s.text for s in watch.shown))

    async def test_one_message_grows_with_a_cursor_then_is_final(
        self, make_dispatcher: DispatcherFactory, bot_session: Any
    ) -> None:
        watch = Watch.on(bot_session)

        def script(llm: FakeLLM) -> None:
            llm.reply_text(ANSWER)

        def ask(harness: Any) -> Any:
            return group_question(harness.updates, "как испечь шарлотку?", user_id=ADMIN_ID)

        expected = await whole_answer(make_dispatcher, watch, script, ask)
        async with make_dispatcher() as harness:
            slow_stream(harness.llm)
            script(harness.llm)
            await harness.feed(ask(harness))
        assert not watch.drafts(), "no drafts in groups"
        assert watch.screen_html() == expected
        (status_id,) = watch.messages
        growing = [e for e in watch.edits() if e.text != RUSSIAN.progress_thinking]
        assert {e.message_id for e in growing} == {status_id}, "one message is edited"
        assert len(growing) >= 3
        *snapshots, last = growing
        assert all(s.text.endswith("▌") for s in snapshots)
        assert not last.text.endswith("▌")
        lengths = [len(without_cursor(s.text)) for s in snapshots]
        assert lengths == sorted(lengths)
        for snapshot in snapshots:
            assert last.text.startswith(without_cursor(snapshot.text))

    async def test_the_first_answer_text_does_not_wait_behind_the_status_message(
        self, make_dispatcher: DispatcherFactory, bot_session: Any
    ) -> None:
        watch = Watch.on(bot_session)
        tuning = Tuning(edit_interval_s=60.0, retry_wait_cap_s=120.0, sleep=RecordedSleep())
        async with make_dispatcher(tuning=tuning) as harness:
            slow_stream(harness.llm)
            harness.llm.reply_text(ANSWER)
            await harness.feed(group_question(harness.updates, "шарлотка?", user_id=USER_ID))
        (status,) = [s for s in watch.shown if s.method == "sendMessage"]
        assert status.text == RUSSIAN.progress_thinking
        growing = [e for e in watch.edits() if e.text.endswith("▌")]
        assert growing, "the answer showed while written, with a minute between edits"
        assert growing[0].text.startswith("Для") and growing[0].message_id == status.message_id
        (final,) = watch.screen()
        assert final.startswith("Для шарлотки") and not final.endswith("▌")

    async def test_a_status_line_the_answer_would_replace_is_never_shown(
        self, make_dispatcher: DispatcherFactory, bot_session: Any
    ) -> None:
        watch = Watch.on(bot_session)
        # the answer starts well within the 3 s the status line waits, and still grows after
        tuning = Tuning(edit_interval_s=3.0, retry_wait_cap_s=5.0, sleep=RecordedSleep())
        async with make_dispatcher(tuning=tuning) as harness:
            slow_stream(harness.llm, chars=2, delay_s=0.03)
            harness.llm.reply_tool_calls(("read_file", {"path": CHARLOTTE}))
            harness.llm.reply_text(ANSWER)
            await harness.feed(group_question(harness.updates, "шарлотка?", user_id=USER_ID))
        lines = [e.text for e in watch.edits()]
        assert any(line.startswith("📖") for line in lines), "the tool's status line showed"
        assert RUSSIAN.progress_writing not in lines, "the answer took its turn instead"
        assert watch.screen()[0].startswith("Для шарлотки")

    async def test_flood_control_on_a_growing_message_is_waited_out(
        self, make_dispatcher: DispatcherFactory, bot_session: Any
    ) -> None:
        watch = Watch.on(bot_session)
        flooded: list[float] = []

        async def flood(method: Any) -> None:
            if not flooded and str(method.text).endswith("▌"):
                flooded.append(time.monotonic())
                harness.session.add_error(
                    "editMessageText", 429, "Too Many Requests", retry_after=1
                )

        tuning = Tuning(edit_interval_s=0.1, retry_wait_cap_s=5.0, sleep=RecordedSleep())
        async with make_dispatcher(tuning=tuning) as harness:
            slow_stream(harness.llm, chars=2, delay_s=0.01)
            harness.llm.reply_text(ANSWER)
            harness.session.hooks["editMessageText"] = flood
            await harness.feed(group_question(harness.updates, "шарлотка?", user_id=USER_ID))
        assert flooded, "Telegram asked the display to wait"
        later = [e.at for e in watch.edits() if e.at > flooded[0] and e.text.endswith("▌")]
        assert later, "the answer kept growing after the wait"
        assert min(later) - flooded[0] >= 0.9, "no snapshot before retry_after was up"
        assert watch.screen()[0].startswith("Для шарлотки")

    async def test_edits_keep_the_chats_pace(
        self, make_dispatcher: DispatcherFactory, bot_session: Any
    ) -> None:
        watch = Watch.on(bot_session)
        tuning = Tuning(edit_interval_s=0.25, retry_wait_cap_s=5.0, sleep=RecordedSleep())
        async with make_dispatcher(tuning=tuning) as harness:
            slow_stream(harness.llm, chars=4, delay_s=0.01)
            harness.llm.reply_text(ANSWER)
            await harness.feed(group_question(harness.updates, "шарлотка?", user_id=USER_ID))
        moments = [s.at for s in watch.shown if s.method in {"sendMessage", "editMessageText"}]
        assert len(moments) >= 4
        # the status message and the first text may come together; then one an interval on
        # average: the pacer counts when each call was made, and a busy machine may hand one
        # to the server late, shortening the gap after it but not the pace
        paced = gaps(moments[2:-1])
        assert sum(paced) / len(paced) >= 0.25 * 0.9
        spans = [later - earlier for earlier, later in zip(moments, moments[2:], strict=False)]
        assert min(spans) >= 0.25 * 0.9, "never three calls within one interval"
        assert watch.screen()[0].startswith("Для шарлотки")
        assert GROUP_ID < 0


class TestButtons:
    async def test_a_streamed_answer_has_its_buttons_under_its_last_message(
        self, make_dispatcher: DispatcherFactory, bot_session: Any
    ) -> None:
        async with make_dispatcher() as harness:
            slow_stream(harness.llm, chars=24, delay_s=0.003)
            harness.llm.reply_tool_calls(("read_file", {"path": CHARLOTTE}))
            harness.llm.reply_text(LONG)
            await harness.feed(harness.updates.message("расскажи всё"))
        calls = [
            c
            for c in bot_session.calls
            if c.__api_method__ in {"sendMessage", "editMessageText"} and "Абзац" in str(c.text)
        ]
        assert calls[-1].__api_method__ == "sendMessage", "the last part is a new message"
        assert calls[-1].reply_markup is not None
        assert all(c.reply_markup is None for c in calls[:-1])
        assert bot_session.called("sendMessageDraft")
