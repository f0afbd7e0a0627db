"""The history store: append-only, persistent, isolated per conversation, crash-repaired."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import sys
from pathlib import Path

import pytest

from bot.agent import HistoryStore, KeyedLocks, Usage

REPO = Path(__file__).resolve().parents[2]
HOLD_THE_HISTORY = """
import asyncio, sys
from pathlib import Path
from bot.agent import HistoryStore

async def hold() -> None:
    store = await HistoryStore.open(Path(sys.argv[1]))
    await store.begin_turn("chat:2", {"role": "user", "content": "question"})
    print("asking", flush=True)
    await asyncio.Event().wait()

asyncio.run(hold())
"""


def call_message(call_id: str) -> dict[str, object]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": call_id,
                "type": "function",
                "function": {"name": "list_files", "arguments": "{}"},
            }
        ],
    }


async def answered_turn(store: HistoryStore, key: str, question: str, answer: str) -> None:
    turn = await store.begin_turn(key, {"role": "user", "content": question})
    await store.append(turn, [{"role": "assistant", "content": answer}])
    await store.finish_turn(turn, done=True, usage=Usage(rounds=1, prompt_tokens=10))


def moved_aside(folder: Path) -> list[Path]:
    return list(folder.glob("h.sqlite3.corrupt-*"))


class TestHistoryStore:
    async def test_survives_a_restart(self, tmp_path: Path) -> None:
        path = tmp_path / "h.sqlite3"
        store = await HistoryStore.open(path)
        await answered_turn(store, "chat:1", "вопрос", "ответ")
        await store.close()

        reopened = await HistoryStore.open(path)
        try:
            turns = await reopened.load_turns("chat:1", 10)
            usage = await reopened.last_usage("chat:1")
        finally:
            await reopened.close()

        assert turns == [
            [{"role": "user", "content": "вопрос"}, {"role": "assistant", "content": "ответ"}]
        ]
        assert usage == Usage(rounds=1, prompt_tokens=10)

    async def test_a_folder_gets_a_file_inside(self, tmp_path: Path) -> None:
        store = await HistoryStore.open(tmp_path)
        await store.close()
        assert (tmp_path / "history.sqlite3").is_file()

    async def test_only_finished_turns_are_loaded(self, history: HistoryStore) -> None:
        await answered_turn(history, "chat:1", "один", "1")
        failed = await history.begin_turn("chat:1", {"role": "user", "content": "два"})
        await history.append(failed, [call_message("c1")])
        await history.finish_turn(failed, done=False)
        await history.begin_turn("chat:1", {"role": "user", "content": "три"})

        turns = await history.load_turns("chat:1", 10)

        assert [t[0]["content"] for t in turns] == ["один"]
        assert await history.turn_states("chat:1") == ["done", "failed", "open"]

    async def test_open_turns_from_a_crash_are_marked_interrupted(self, tmp_path: Path) -> None:
        path = tmp_path / "h.sqlite3"
        store = await HistoryStore.open(path)
        await answered_turn(store, "chat:1", "один", "1")
        turn = await store.begin_turn("chat:1", {"role": "user", "content": "два"})
        await store.append(turn, [call_message("c1")])
        await store.close()

        reopened = await HistoryStore.open(path)
        try:
            assert await reopened.turn_states("chat:1") == ["done", "interrupted"]
            assert len(await reopened.load_turns("chat:1", 10)) == 1
        finally:
            await reopened.close()

    async def test_the_limit_keeps_the_newest_turns(self, history: HistoryStore) -> None:
        for n in range(5):
            await answered_turn(history, "chat:1", f"q{n}", f"a{n}")
        turns = await history.load_turns("chat:1", 2)
        assert [t[0]["content"] for t in turns] == ["q3", "q4"]

    async def test_reset_keeps_the_old_conversation(self, history: HistoryStore) -> None:
        await answered_turn(history, "chat:1", "старый", "1")
        await history.reset("chat:1")
        await answered_turn(history, "chat:1", "новый", "2")

        turns = await history.load_turns("chat:1", 10)

        assert [t[0]["content"] for t in turns] == ["новый"]
        assert await history.conversation_count("chat:1") == 2

    async def test_concurrent_conversations_stay_apart(self, history: HistoryStore) -> None:
        keys = [f"chat:{n}" for n in range(20)] + [f"chat:-5:user:{n}" for n in range(20)]
        await asyncio.gather(
            *(answered_turn(history, k, f"{k} q", f"{k} a") for k in keys for _ in range(3))
        )
        for key in keys:
            turns = await history.load_turns(key, 10)
            assert len(turns) == 3
            assert all(m["content"].startswith(key + " ") for t in turns for m in t)

    async def test_nothing_is_ever_deleted(self, tmp_path: Path) -> None:
        path = tmp_path / "h.sqlite3"
        store = await HistoryStore.open(path)
        await answered_turn(store, "chat:1", "один", "1")
        await store.reset("chat:1")
        failed = await store.begin_turn("chat:1", {"role": "user", "content": "два"})
        await store.finish_turn(failed, done=False)
        await store.close()

        with sqlite3.connect(path) as db:
            count = db.execute("SELECT COUNT(*) FROM messages").fetchone()[0]
        assert count == 3

    async def test_a_corrupt_file_is_moved_aside(self, tmp_path: Path) -> None:
        path = tmp_path / "h.sqlite3"
        path.write_bytes(b"this is not a database" * 100)

        store = await HistoryStore.open(path)
        try:
            await answered_turn(store, "chat:1", "вопрос", "ответ")
            assert len(await store.load_turns("chat:1", 10)) == 1
        finally:
            await store.close()

        aside = moved_aside(tmp_path)
        assert len(aside) == 1
        assert aside[0].read_bytes().startswith(b"this is not a database")


class TestIntegrityCheck:
    async def test_a_clean_shutdown_skips_the_check(self, tmp_path: Path) -> None:
        path = tmp_path / "h.sqlite3"
        store = await HistoryStore.open(path)
        await answered_turn(store, "chat:1", "вопрос", "ответ")
        await store.close()
        assert not (tmp_path / "h.sqlite3.in-use").exists()

        again = await HistoryStore.open(path)
        try:
            assert not again.checked
            assert len(await again.load_turns("chat:1", 10)) == 1
        finally:
            await again.close()

    async def test_an_unclean_shutdown_is_checked(self, tmp_path: Path) -> None:
        path = tmp_path / "h.sqlite3"
        store = await HistoryStore.open(path)
        await answered_turn(store, "chat:1", "вопрос", "ответ")
        assert (tmp_path / "h.sqlite3.in-use").exists()
        await store.close()
        (tmp_path / "h.sqlite3.in-use").touch()  # as a killed process leaves it

        again = await HistoryStore.open(path)
        try:
            assert again.checked
            assert len(await again.load_turns("chat:1", 10)) == 1
        finally:
            await again.close()
        assert moved_aside(tmp_path) == []

    async def test_a_damaged_page_after_an_unclean_shutdown_is_moved_aside(
        self, tmp_path: Path
    ) -> None:
        path = tmp_path / "h.sqlite3"
        store = await HistoryStore.open(path)
        for i in range(300):
            await answered_turn(store, f"chat:{i}", "вопрос " * 20, "ответ " * 20)
        await store.close()
        with sqlite3.connect(path) as db:
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            page = db.execute("PRAGMA page_size").fetchone()[0]
        with path.open("r+b") as raw:
            raw.seek(page * 4)
            raw.write(b"\xff" * page * 3)  # three pages past the header
        (tmp_path / "h.sqlite3.in-use").touch()

        again = await HistoryStore.open(path)
        try:
            assert again.checked
            assert await again.load_turns("chat:1", 10) == []
        finally:
            await again.close()
        assert len(moved_aside(tmp_path)) == 1


class TestTwoProcessesOnOneHistory:
    """A second store on the same file stands for a second process (the terminal chat beside a
    running bot): the marker's lock belongs to each open file, as it would to each process."""

    async def test_the_second_leaves_the_first_ones_questions_and_marker_alone(
        self, tmp_path: Path, caplog: pytest.LogCaptureFixture
    ) -> None:
        path = tmp_path / "h.sqlite3"
        marker = tmp_path / "h.sqlite3.in-use"
        bot = await HistoryStore.open(path)
        running = await bot.begin_turn("chat:1", {"role": "user", "content": "вопрос"})

        chat = await HistoryStore.open(path)
        assert not chat.checked
        await chat.close()
        assert marker.exists()
        assert "not closed cleanly" not in caplog.text

        await bot.append(running, [{"role": "assistant", "content": "ответ"}])
        await bot.finish_turn(running, done=True)
        assert await bot.turn_states("chat:1") == ["done"]
        await bot.close()
        assert not marker.exists()  # the last to close removes it

    async def test_a_holder_killed_beside_a_running_one_leaves_the_history_to_it(
        self, tmp_path: Path, caplog: pytest.LogCaptureFixture
    ) -> None:
        path = tmp_path / "h.sqlite3"
        bot = await HistoryStore.open(path)
        holder = await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            HOLD_THE_HISTORY,
            str(path),
            env={**os.environ, "PYTHONPATH": str(REPO)},
            stdout=asyncio.subprocess.PIPE,
        )
        assert holder.stdout is not None
        assert await asyncio.wait_for(holder.stdout.readline(), 30) == b"asking\n"
        holder.kill()
        await holder.wait()
        assert (tmp_path / "h.sqlite3.in-use").exists()
        await bot.close()
        assert not (tmp_path / "h.sqlite3.in-use").exists()  # the bot closed it last

        again = await HistoryStore.open(path)
        try:
            assert not again.checked
            assert await again.turn_states("chat:2") == ["interrupted"]
        finally:
            await again.close()
        assert "not closed cleanly" not in caplog.text


class TestKeyedLocks:
    async def test_one_holder_per_key_and_forgotten_once_released(self) -> None:
        locks = KeyedLocks()
        release = asyncio.Event()
        entered: list[str] = []

        async def hold(key: str, tag: str, wait: bool) -> None:
            async with locks.hold(key):
                entered.append(tag)
                if wait:
                    await release.wait()

        first = asyncio.create_task(hold("a", "first", True))
        second = asyncio.create_task(hold("a", "second", False))
        await asyncio.create_task(hold("b", "other key", False))  # starts after both above
        assert entered == ["first", "other key"]
        assert len(locks) == 1
        release.set()
        await asyncio.gather(first, second)

        assert entered == ["first", "other key", "second"]
        assert len(locks) == 0
