"""The conversation log behaves the same on SQLite and on PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.agent import History, HistoryStore, HistoryUnavailable, Usage
from bot.storage import PostgresDatabase
from bot.storage.history.postgres import PostgresHistory
from tests.fakes.clock import FakeClock
from tests.fakes.postgres_fixtures import end_session


async def answered(history: History, key: str, question: str, answer: str) -> int:
    turn = await history.begin_turn(key, {"role": "user", "content": question})
    await history.append(turn, [{"role": "assistant", "content": answer}])
    await history.finish_turn(turn, done=True)
    return turn


class TestHistorySemantics:
    async def test_a_turn_comes_back_whole_and_in_order(self, history: History) -> None:
        turn = await history.begin_turn("chat:1", {"role": "user", "content": "сколько сахара?"})
        calls = [
            {"role": "assistant", "content": None, "tool_calls": [{"id": f"c{i}"}]}
            for i in range(4)
        ]
        results = [{"role": "tool", "tool_call_id": f"c{i}", "content": "x"} for i in range(4)]
        await history.append(turn, calls[:2])
        await history.append(turn, results[:2] + calls[2:] + results[2:])
        await history.append(turn, [{"role": "assistant", "content": "1 стакан"}])
        await history.finish_turn(turn, done=True, usage=Usage(prompt_tokens=5))

        [loaded] = await history.load_turns("chat:1", 10)
        assert loaded[0] == {"role": "user", "content": "сколько сахара?"}
        assert loaded[1:] == [*calls[:2], *results[:2], *calls[2:], *results[2:]] + [
            {"role": "assistant", "content": "1 стакан"}
        ]
        usage = await history.last_usage("chat:1")
        assert usage is not None
        assert usage.prompt_tokens == 5

    async def test_the_question_of_an_open_turn_can_be_rewritten(self, history: History) -> None:
        turn = await history.begin_turn("k", {"role": "user", "content": "[picture]\nwhat?"})
        await history.append(turn, [{"role": "assistant", "content": "a pump"}])
        described = {"role": "user", "content": "[picture: a water pump]\nwhat?"}
        await history.rewrite_question(turn, described)
        await history.finish_turn(turn, done=True, usage=Usage(image_tokens=765))
        await history.rewrite_question(turn, {"role": "user", "content": "too late"})

        [loaded] = await history.load_turns("k", 10)
        assert loaded == [described, {"role": "assistant", "content": "a pump"}]
        usage = await history.last_usage("k")
        assert usage is not None
        assert usage.image_tokens == 765

    async def test_only_finished_turns_are_loaded(self, history: History) -> None:
        await answered(history, "k", "first", "one")
        failed = await history.begin_turn("k", {"role": "user", "content": "broken"})
        await history.append(failed, [{"role": "assistant", "tool_calls": [{"id": "x"}]}])
        await history.finish_turn(failed, done=False)
        await history.begin_turn("k", {"role": "user", "content": "still running"})

        turns = await history.load_turns("k", 10)
        assert [t[0]["content"] for t in turns] == ["first"]
        assert await history.turn_states("k") == ["done", "failed", "open"]

    async def test_the_limit_keeps_the_newest_turns(self, history: History) -> None:
        for i in range(5):
            await answered(history, "k", f"q{i}", f"a{i}")
        turns = await history.load_turns("k", 2)
        assert [t[0]["content"] for t in turns] == ["q3", "q4"]

    async def test_reset_keeps_the_old_conversation(self, history: History) -> None:
        await answered(history, "k", "before", "a")
        await history.reset("k")
        assert await history.load_turns("k", 10) == []
        await answered(history, "k", "after", "b")
        assert [t[0]["content"] for t in await history.load_turns("k", 10)] == ["after"]
        assert await history.conversation_count("k") == 2

    async def test_conversations_stay_apart_under_concurrency(self, history: History) -> None:
        await asyncio.gather(*(answered(history, f"k{i}", f"q{i}", f"a{i}") for i in range(20)))
        for i in range(20):
            [turn] = await history.load_turns(f"k{i}", 10)
            assert turn == [
                {"role": "user", "content": f"q{i}"},
                {"role": "assistant", "content": f"a{i}"},
            ]

    async def test_an_unknown_key_is_empty(self, history: History) -> None:
        assert await history.load_turns("nobody", 5) == []
        assert await history.last_usage("nobody") is None
        assert await history.turn_states("nobody") == []
        assert await history.conversation_count("nobody") == 0
        await history.ping()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(10_000.0)


@pytest.fixture
async def sqlite_clocked_history(tmp_path: Path, clock: FakeClock) -> AsyncIterator[History]:
    store = await HistoryStore.open(tmp_path / "history.sqlite3", clock=clock)
    try:
        yield store
    finally:
        await store.close()


@pytest.fixture
async def postgres_clocked_history(
    postgres_database: PostgresDatabase, clock: FakeClock
) -> AsyncIterator[History]:
    store = await PostgresHistory.open(postgres_database, clock=clock)
    try:
        yield store
    finally:
        await store.close()


@pytest.fixture
def clocked_history(backend: str, request: pytest.FixtureRequest) -> History:
    """The log on either backend, telling time by `clock` like every other store."""
    store: History = request.getfixturevalue(f"{backend}_clocked_history")
    return store


class TestHistoryClock:
    async def test_turns_are_dated_by_the_stores_clock(
        self, clocked_history: History, clock: FakeClock
    ) -> None:
        await answered(clocked_history, "k", "old", "one")
        clock.advance(3600)
        await answered(clocked_history, "k", "new", "two")

        assert await clocked_history.delete_older(clock() - 1800) == 1
        turns = await clocked_history.load_turns("k", 10)
        assert [t[0]["content"] for t in turns] == ["new"]


class TestOpenTurnsOfOtherWorkers:
    """With several workers, an open turn is cut off only when its worker is gone."""

    async def test_a_running_workers_turn_stays_open(
        self, postgres_url: str, postgres_database: PostgresDatabase
    ) -> None:
        first = await PostgresHistory.open(postgres_database)
        turn = await first.begin_turn("k", {"role": "user", "content": "in progress"})

        second_db = await PostgresDatabase.open(postgres_url)
        try:
            await PostgresHistory.open(second_db)
            assert await first.turn_states("k") == ["open"]
            await first.append(turn, [{"role": "assistant", "content": "done now"}])
            await first.finish_turn(turn, done=True)
            assert await first.turn_states("k") == ["done"]
        finally:
            await second_db.close()

    async def test_a_dead_workers_turn_is_interrupted(
        self, postgres_url: str, postgres_database: PostgresDatabase
    ) -> None:
        doomed = await PostgresDatabase.open(postgres_url)
        await (await PostgresHistory.open(doomed)).begin_turn(
            "k", {"role": "user", "content": "?"}
        )
        mine = await PostgresHistory.open(postgres_database)
        await mine.begin_turn("mine", {"role": "user", "content": "mine"})
        # the worker dies without closing anything: the server ends its session
        pid = doomed.session.connection.get_server_pid()
        await end_session(postgres_database.pool, pid)
        doomed.session.connection.terminate()  # its socket goes with the process, unread
        await doomed.pool.close()

        assert await mine.interrupt_orphans() == 1
        assert await mine.turn_states("k") == ["interrupted"]
        assert await mine.turn_states("mine") == ["open"]

    async def test_ping_reports_a_closed_pool(self, postgres_url: str) -> None:
        database = await PostgresDatabase.open(postgres_url)
        history = await PostgresHistory.open(database)
        await database.close()
        with pytest.raises(HistoryUnavailable):
            await history.ping()
