"""Fixtures for the agent tests: a history store, an agent factory, and request checks."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any, Protocol

import pytest

from bot.agent import Agent, AgentConfig, HistoryStore, ToolRunner
from bot.agent.tokens import TokenCounter
from tests.fakes.fake_llm import FakeLLM, make_client
from tests.fakes.processes import START_S
from tools.jail.scope import Scope
from tools.results import ToolResult

SPECS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": name,
            "description": f"{name} over the documents",
            "parameters": {"type": "object", "properties": props, "additionalProperties": False},
        },
    }
    for name, props in (
        ("search_files", {"query": {"type": "string"}}),
        ("read_file", {"path": {"type": "string"}, "offset": {"type": "integer"}}),
        ("list_files", {"path": {"type": "string"}}),
    )
]


class ProgrammableTools:
    """A ToolRunner whose behaviour a test controls: for faults the real toolbox never shows.

    Files are a dict; `barrier` makes every call wait for the others (it only passes when the
    calls overlap); `explode` names a tool that raises.
    """

    def __init__(self, files: Mapping[str, str] | None = None) -> None:
        self.files = dict(files or {})
        self.calls: list[tuple[str, Any]] = []
        self.running = 0
        self.max_running = 0
        self.barrier: asyncio.Barrier | None = None
        self.explode: str | None = None

    @property
    def specs(self) -> list[dict[str, Any]]:
        return SPECS

    def subject(self, name: str, arguments: Mapping[str, Any]) -> str | None:
        if name not in {spec["function"]["name"] for spec in SPECS}:
            return None
        return str(arguments.get("query") or arguments.get("path") or "")

    async def execute(
        self, name: str, arguments: str | Mapping[str, Any], *, scope: Scope | None = None
    ) -> ToolResult:
        args = json.loads(arguments) if isinstance(arguments, str) else dict(arguments)
        self.calls.append((name, args))
        self.running += 1
        self.max_running = max(self.max_running, self.running)
        try:
            if self.barrier is not None:
                async with asyncio.timeout(5):
                    await self.barrier.wait()
            if name == self.explode:
                msg = "disk on fire"
                raise RuntimeError(msg)
            return self._answer(name, args)
        finally:
            self.running -= 1

    def _answer(self, name: str, args: dict[str, Any]) -> ToolResult:
        if name == "read_file":
            path = args.get("path")
            if path not in self.files:
                return ToolResult.failed(f"no file {path}", "search first")
            page = json.dumps({"path": path, "text": self.files[path]}, ensure_ascii=False)
            return ToolResult(page, source=str(path))
        if name == "search_files":
            if set(args) - {"query", "limit"} or not isinstance(args.get("query"), str):
                return ToolResult.failed("invalid arguments", "query is a string")
            word = args["query"].lower()[:5]
            hits = [p for p, text in self.files.items() if word in (p + text).lower()]
            return ToolResult(json.dumps({"results": hits}, ensure_ascii=False))
        return ToolResult(json.dumps({"entries": sorted(self.files)}, ensure_ascii=False))


class AgentFactory(Protocol):
    def __call__(
        self,
        tools: ToolRunner | None = ...,
        *,
        context_window: int = ...,
        max_output_tokens: int = ...,
        max_rounds: int = ...,
        timeout: float = ...,
        max_retries: int = ...,
        system_prompt: str = ...,
        base_url: str | None = ...,
        stream: str = ...,
        store: HistoryStore | None = ...,
        verify_quotes: bool = ...,
        options: Mapping[str, Any] | None = ...,
    ) -> Agent: ...


@pytest.fixture
async def history(tmp_path: Path) -> AsyncIterator[HistoryStore]:
    store = await HistoryStore.open(tmp_path / "data" / "history.sqlite3")
    try:
        yield store
    finally:
        await store.close()


@pytest.fixture
def programmable_tools() -> ProgrammableTools:
    return ProgrammableTools({"документы/рецепт_шарлотки.txt": "сахар - 1 стакан"})


@pytest.fixture
def make_agent(
    fake_llm: FakeLLM, history: HistoryStore, scenario_tools: ToolRunner
) -> AgentFactory:
    """Agents over the fake server and the shared history; the real toolbox unless given."""

    def factory(
        tools: ToolRunner | None = None,
        *,
        context_window: int = 32_000,
        max_output_tokens: int = 1_000,
        max_rounds: int = 4,
        timeout: float = START_S,
        max_retries: int = 0,
        system_prompt: str = "Answer from the documents.",
        base_url: str | None = None,
        stream: str = "auto",
        store: HistoryStore | None = None,
        verify_quotes: bool = False,
        options: Mapping[str, Any] | None = None,
    ) -> Agent:
        config = AgentConfig(
            model="test-model",
            context_window=context_window,
            max_output_tokens=max_output_tokens,
            max_rounds=max_rounds,
            system_prompt=system_prompt,
            stream=stream,
            verify_quotes=verify_quotes,
            **(options or {}),
        )
        client = make_client(fake_llm, timeout=timeout, max_retries=max_retries)
        if base_url is not None:
            client = client.with_options(base_url=base_url)
        return Agent(config, client, tools or scenario_tools, store or history)

    return factory


def assert_request_valid(request: Mapping[str, Any], *, budget: int | None = None) -> None:
    """Every call answered right after it, ids echoed, no stray results, within budget."""
    messages = request["messages"]
    assert messages[0]["role"] == "system"
    index = 0
    while index < len(messages):
        message = messages[index]
        index += 1
        assert message["role"] != "tool", f"result without its call at {index - 1}"
        if message["role"] == "assistant" and message.get("tool_calls"):
            assert request.get("tools"), "a history with tool calls sent without tools"
            ids = [call["id"] for call in message["tool_calls"]]
            assert all(ids), "a call without an id was sent"
            answered = []
            while index < len(messages) and messages[index]["role"] == "tool":
                answered.append(messages[index]["tool_call_id"])
                index += 1
            assert answered == ids, f"results {answered} do not answer calls {ids} in order"
            for call in message["tool_calls"]:
                assert isinstance(call["function"]["arguments"], str)
    if budget is not None:
        counter = TokenCounter()
        used = counter.messages(messages) + counter.tools(request.get("tools") or [])
        assert used <= budget, f"request of ~{used} tokens exceeds the budget of {budget}"


def event_recorder() -> tuple[list[Any], Callable[[Any], Awaitable[None]]]:
    """A list and an `on_event` handler that appends to it."""
    events: list[Any] = []

    async def on_event(event: Any) -> None:
        events.append(event)

    return events, on_event


@pytest.fixture
def scenario_tools(toolbox: ToolRunner) -> ToolRunner:
    """The real toolbox over the shared sample sandbox, for the end-to-end scenarios."""
    return toolbox
