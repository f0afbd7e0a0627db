"""Which message carries which button data, on both backends: what every tap is checked
against."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.storage import PostgresDatabase
from bot.storage.buttons import LIFETIME_S, Buttons
from bot.storage.buttons.postgres import PostgresButtons
from bot.storage.buttons.sqlite import SqliteButtons
from tests.fakes.clock import FakeClock

CHAT = -100_500
VOTES = ("fb:up:AAAAAAAAAAAA", "fb:down:AAAAAAAAAAAA")


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def sqlite_buttons(tmp_path: Path, clock: FakeClock) -> AsyncIterator[Buttons]:
    store = SqliteButtons(tmp_path / "buttons.sqlite3", clock=clock)
    try:
        yield store
    finally:
        await store.close()


@pytest.fixture
def postgres_buttons(postgres_database: PostgresDatabase, clock: FakeClock) -> Buttons:
    return PostgresButtons(postgres_database, clock=clock)


@pytest.fixture
def buttons(backend: str, request: pytest.FixtureRequest) -> Buttons:
    store: Buttons = request.getfixturevalue(f"{backend}_buttons")
    return store


class TestButtons:
    async def test_data_counts_only_on_its_own_message(self, buttons: Buttons) -> None:
        await buttons.keep(CHAT, 10, VOTES)
        await buttons.keep(CHAT, 11, ["fb:up:BBBBBBBBBBBB"])
        assert await buttons.match(CHAT, 10, VOTES[1]) == "bound"
        assert await buttons.match(CHAT, 11, VOTES[1]) == "other"
        assert await buttons.match(CHAT, 12, VOTES[1]) == "unknown"
        assert await buttons.match(-CHAT, 10, VOTES[1]) == "unknown"

    async def test_an_edit_adds_to_what_the_message_had(self, buttons: Buttons) -> None:
        await buttons.keep(CHAT, 10, VOTES)
        await buttons.keep(CHAT, 10, [*VOTES, "xp:AAAAAAAAAAAA", "xp:AAAAAAAAAAAA"])
        for data in (*VOTES, "xp:AAAAAAAAAAAA"):
            assert await buttons.match(CHAT, 10, data) == "bound"

    async def test_old_buttons_stop_working(self, buttons: Buttons, clock: FakeClock) -> None:
        await buttons.keep(CHAT, 10, VOTES)
        clock.advance(LIFETIME_S - 60)
        assert await buttons.match(CHAT, 10, VOTES[0]) == "bound"
        clock.advance(120)
        assert await buttons.match(CHAT, 10, VOTES[0]) == "unknown"
        await buttons.keep(CHAT, 11, VOTES)
        assert await buttons.match(CHAT, 10, VOTES[0]) == "unknown"
        assert await buttons.match(CHAT, 11, VOTES[0]) == "bound"

    async def test_forget_chat_drops_only_that_chats(self, buttons: Buttons) -> None:
        await buttons.keep(CHAT, 10, VOTES)
        await buttons.keep(7, 10, VOTES)
        assert await buttons.forget_chat(7) == 2
        assert await buttons.match(7, 10, VOTES[0]) == "unknown"
        assert await buttons.match(CHAT, 10, VOTES[0]) == "bound"
