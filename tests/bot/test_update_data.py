"""A question's data, the dict aiogram copies at every layer on its way to the handler, stays
within the entries of CPython's smaller dict table: a chat waiting for its answer holds some
twenty-five copies of it (`bot.telegram.upkeep`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from aiogram.types import TelegramObject

from bot.telegram.upkeep import DATA_ENTRIES, Upkeep
from tests.fakes.fixtures import DispatcherFactory

Handler = Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]]


async def test_a_question_reaches_its_handler_with_at_most_42_entries(
    make_dispatcher: DispatcherFactory,
) -> None:
    seen: list[int] = []

    async def count(handler: Handler, event: TelegramObject, data: dict[str, Any]) -> Any:
        seen.append(len(data))
        return await handler(event, data)

    async with make_dispatcher(stream="off") as harness:
        harness.dp.message.middleware(count)  # the last one: it sees what the handler gets
        harness.llm.reply_text("Для шарлотки нужен **1 стакан сахара**.")

        await harness.feed(harness.updates.message("Сколько сахара нужно для шарлотки?"))

        assert harness.session.called("sendMessage")
        assert seen
        assert max(seen) <= DATA_ENTRIES


async def test_the_background_work_is_one_entry_of_the_data(
    make_dispatcher: DispatcherFactory,
) -> None:
    async with make_dispatcher() as harness:
        upkeep = harness.dp["upkeep"]
        assert isinstance(upkeep, Upkeep)
        for name in ("retention", "gaps_digest", "source_questions", "source_notices"):
            assert name not in harness.dp.workflow_data
