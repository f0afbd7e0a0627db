"""Pruning shortens what is sent, never what is stored: on SQLite and on PostgreSQL the history
gives every tool result back whole, and a fresh agent on it (another worker, or after a restart)
prunes the same turns to the same bytes."""

from __future__ import annotations

import json
from typing import Any

from bot.agent import Agent, AgentConfig, History
from tests.agent.conftest import ProgrammableTools
from tests.fakes.fake_llm import FakeLLM, make_client

FILES = {f"{name}.txt": f"строка документа {name}\n" * 200 for name in ("a", "b", "c", "d")}


def agent_on(history: History, fake_llm: FakeLLM, tools: ProgrammableTools) -> Agent:
    config = AgentConfig(
        model="test-model", context_window=128_000, max_output_tokens=2_000, max_rounds=4
    )
    return Agent(config, make_client(fake_llm, timeout=5.0, max_retries=0), tools, history)


async def read_and_answer(agent: Agent, fake_llm: FakeLLM, name: str) -> None:
    fake_llm.reply_tool_calls(("read_file", {"path": f"{name}.txt"}))
    fake_llm.reply_text(f"в {name}.txt двести строк")
    await agent.ask("chat:1", f"что в {name}.txt?")


def results(messages: list[dict[str, Any]]) -> list[str]:
    return [m["content"] for m in messages if m["role"] == "tool"]


class TestStoredTurnsStayWhole:
    async def test_the_store_gives_back_every_result_and_a_fresh_agent_prunes_alike(
        self, history: History, fake_llm: FakeLLM
    ) -> None:
        tools = ProgrammableTools(FILES)
        first = agent_on(history, fake_llm, tools)
        for name in ("a", "b", "c"):
            await read_and_answer(first, fake_llm, name)
        sent_by_first = fake_llm.requests[-2]["messages"]  # question c, before its own read

        turns = await history.load_turns("chat:1", 10)
        assert [results(turn) for turn in turns] == [
            [json.dumps({"path": f"{n}.txt", "text": FILES[f"{n}.txt"]}, ensure_ascii=False)]
            for n in ("a", "b", "c")
        ]

        second = agent_on(history, fake_llm, tools)
        await read_and_answer(second, fake_llm, "d")
        sent_by_second = fake_llm.requests[-2]["messages"]
        stubs = [json.loads(r) for r in results(sent_by_second)]
        assert [s.get("left_out") is not None for s in stubs] == [True, True, False]
        assert [s["path"] for s in stubs] == ["a.txt", "b.txt", "c.txt"]
        assert results(sent_by_second)[0] == results(sent_by_first)[0], "the same stub bytes"
        assert "строка документа c" in results(sent_by_second)[2]
