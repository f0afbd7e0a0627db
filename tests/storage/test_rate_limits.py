"""The sliding rate window on both backends, and one user's questions counted once by two
workers taking them at the same moment."""

from __future__ import annotations

import asyncio

import pytest

from bot.storage import PostgresDatabase
from bot.storage.rate_limits import RateWindow
from bot.storage.rate_limits.postgres import PostgresRateWindow
from bot.telegram.middlewares.rate_limit import LocalRateWindow, SlidingWindow
from tests.fakes.clock import FakeClock

LIMIT = 3
WINDOW_S = 100.0


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def sqlite_window(clock: FakeClock) -> RateWindow:
    return LocalRateWindow(SlidingWindow(LIMIT, window_s=WINDOW_S, clock=clock))


@pytest.fixture
def postgres_window(postgres_database: PostgresDatabase, clock: FakeClock) -> RateWindow:
    return PostgresRateWindow(postgres_database, LIMIT, WINDOW_S, clock=clock)


@pytest.fixture
def window(backend: str, request: pytest.FixtureRequest) -> RateWindow:
    made: RateWindow = request.getfixturevalue(f"{backend}_window")
    return made


class TestSlidingWindow:
    async def test_the_limit_holds_within_the_window_and_frees_as_it_slides(
        self, window: RateWindow, clock: FakeClock
    ) -> None:
        assert await window.hit(1) is None
        clock.advance(10)
        assert await window.hit(1) is None
        assert await window.hit(1) is None
        assert await window.hit(1) == pytest.approx(WINDOW_S - 10)
        assert await window.hit(2) is None, "each user has a window of their own"
        clock.advance(WINDOW_S - 10)
        assert await window.hit(1) is None, "the first hit has left the window"
        assert await window.hit(1) == pytest.approx(10)

    async def test_an_undone_hit_frees_its_place(self, window: RateWindow) -> None:
        for _ in range(LIMIT):
            assert await window.hit(1) is None
        await window.undo(1)
        assert await window.hit(1) is None
        assert await window.hit(1) is not None

    async def test_a_refused_hit_takes_no_place(
        self, window: RateWindow, clock: FakeClock
    ) -> None:
        for _ in range(LIMIT):
            await window.hit(1)
        clock.advance(WINDOW_S / 2)
        assert await window.hit(1) is not None
        clock.advance(WINDOW_S / 2)
        assert await window.hit(1) is None, "refusals in between did not extend the window"


async def test_two_workers_count_one_users_questions_once(postgres_url: str) -> None:
    one = await PostgresDatabase.open(postgres_url)
    two = await PostgresDatabase.open(postgres_url)
    try:
        windows = [PostgresRateWindow(database, LIMIT, WINDOW_S) for database in (one, two)]
        waits = await asyncio.gather(*(windows[n % 2].hit(42) for n in range(12)))
        assert waits.count(None) == LIMIT
        assert all(0 < wait <= WINDOW_S for wait in waits if wait is not None)
    finally:
        await one.close()
        await two.close()
