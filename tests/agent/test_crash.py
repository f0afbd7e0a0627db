"""A process killed in the middle of a question: after a restart nothing half-done is sent."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import sys
import textwrap
import time
from pathlib import Path

from bot.agent import HistoryStore
from tests.agent.conftest import AgentFactory, assert_request_valid
from tests.fakes.fake_llm import FakeLLM

REPO = Path(__file__).resolve().parents[2]

CHILD = textwrap.dedent(
    """
    import asyncio, json, sys
    from pathlib import Path
    from openai import AsyncOpenAI
    from bot.agent import Agent, AgentConfig, HistoryStore
    from tools.results import ToolResult

    class Tools:
        specs = [{"type": "function", "function": {"name": "search_files", "parameters": {}}}]
        def subject(self, name, arguments):
            return ""
        async def execute(self, name, arguments, *, scope=None):
            found = {"results": ["документы/рецепт_шарлотки.txt"]}
            return ToolResult(json.dumps(found, ensure_ascii=False))

    async def main():
        store = await HistoryStore.open(Path(sys.argv[1]))
        client = AsyncOpenAI(base_url=sys.argv[2], api_key="test-key", timeout=60, max_retries=0)
        config = AgentConfig(model="m", context_window=32000, max_output_tokens=1000,
                             max_rounds=4, system_prompt="s")
        agent = Agent(config, client, Tools(), store)
        await agent.ask("chat:1", "Первый вопрос")
        await agent.ask("chat:1", "Второй вопрос")

    asyncio.run(main())
    """
)


def stored_states(path: Path) -> list[str]:
    with sqlite3.connect(path) as db:
        return [row[0] for row in db.execute("SELECT state FROM turns ORDER BY id")]


def write_crashed_turn(path: Path) -> None:
    """Leave the database the way a crash between a call and its result would."""
    now = time.time()
    with sqlite3.connect(path) as db:
        conversation = db.execute("SELECT id FROM conversations WHERE key = 'chat:1'").fetchone()[
            0
        ]
        turn = db.execute(
            "INSERT INTO turns (conversation_id, state, started_at) VALUES (?, 'open', ?)",
            (conversation, now),
        ).lastrowid
        dangling = {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "lost", "type": "function", "function": {"name": "x", "arguments": "{}"}}
            ],
        }
        for body in ({"role": "user", "content": "Прерванный"}, dangling):
            db.execute(
                "INSERT INTO messages (turn_id, body, created_at) VALUES (?, ?, ?)",
                (turn, json.dumps(body, ensure_ascii=False), now),
            )


class TestCrashMidQuestion:
    async def test_sigkill_mid_chain_then_restart(
        self, fake_llm: FakeLLM, tmp_path: Path, make_agent: AgentFactory
    ) -> None:
        # the restarted bot's own folder: no other process holds this history
        path = tmp_path / "bot" / "history.sqlite3"
        fake_llm.reply_text("Первый ответ")
        fake_llm.reply_tool_calls(("search_files", {"query": "шарлотка"}))
        fake_llm.reply_hang()
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        child = await asyncio.create_subprocess_exec(
            sys.executable, "-c", CHILD, str(path), fake_llm.base_url, env=env
        )
        try:
            await fake_llm.wait_for_requests(3, within_s=30)
        finally:
            child.kill()
            await child.wait()
        assert stored_states(path) == ["done", "open"]

        store = await HistoryStore.open(path)
        try:
            agent_history_states = await store.turn_states("chat:1")
            reopened_turns = await store.load_turns("chat:1", 10)
            fake_llm.reply_text("После перезапуска")
            answer = await make_agent(store=store).ask("chat:1", "Третий вопрос")
        finally:
            await store.close()
        assert agent_history_states == ["done", "interrupted"]
        assert [t[0]["content"] for t in reopened_turns] == ["Первый вопрос"]
        assert answer.text == "После перезапуска"
        sent = fake_llm.requests[-1]
        assert_request_valid(sent)
        assert [m["content"] for m in sent["messages"][1:]] == [
            "Первый вопрос",
            "Первый ответ",
            "Третий вопрос",
        ]

    async def test_a_dangling_call_on_disk_is_never_sent(
        self, fake_llm: FakeLLM, make_agent: AgentFactory, tmp_path: Path
    ) -> None:
        path = tmp_path / "bot" / "history.sqlite3"
        first = await HistoryStore.open(path)
        try:
            fake_llm.reply_text("Первый ответ")
            await make_agent(store=first).ask("chat:1", "Первый вопрос")
        finally:
            await first.close()
        write_crashed_turn(path)

        restarted = await HistoryStore.open(path)
        try:
            assert await restarted.turn_states("chat:1") == ["done", "interrupted"]
            fake_llm.reply_text("После перезапуска")
            answer = await make_agent(store=restarted).ask("chat:1", "Третий вопрос")
        finally:
            await restarted.close()

        assert answer.text == "После перезапуска"
        sent = fake_llm.requests[-1]
        assert_request_valid(sent)
        assert [m["content"] for m in sent["messages"][1:]] == [
            "Первый вопрос",
            "Первый ответ",
            "Третий вопрос",
        ]
