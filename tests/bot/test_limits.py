"""Rate limit, per-conversation order, parallel chats, and shutdown of running questions."""

from __future__ import annotations

import asyncio
from typing import Any

from aiogram.methods import EditMessageText, SendMessage

from bot.agent import KeyedLocks
from bot.telegram.middlewares import InFlight, SlidingWindow
from bot.telegram.tuning import Tuning
from tests.fakes.accounts import ADMIN_ID, USER_ID
from tests.fakes.fake_llm import Reply
from tests.fakes.harness import Harness

FAST = Tuning(edit_interval_s=0.0, retry_wait_cap_s=5.0)


class TestRateLimit:
    async def test_over_the_limit_is_refused_politely(self, make_dispatcher: Any) -> None:
        async with make_dispatcher(rate_limit_per_hour=3) as harness:
            for i in range(3):
                harness.llm.reply_text(f"Ответ {i}.")
            for i in range(5):
                await harness.feed(harness.updates.message(f"вопрос {i}"))
            assert len(harness.llm.requests) == 3
            refusals = [
                str(m.text)
                for m in harness.session.called("sendMessage")
                if "Слишком много вопросов" in str(m.text)
            ]
            assert refusals == [
                "⏳ Слишком много вопросов подряд. Следующий можно задать примерно через 60 минут."
            ]

    async def test_commands_do_not_count_and_admins_are_exempt(self, make_dispatcher: Any) -> None:
        async with make_dispatcher(rate_limit_per_hour=1) as harness:
            for _ in range(3):
                await harness.feed(harness.updates.command("/help"))
                harness.llm.reply_text("Ответ.")
                await harness.feed(harness.updates.message("вопрос", user_id=ADMIN_ID))
            assert len(harness.llm.requests) == 3
            harness.llm.reply_text("Ответ.")
            await harness.feed(harness.updates.message("вопрос"))
            assert len(harness.llm.requests) == 4

    async def test_a_flood_is_refused_at_once_not_queued(self, make_dispatcher: Any) -> None:
        async with make_dispatcher(rate_limit_per_hour=5) as harness:
            for i in range(5):
                harness.llm.reply_text(f"Ответ {i}.")
            flood = [harness.updates.message(f"вопрос {i}") for i in range(50)]
            await asyncio.wait_for(asyncio.gather(*(harness.feed(u) for u in flood)), 30)
            assert len(harness.llm.requests) == 5
            sent = [str(m.text) for m in harness.session.called("sendMessage")]
            assert sum("Слишком много вопросов" in t for t in sent) == 1

    async def test_without_a_rate_limit_the_queue_per_chat_is_bounded(
        self, make_dispatcher: Any
    ) -> None:
        tuning = Tuning(edit_interval_s=0.0, max_waiting_per_chat=3)
        async with make_dispatcher(tuning=tuning, rate_limit_per_hour=0) as harness:
            for i in range(3):
                harness.llm.reply_text(f"Ответ {i}.")
            flood = [harness.updates.message(f"вопрос {i}") for i in range(50)]
            await asyncio.wait_for(asyncio.gather(*(harness.feed(u) for u in flood)), 30)
            assert len(harness.llm.requests) == 3
            sent = [str(m.text) for m in harness.session.called("sendMessage")]
            assert sum("ещё отвечаю на предыдущие" in t for t in sent) == 1


class TestSlidingWindow:
    def test_window_slides(self) -> None:
        now = [0.0]
        window = SlidingWindow(2, window_s=100, clock=lambda: now[0])
        assert window.hit(1) is None
        now[0] = 10
        assert window.hit(1) is None
        assert window.hit(1) == 90
        assert window.hit(2) is None
        now[0] = 100
        assert window.hit(1) is None
        assert window.hit(1) == 10


class TestOrder:
    async def test_one_chat_is_answered_in_order(self, harness: Harness) -> None:
        harness.llm.reply_text("Первый ответ.")
        harness.llm.reply_text("Второй ответ.")
        first, second = (harness.updates.message(t) for t in ("первый", "второй"))
        await asyncio.gather(harness.feed(first), harness.feed(second))

        shown = [
            str(c.text)
            for c in harness.session.calls
            if isinstance(c, SendMessage | EditMessageText)
        ]  # the answer is the status edited, or (streamed) a new message: the order is the same
        assert shown == ["🤔 Думаю…", "Первый ответ.", "🤔 Думаю…", "Второй ответ."]
        contents = [m.get("content") for m in harness.llm.requests[1]["messages"]]
        assert contents[-3:] == ["первый", "Первый ответ.", "второй"]

    async def test_chats_run_in_parallel(self, make_dispatcher: Any) -> None:
        async with make_dispatcher(allowed_user_ids=frozenset({USER_ID, USER_ID + 1})) as harness:
            llm = harness.llm

            async def responder(request: dict[str, Any]) -> Reply | None:
                if request["messages"][-1]["content"] == "A":
                    await llm.wait_for_requests(2)
                return None

            llm.responder = responder
            llm.reply_text("Ответ.")
            llm.reply_text("Ответ.")
            a = harness.updates.message("A")
            b = harness.updates.message("B", user_id=USER_ID + 1)
            await asyncio.wait_for(asyncio.gather(harness.feed(a), harness.feed(b)), 10)
            assert len(llm.requests) == 2

    async def test_lock_table_does_not_grow(self) -> None:
        locks = KeyedLocks()

        for i in range(100):
            async with locks.hold(f"chat:{i}"):
                assert len(locks) == 1
        assert len(locks) == 0


class TestShutdown:
    async def test_running_question_is_cancelled_after_the_grace(self) -> None:
        in_flight = InFlight()
        started = asyncio.Event()

        async def forever() -> None:
            started.set()
            await asyncio.Event().wait()

        task = asyncio.create_task(in_flight.track(forever))
        await started.wait()
        assert len(in_flight) == 1
        await in_flight.drain(0.05)
        assert task.cancelled()
        assert len(in_flight) == 0

    async def test_finished_questions_need_no_wait(self) -> None:
        in_flight = InFlight()

        async def quick() -> str:
            return "ok"

        assert await in_flight.track(quick) == "ok"
        await asyncio.wait_for(in_flight.drain(60), 1)

    async def test_shutdown_lets_a_running_question_finish(self, make_dispatcher: Any) -> None:
        tuning = Tuning(edit_interval_s=0.0, shutdown_grace_s=10.0)
        async with make_dispatcher(tuning=tuning) as harness:
            release = asyncio.Event()

            async def responder(_: dict[str, Any]) -> Reply | None:
                await release.wait()
                return None

            harness.llm.responder = responder
            harness.llm.reply_text("Успел.")
            feeding = asyncio.create_task(harness.feed(harness.updates.message("вопрос")))
            await harness.llm.wait_for_requests(1)
            stopping = asyncio.create_task(
                harness.dp.emit_shutdown(bot=harness.bot, **harness.dp.workflow_data)
            )
            release.set()
            await asyncio.wait_for(stopping, 10)
            assert harness.session.sent_texts()[-1] == "Успел."
            await feeding

    async def test_question_cut_by_shutdown_tells_the_user(self, make_dispatcher: Any) -> None:
        tuning = Tuning(edit_interval_s=0.0, shutdown_grace_s=0.2)
        async with make_dispatcher(tuning=tuning) as harness:
            harness.llm.reply_hang()
            feeding = asyncio.create_task(harness.feed(harness.updates.message("вопрос")))
            await harness.llm.wait_for_requests(1)
            await harness.session.wait_for(lambda s: bool(s.called("sendMessage")))
            await harness.dp.emit_shutdown(bot=harness.bot, **harness.dp.workflow_data)
            assert feeding.cancelled()
            assert "перезапускается" in str(harness.session.called("editMessageText")[-1].text)

    async def test_questions_queued_at_shutdown_are_told_too(self, make_dispatcher: Any) -> None:
        tuning = Tuning(edit_interval_s=0.0, shutdown_grace_s=0.2)
        async with make_dispatcher(tuning=tuning) as harness:
            harness.llm.reply_hang()
            first = asyncio.create_task(harness.feed(harness.updates.message("первый")))
            await harness.llm.wait_for_requests(1)
            second = asyncio.create_task(harness.feed(harness.updates.message("второй")))
            in_flight = harness.dp.workflow_data["in_flight"]
            await asyncio.wait_for(in_flight.wait_until_running(2), 5)
            await harness.dp.emit_shutdown(bot=harness.bot, **harness.dp.workflow_data)
            assert first.cancelled()
            assert second.cancelled()
            replies = [m for m in harness.session.called("sendMessage") if m.reply_parameters]
            assert len(replies) == 1
            assert "перезапускается" in str(replies[0].text)
            assert len(harness.llm.requests) == 1

    async def test_messages_after_shutdown_began_are_told(self, make_dispatcher: Any) -> None:
        async with make_dispatcher() as harness:
            await harness.dp.workflow_data["in_flight"].drain(0.1)
            await harness.feed(harness.updates.message("вопрос"))
            assert "перезапускается" in str(harness.session.called("sendMessage")[-1].text)
            assert not harness.llm.requests


class TestPastes:
    async def test_a_paste_split_by_telegram_is_one_question(self, make_dispatcher: Any) -> None:
        tuning = Tuning(edit_interval_s=0.0, paste_window_s=10.0)
        async with make_dispatcher(tuning=tuning, rate_limit_per_hour=2) as harness:
            harness.llm.reply_text("Прочитал всё.")
            pieces = ["первая " * 600, "вторая " * 600, "хвост?"]
            updates = [harness.updates.message(piece) for piece in pieces]
            # Started in arrival order, as the dispatcher starts one task per update.
            await asyncio.wait_for(asyncio.gather(*(harness.feed(u) for u in updates)), 10)
            assert len(harness.llm.requests) == 1
            question = harness.llm.requests[0]["messages"][-1]["content"]
            assert question.startswith("первая")
            assert question.endswith("хвост?")
            assert question.count("вторая") == 600
            harness.llm.reply_text("Второй ответ.")
            await harness.feed(harness.updates.message("ещё вопрос"))
            assert len(harness.llm.requests) == 2, "joined pieces counted as one question"

    async def test_a_long_message_alone_is_answered(self, make_dispatcher: Any) -> None:
        tuning = Tuning(edit_interval_s=0.0, paste_window_s=0.05)
        async with make_dispatcher(tuning=tuning) as harness:
            harness.llm.reply_text("Ответ.")
            await harness.feed(harness.updates.message("длинно " * 600))
            assert len(harness.llm.requests) == 1
