"""prefix: how much of each request repeats the start of the one before, which a server caches.

One conversation of thirty questions in an 8k window, each played by the fake model (in this
process, recording every request) as search → read → answer over the real Toolbox on the
generated corpus, so every question reads a full page: of the size the bot takes for this
window when READ_PAGE_CHARS is left empty (`page_for_window`: 3,000 characters), and of 12,000
(READ_PAGE_CHARS=12000 set by hand, the default for large windows: one such page and its search
fill most of an 8k window by themselves). The agent trims in steps (its default)
and, as the reference, one turn at a time (`trim_headroom=0`, the trimming before steps). A
request's repeated start is counted the way a provider's prefix cache matches it: the tool specs
and then whole messages, up to the first message that differs from the previous request's; in
o200k tokens, the count the fake reports as `usage`.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Sequence
from typing import Any

from openai import AsyncOpenAI

from bench import corpus
from bench.agent_setup import agent_config
from bench.context import Context
from bench.fake_model import Script, playing
from bench.queries import query_mix
from bench.results import Aim, BenchResult, Metric
from bench.tokenizer import ReferenceCounter, reference_counter
from bench.toolbox import started_toolbox
from bot.agent import Agent, AgentConfig, HistoryStore
from bot.settings.model import page_for_window
from tools import Toolbox

TITLE = "prefix: a thirty-question conversation in an 8k window, how much of each request repeats"
WINDOW = 8_000
QUESTIONS = 30
OUTPUT_TOKENS = 2_048
MODEL = "fake-model"
AIM_SHARE = 0.7
LARGEST_PAGE = 12_000  # READ_PAGE_CHARS's default, what a large window reads


def variants(quick: bool) -> list[str]:
    """The read page: the bot's own for the window, and 12,000 characters set by hand; the
    same two either way (each takes seconds)."""
    del quick
    return ["window", "12000"]


def _questions() -> list[str]:
    queries = [q.text for q in query_mix()][:QUESTIONS]
    return [f"Вопрос {i + 1}, найди в документах: {q}" for i, q in enumerate(queries)]


async def _conversation(
    fake: Any, toolbox: Toolbox, config: AgentConfig, ctx: Context, name: str
) -> list[dict[str, Any]]:
    """The requests one agent sent for the whole conversation."""
    start = len(fake.requests)
    client = AsyncOpenAI(base_url=fake.base_url, api_key="bench", max_retries=0, timeout=60)
    history = await HistoryStore.open(ctx.scratch(f"prefix-{name}") / "history.sqlite3")
    agent = Agent(config, client, toolbox, history)
    try:
        for question in _questions():
            await agent.ask(f"bench:prefix:{name}", question)
    finally:
        await history.close()
        await client.close()
    return list(fake.requests[start:])


def repeated(previous: dict[str, Any], request: dict[str, Any], count: ReferenceCounter) -> int:
    """Tokens at the start of `request` that repeat `previous`: the tools when they are the
    same, then whole messages up to the first that differs."""
    if request.get("tools") != previous.get("tools"):
        return 0
    total = count.tools(list(request.get("tools") or [])) + count.messages([])
    for old, new in zip(previous["messages"], request["messages"], strict=False):
        if old != new:
            break
        total += count.messages([new]) - count.messages([])
    return total


def _shares(
    requests: Sequence[dict[str, Any]], count: ReferenceCounter
) -> tuple[list[float], float]:
    """Per request (after the first), the share of its tokens repeated; and over them all."""
    per_request: list[float] = []
    same = sent = 0
    for previous, request in itertools.pairwise(requests):
        tokens = count.request(request)
        again = repeated(previous, request, count)
        per_request.append(again / tokens * 100)
        same += again
        sent += tokens
    return per_request, same / sent


async def run(ctx: Context, variant: str) -> BenchResult:
    """The same conversation trimmed in steps and one turn at a time."""
    window = WINDOW
    chosen = variant == "window"
    page = page_for_window(window, OUTPUT_TOKENS, LARGEST_PAGE) if chosen else int(variant)
    result = BenchResult("prefix", TITLE)
    root = corpus.ensure(ctx.workdir, 100, ctx.python, ctx.child_env())
    count = reference_counter()
    fake = await playing(Script(0.0, count.request, itertools.count(1)))
    data = ctx.scratch(f"prefix-data-{page}")
    toolbox, _ = await started_toolbox(root, data, read_page_chars=page)
    steps = agent_config(MODEL, window, OUTPUT_TOKENS)
    one_at_a_time = dataclasses.replace(steps, trim_headroom=0.0)
    try:
        ours = await _conversation(fake, toolbox, steps, ctx, "steps")
        before = await _conversation(fake, toolbox, one_at_a_time, ctx, "one")
    finally:
        await toolbox.close()
        await fake.close()
    if chosen:
        label = f"{window // 1000}k window, the bot's own page for it ({page:,} characters)"
    else:
        label = f"{window // 1000}k window, {page:,}-character pages set by hand"
    _report(result, (ours, before), count, label=label, headroom=steps.trim_headroom)
    return result


def _new_share(requests: Sequence[dict[str, Any]], count: ReferenceCounter) -> float:
    """The share of tokens (after the first request) in messages the previous request did
    not have: tool results, questions, answers. No trimming can repeat those."""
    new = sent = 0
    for previous, request in itertools.pairwise(requests):
        fresh = [m for m in request["messages"] if m not in previous["messages"]]
        new += count.messages(fresh) - count.messages([])
        sent += count.request(request)
    return new / sent


def _report(
    result: BenchResult,
    runs: tuple[list[dict[str, Any]], list[dict[str, Any]]],
    count: ReferenceCounter,
    *,
    label: str,
    headroom: float,
) -> None:
    ours, before = runs
    budget = WINDOW - OUTPUT_TOKENS
    ours_each, ours_share = _shares(ours, count)
    before_each, before_share = _shares(before, count)
    reference = "one turn at a time"
    result.metrics.append(
        Metric(
            f"{label}: share of a request repeating the previous one's start",
            "%",
            ours_each,
            reference=before_each,
            reference_label=reference,
            ratio_ours_over_ref=True,
        )
    )
    result.metrics.append(
        Metric(
            f"{label}: repeated prompt tokens, whole conversation",
            "%",
            [ours_share * 100],
            reference=[before_share * 100],
            reference_label=reference,
            ratio_ours_over_ref=True,
        )
    )
    fill = [count.request(r) / budget * 100 for r in ours]
    before_fill = [count.request(r) / budget * 100 for r in before]
    result.metrics.append(
        Metric(
            f"{label}: window fill per request (of the {budget:,}-token budget)",
            "%",
            fill,
            reference=before_fill,
            reference_label=reference,
            ratio_ours_over_ref=True,
        )
    )
    prompt = float(sum(count.request(r) for r in ours))
    result.metrics.append(
        Metric(
            f"{label}: prompt tokens, whole conversation",
            "tokens",
            [prompt],
            reference=[float(sum(count.request(r) for r in before))],
            reference_label=reference,
            ratio_ours_over_ref=True,
        )
    )
    result.aims.append(
        Aim(
            f"≥ 70 % of prompt tokens repeat the previous request's start ({label})",
            ours_share >= AIM_SHARE,
            f"{ours_share:.0%} trimmed in steps, {before_share:.0%} one turn at a time "
            f"({count.name})",
            value=ours_share * 100,
            limit=AIM_SHARE * 100,
            unit="points",
            higher_is_better=True,
        )
    )
    largest = max(count.request(r) for r in ours)
    result.aims.append(
        Aim(
            f"every request fits the window minus the answer ({label})",
            largest <= budget,
            f"largest {largest:,} of {budget:,} ({count.name})",
            value=float(largest),
            limit=float(budget),
            unit="tokens",
        )
    )
    result.notes.append(
        f"{label}: {len(ours)} requests trimmed in steps (a drop leaves {headroom:.0%} of the "
        f"past's room free), {len(before)} one turn at a time, {QUESTIONS} questions each; the "
        "first request of each conversation has no previous one and is not counted in the "
        f"shares. {_new_share(ours, count):.0%} of our prompt tokens "
        f"({_new_share(before, count):.0%} of the reference's) are messages the previous "
        "request did not have (tool results, questions, answers), which no trimming can "
        "repeat. A provider caches in blocks (OpenAI: from 1,024 tokens, in steps of 128), "
        "so what it bills as cached is somewhat lower than the repeated share."
    )
