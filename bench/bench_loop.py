"""loop: our agent's own cost per round, next to bare `AsyncOpenAI` calls to the same server.

Both sides make the same three model calls (search → read → answer) to the same instant fake
server in another process, with the same tool specs and the same instant canned tool results.
What remains is ours: history load and commit (SQLite), token counting and trimming, events,
provider-quirk handling.

Variant `three-rounds` is the original pairing: the agent, given an event handler as the bot
gives it one, streams its replies, while the bare loop takes each reply whole. Variant
`three-rounds-streamed` streams on both sides, the bare loop reading the SDK's own chunks and
putting the content and tool calls back together, so only the agent's streaming overhead (its
reassembly, the draft events) remains.
"""

from __future__ import annotations

import time
from typing import Any, cast

from openai import AsyncOpenAI

from bench.agent_setup import agent_config
from bench.bare_stream import join_stream
from bench.canned_tools import CannedTools
from bench.context import Context
from bench.model_process import FakeModelProcess
from bench.results import Aim, BenchResult, Metric
from bench.stats import median, p95
from bench.toolbox import settings_for
from bot.agent import Agent, AgentEvent, HistoryStore
from tools import build_toolbox

TITLE = "loop overhead: our agent vs bare AsyncOpenAI calls, instant fake model"
QUESTION = "Как испечь шарлотку: шарлотка"
ROUNDS = 3


def variants(quick: bool) -> list[str]:
    """Whole replies on the bare side, then streamed replies on both sides."""
    del quick
    return ["three-rounds", "three-rounds-streamed"]


async def _bare(client: AsyncOpenAI, tools: CannedTools, model: str, prompt: str) -> int:
    """The same question with nothing but the SDK: a list that grows, three calls."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": prompt},
        {"role": "user", "content": QUESTION},
    ]
    calls = 0
    while True:
        reply = await client.chat.completions.create(
            model=model,
            messages=cast(Any, messages),
            tools=cast(Any, tools.specs),
            max_tokens=2048,
        )
        calls += 1
        message = reply.choices[0].message
        if not message.tool_calls:
            return calls
        messages.append(message.model_dump(exclude_none=True))
        for call in message.tool_calls:
            name = call.function.name  # type: ignore[union-attr]
            arguments = call.function.arguments  # type: ignore[union-attr]
            result = await tools.execute(name, arguments)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": result.text})


async def _bare_streamed(client: AsyncOpenAI, tools: CannedTools, model: str, prompt: str) -> int:
    """The same question streamed with nothing but the SDK: chunks put back together."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": prompt},
        {"role": "user", "content": QUESTION},
    ]
    calls = 0
    while True:
        stream = await client.chat.completions.create(
            model=model,
            messages=cast(Any, messages),
            tools=cast(Any, tools.specs),
            max_tokens=2048,
            stream=True,
            stream_options={"include_usage": True},
        )
        calls += 1
        message = await join_stream(stream)
        wanted = message.get("tool_calls", [])
        if not wanted:
            return calls
        messages.append({**message, "content": message["content"] or None})
        for call in wanted:
            function = call["function"]
            result = await tools.execute(function["name"], function["arguments"])
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": result.text})


async def _on_event(event: AgentEvent) -> None:
    del event


async def run(ctx: Context, variant: str) -> BenchResult:
    """Interleave agent and bare questions; the per-pair difference is our overhead."""
    streamed = variant == "three-rounds-streamed"
    bare_loop = _bare_streamed if streamed else _bare
    label = "streamed on both sides: " if streamed else ""
    result = BenchResult("loop", TITLE)
    scratch = ctx.scratch("loop")
    specs = build_toolbox(settings_for(scratch / "sandbox", scratch / "data")).specs
    tools = CannedTools(specs)
    server = FakeModelProcess.start(ctx.python, ctx.child_env())
    client = AsyncOpenAI(base_url=server.base_url, api_key="bench", max_retries=0, timeout=30)
    history = await HistoryStore.open(scratch / "history.sqlite3")
    config = agent_config("fake-model", 128_000)
    agent = Agent(config, client, tools, history)
    questions = 60 if ctx.quick else 300
    ours: list[float] = []
    bare: list[float] = []
    rounds_seen: set[int] = set()
    try:
        for index in range(questions + 10):
            started = time.perf_counter()
            answer = await agent.ask(f"bench:{index}", QUESTION, _on_event)
            mid = time.perf_counter()
            calls = await bare_loop(client, tools, config.model, config.system_prompt)
            done = time.perf_counter()
            rounds_seen.add(answer.usage.model_calls)
            if index >= 10:  # the first ten warm up both sides
                ours.append((mid - started) * 1000.0)
                bare.append((done - mid) * 1000.0)
            if calls != ROUNDS:
                msg = f"the bare loop made {calls} calls, expected {ROUNDS}"
                raise RuntimeError(msg)
    finally:
        await history.close()
        await client.close()
        server.stop()
    overhead = [(o - b) / ROUNDS for o, b in zip(ours, bare, strict=True)]
    result.metrics.append(
        Metric(
            f"{label}one question, three model calls",
            "ms",
            ours,
            reference=bare,
            reference_label="bare AsyncOpenAI" + (", streamed" if streamed else ""),
            ratio_ours_over_ref=True,
        )
    )
    result.metrics.append(
        Metric(f"{label}our overhead per round (paired difference ÷ 3)", "ms", overhead)
    )
    per_round = median(overhead)
    result.aims.append(
        Aim(
            "loop overhead < 2 ms a round" + (" (streamed on both sides)" if streamed else ""),
            per_round < 2.0,
            f"median {per_round:.2f} ms, p95 {p95(overhead):.2f} ms a round",
            value=per_round,
            limit=2.0,
            unit="ms",
        )
    )
    result.notes.append(
        ("Streamed on both sides. " if streamed else "")
        + f"Model calls per agent question seen: {sorted(rounds_seen)} (three expected). "
        "Each question runs in a fresh conversation; agent and bare questions alternate so "
        "drift hits both. The fake server is a separate process (aiohttp, the test suite's "
        "fake), instant; tool results are constant and instant on both sides."
    )
    return result
