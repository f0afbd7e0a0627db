"""The history deletes only what it is asked to: one person's conversations, or old turns."""

from __future__ import annotations

import time
from pathlib import Path

from bot.agent import HistoryStore
from tests.agent.test_history import answered_turn


async def _questions(store: HistoryStore, key: str) -> list[str]:
    return [str(turn[0]["content"]) for turn in await store.load_turns(key, 10)]


class TestForgetUser:
    async def test_only_that_persons_private_and_group_conversations_go(
        self, tmp_path: Path
    ) -> None:
        store = await HistoryStore.open(tmp_path)
        keys = {
            "chat:12": True,
            "chat:-1001:user:12": True,
            "chat:-1002:user:12": True,
            "chat:912": False,
            "chat:-1001:user:912": False,
            "chat:-1001:user:120": False,
            "chat:-1001": False,
        }
        try:
            for key in keys:
                await answered_turn(store, key, f"вопрос {key}", "ответ")
            await store.reset("chat:12")
            await answered_turn(store, "chat:12", "после сброса", "ответ")

            assert await store.forget_user(12) == 4
            for key, gone in keys.items():
                assert (await _questions(store, key) == []) is gone, key
                assert await store.conversation_count(key) == (0 if gone else 1), key
            assert await store.forget_user(12) == 0
        finally:
            await store.close()


class TestDeleteOlder:
    async def test_old_turns_go_newer_and_running_ones_stay(self, tmp_path: Path) -> None:
        store = await HistoryStore.open(tmp_path)
        try:
            await answered_turn(store, "chat:1", "старый", "ответ")
            await answered_turn(store, "chat:2", "тоже старый", "ответ")
            cutoff = time.time()
            running = await store.begin_turn("chat:1", {"role": "user", "content": "идёт"})
            await answered_turn(store, "chat:1", "новый", "ответ")

            assert await store.delete_older(cutoff) == 2
            assert await _questions(store, "chat:1") == ["новый"]
            assert await store.conversation_count("chat:2") == 0
            await store.finish_turn(running, done=True)
            assert await _questions(store, "chat:1") == ["идёт", "новый"]
        finally:
            await store.close()
