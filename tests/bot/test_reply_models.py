"""The Bot API reply models aiogram builds stay built for the bot's life
(`bot.telegram.reply_models`): pydantic only caches them by weak reference."""

from __future__ import annotations

import gc
import weakref

from aiogram.methods import SendMessage
from aiogram.methods.base import Response

from tests.fakes.fixtures import DispatcherFactory


async def test_the_models_of_a_questions_replies_outlive_a_garbage_collection(
    make_dispatcher: DispatcherFactory,
) -> None:
    async with make_dispatcher() as harness:
        harness.llm.reply_text("Для шарлотки нужен **1 стакан сахара**.")
        await harness.feed(harness.updates.message("Сколько сахара нужно для шарлотки?"))
        kinds = {type(call) for call in harness.session.calls}
        assert SendMessage in kinds

        models = {
            kind.__name__: weakref.ref(Response[kind.__returning__])  # type: ignore[name-defined]
            for kind in kinds
        }
        gc.collect()

        assert {name: model() is not None for name, model in models.items()} == dict.fromkeys(
            models, True
        )
