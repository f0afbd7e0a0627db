"""The services own closing: one stack closes what `open_services` opened and the stores the
Telegram wing opened on top, last opened first."""

from __future__ import annotations

import sqlite3
from collections.abc import Awaitable, Callable
from pathlib import Path

from bot.entrance.loading import load_settings
from bot.services import close_services, open_services
from bot.telegram.tuning import Tuning
from tests.fakes.fake_llm import FakeLLM


class TestClosing:
    async def test_close_services_closes_every_store_the_telegram_wing_opened(
        self, tmp_path: Path, fake_llm: FakeLLM
    ) -> None:
        settings = load_settings(
            data_dir=tmp_path / "data",
            sandbox_dir=tmp_path / "docs",
            openai_api_key="sk-test-closing-0042",
            openai_base_url=fake_llm.base_url,
        )
        services = await open_services(settings)
        stores = services.backend.stores(
            clock=Tuning().wall_clock, rate_limit_per_hour=settings.rate_limit_per_hour
        )
        uses: dict[str, Callable[[], Awaitable[object]]] = {
            "pending status": stores.pending_status.leftovers,
            "access": stores.access.load,
            "source links": lambda: stores.source_links.forget_chat(7),
            "confirmations": lambda: stores.confirmations.forget_user(7),
            "audit": stores.audit.recent,
            "scopes": lambda: stores.scopes.chat_override(7),
            "history": lambda: services.history.conversation_count("chat:7"),
        }
        for use in uses.values():
            await use()  # each one open, its file made
        await close_services(services)
        still_open = []
        for name, use in uses.items():
            try:
                await use()
            except (sqlite3.ProgrammingError, RuntimeError):  # a closed store or its thread
                continue
            still_open.append(name)
        assert still_open == []
