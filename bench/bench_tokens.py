"""tokens: prompt tokens of a conversation, our trimming and pruning vs a loop that keeps all.

Both sides talk to the same fake model (in this process, recording every request) that plays
search → read → answer for each question, over the real Toolbox on a generated corpus, so every
question reads a full page (~12,000 characters). Ten questions in an 8k window, where trimming
to the window does the work; thirty in a 32k and a 128k window, where everything would fit for
a while and pruning old tool results to stubs does it; and thirty in a 128k window bounded by
CONTEXT_BUDGET_TOKENS. Tokens are counted on the recorded requests two ways: o200k (what an
OpenAI server would bill; the fake reports it as `usage`) and our own estimator, uncalibrated.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from typing import Any, cast

from openai import AsyncOpenAI

from bench import corpus
from bench.agent_setup import agent_config
from bench.context import Context
from bench.fake_model import Script, playing
from bench.queries import query_mix
from bench.results import Aim, BenchResult, Metric
from bench.tokenizer import ReferenceCounter, reference_counter
from bench.toolbox import started_toolbox
from bot.agent import Agent, HistoryStore
from tools import Toolbox

TITLE = "tokens: a conversation with large reads, our trimming vs a naive keep-everything loop"
QUERIES = [
    "отпуск",
    "договор",
    "премия",
    "командировка",
    "налог",
    "annual report",
    "регламент",
    "страховка",
    "пароль",
    "шарлотка",
]
LONG = 30
OUTPUT_TOKENS = 2_048
MODEL = "fake-model"
BUDGET = 16_000
"""CONTEXT_BUDGET_TOKENS of the bounded variant."""
_COUNT_WORDS = {10: "ten", 30: "thirty"}


@dataclass(frozen=True, slots=True)
class _Variant:
    """A window, how many questions, and CONTEXT_BUDGET_TOKENS (0: none)."""

    window: int
    questions: int
    budget: int = 0

    @property
    def label(self) -> str:
        bounded = f", CONTEXT_BUDGET_TOKENS={self.budget}" if self.budget else ""
        return f"{self.window // 1000}k window{bounded}"

    @property
    def prompt_budget(self) -> int:
        room = self.window - OUTPUT_TOKENS
        return min(room, self.budget) if self.budget else room


def variants(quick: bool) -> list[str]:
    """8k with ten questions only in quick mode; then 32k and 128k with thirty, and 128k
    bounded by CONTEXT_BUDGET_TOKENS."""
    return ["8000"] if quick else ["8000", "32000", "128000", f"128000-{BUDGET}"]


def _variant(text: str) -> _Variant:
    window, _, budget = text.partition("-")
    size = int(window)
    return _Variant(size, 10 if size <= 8_000 else LONG, int(budget or 0))


def _questions(count: int) -> list[str]:
    """The ten of the 8k rows, or the first `count` of the query mix."""
    queries = QUERIES if count == len(QUERIES) else [q.text for q in query_mix()][:count]
    return [f"Вопрос {i + 1}, найди в документах: {q}" for i, q in enumerate(queries)]


async def _ours(
    fake: Any, toolbox: Toolbox, variant: _Variant, ctx: Context
) -> list[dict[str, Any]]:
    start = len(fake.requests)
    client = AsyncOpenAI(base_url=fake.base_url, api_key="bench", max_retries=0, timeout=60)
    name = f"tokens-{variant.window}-{variant.budget}"
    history = await HistoryStore.open(ctx.scratch(name) / "history.sqlite3")
    config = agent_config(MODEL, variant.window, OUTPUT_TOKENS, budget=variant.budget)
    agent = Agent(config, client, toolbox, history)
    try:
        for question in _questions(variant.questions):
            await agent.ask("bench:tokens", question)
    finally:
        await history.close()
        await client.close()
    return list(fake.requests[start:])


async def _naive(fake: Any, toolbox: Toolbox, count: int) -> list[dict[str, Any]]:
    """Keep every message forever; no counting, no trimming; the bot's own system prompt."""
    start = len(fake.requests)
    client = AsyncOpenAI(base_url=fake.base_url, api_key="bench", max_retries=0, timeout=60)
    prompt = agent_config(MODEL, 8_000, OUTPUT_TOKENS).system_prompt
    messages: list[dict[str, Any]] = [{"role": "system", "content": prompt}]
    try:
        for question in _questions(count):
            messages.append({"role": "user", "content": question})
            for _ in range(7):
                reply = await client.chat.completions.create(
                    model=MODEL,
                    messages=cast(Any, messages),
                    tools=cast(Any, toolbox.specs),
                    max_tokens=OUTPUT_TOKENS,
                )
                message = reply.choices[0].message
                messages.append(message.model_dump(exclude_none=True))
                if not message.tool_calls:
                    break
                for call in message.tool_calls:
                    function = call.function  # type: ignore[union-attr]
                    result = await toolbox.execute(function.name, function.arguments)
                    messages.append(
                        {"role": "tool", "tool_call_id": call.id, "content": result.text}
                    )
    finally:
        await client.close()
    return list(fake.requests[start:])


def _per_question(requests: list[dict[str, Any]], count: Any) -> list[float]:
    """Prompt tokens summed per question (a question starts at a request ending in `user`)."""
    totals: list[float] = []
    for body in requests:
        messages = body.get("messages") or []
        if messages and messages[-1].get("role") == "user":
            totals.append(0.0)
        if not totals:
            totals.append(0.0)
        totals[-1] += count(body)
    return totals


def _estimator() -> Any:
    """The agent's own estimator, uncalibrated and never exact; None if it has moved."""
    try:
        from bot.agent.tokens import TokenCounter  # noqa: PLC0415 - internal, may move
    except ImportError:
        return None
    return TokenCounter()


def _counters(reference: ReferenceCounter) -> dict[str, Any]:
    estimator = _estimator()
    if estimator is None:
        return {reference.name: reference.request}

    def ours(body: dict[str, Any]) -> int:
        tools = body.get("tools") or []
        return int(estimator.messages(body.get("messages") or []) + estimator.tools(tools))

    return {reference.name: reference.request, "our estimator": ours}


@dataclass(frozen=True, slots=True)
class _Counted:
    """The naive loop's requests as counted: per question by each counter, the largest
    request and how many there were (the requests themselves are not kept)."""

    per_question: dict[str, list[float]]
    largest: int
    requests: int


_NAIVE: dict[int, _Counted] = {}
"""The naive loop's counts by number of questions: it does not depend on the window, so the
variants with thirty questions share one run."""


async def _naive_counted(
    fake: Any, toolbox: Toolbox, count: int, reference: ReferenceCounter
) -> _Counted:
    if count not in _NAIVE:
        naive = await _naive(fake, toolbox, count)
        _NAIVE[count] = _Counted(
            {name: _per_question(naive, c) for name, c in _counters(reference).items()},
            max(reference.request(b) for b in naive),
            len(naive),
        )
    return _NAIVE[count]


async def run(ctx: Context, variant: str) -> BenchResult:
    """One window size: our agent's requests and the naive loop's, counted two ways."""
    chosen = _variant(variant)
    result = BenchResult("tokens", TITLE)
    root = corpus.ensure(ctx.workdir, 100, ctx.python, ctx.child_env())
    reference = reference_counter()
    fake = await playing(Script(0.0, reference.request, itertools.count(1)))
    toolbox, _ = await started_toolbox(root, ctx.scratch(f"tokens-data-{variant}"))
    try:
        ours = await _ours(fake, toolbox, chosen, ctx)
        naive = await _naive_counted(fake, toolbox, chosen.questions, reference)
        specs = toolbox.specs
    finally:
        await toolbox.close()
        await fake.close()
    label = chosen.label
    budget = chosen.prompt_budget
    questions = _COUNT_WORDS.get(chosen.questions, str(chosen.questions))
    for name, count in _counters(reference).items():
        our_q = _per_question(ours, count)
        naive_q = naive.per_question[name]
        result.metrics.append(
            Metric(
                f"{label}: prompt tokens per question ({name})",
                "tokens",
                our_q,
                reference=naive_q,
                reference_label="naive loop",
                ratio_ours_over_ref=True,
            )
        )
        result.metrics.append(
            Metric(
                f"{label}: prompt tokens, all {questions} questions ({name})",
                "tokens",
                [sum(our_q)],
                reference=[sum(naive_q)],
                reference_label="naive loop",
                ratio_ours_over_ref=True,
            )
        )
    largest = max(reference.request(b) for b in ours)
    naive_largest = naive.largest
    result.metrics.append(
        Metric(
            f"{label}: largest single request ({reference.name})",
            "tokens",
            [float(largest)],
            reference=[float(naive_largest)],
            reference_label="naive loop",
            ratio_ours_over_ref=True,
            note=f"budget {budget}",
        )
    )
    total_ours = sum(reference.request(b) for b in ours)
    total_naive = int(sum(naive.per_question[reference.name]))
    share = total_ours / total_naive
    result.aims.append(
        Aim(
            f"tokens ≤ 50 % of the naive loop ({label}, {questions} questions)",
            share <= 0.5,
            f"{share:.0%} ({total_ours:,} vs {total_naive:,}, {reference.name})",
            value=share * 100,
            limit=50.0,
            unit="points",
        )
    )
    fits = "the budget" if chosen.budget else "the window minus the answer"
    result.aims.append(
        Aim(
            f"every request fits {fits} ({label})",
            largest <= budget,
            f"largest {largest:,} of {budget:,} ({reference.name})",
            value=float(largest),
            limit=float(budget),
            unit="tokens",
        )
    )
    exact_ours = _per_question(ours, reference.request)
    exact_naive = naive.per_question[reference.name]
    trimmed = [
        i + 1
        for i, (o, n) in enumerate(zip(exact_ours, exact_naive, strict=False))
        if o < 0.95 * n
    ]
    result.notes.append(
        f"{label}: the naive loop's largest request is {naive_largest:,} tokens against a "
        f"budget of {budget:,}; trimming and pruning changed the requests of questions "
        f"{_ranges(trimmed) or 'none'} (below 95 % of the naive loop's)."
    )
    result.notes.append(f"{label}: {_kept(ours)}")
    estimate = _counters(reference).get("our estimator")
    if estimate is not None:
        over = sum(estimate(b) for b in ours) / total_ours
        result.notes.append(
            f"{label}: our estimator, uncalibrated, counts {over:.2f}× what {reference.name} "
            "counts on our requests (above 1 errs safe but leaves window unused until the "
            "server's `usage` calibrates it)."
        )
    if chosen.window == 8000:
        _spec_rows(result, specs, reference)
    result.notes.append(
        f"{label}: {len(ours)} requests from our agent, {naive.requests} from the naive loop "
        f"({questions} questions, three model calls each). Our estimator's rows use a fresh, "
        "uncalibrated counter; in the run the agent also scales it up by the `usage` the fake "
        f"reports ({reference.name})."
    )
    return result


def _kept(requests: list[dict[str, Any]]) -> str:
    """What the last request still carries of the earlier questions: their answers, and the
    paths their reads named (in whole results or stubs), so a later question can use them."""
    last = requests[-1].get("messages") or []
    earlier = max(i for i, m in enumerate(last) if m.get("role") == "user")
    answers = [
        m for m in last[:earlier] if m.get("role") == "assistant" and not m.get("tool_calls")
    ]
    questions = sum(1 for m in last[:earlier] if m.get("role") == "user")
    reads = [
        call
        for m in last[:earlier]
        for call in m.get("tool_calls") or ()
        if call["function"]["name"] == "read_file"
    ]
    results = {
        m.get("tool_call_id"): str(m.get("content")) for m in last if m.get("role") == "tool"
    }
    named = sum(
        1
        for call in reads
        if json.loads(call["function"]["arguments"]).get("path", "\0")
        in results.get(call["id"], "")
    )
    return (
        f"the last request carries {questions} earlier questions with {len(answers)} answers; "
        f"of their {len(reads)} reads, {named} have the path read named in the result beside "
        "the call (whole or as a stub)."
    )


def _ranges(numbers: list[int]) -> str:
    """1, 2, 3, 5 as "1-3, 5"."""
    parts: list[str] = []
    for _, group in itertools.groupby(enumerate(numbers), lambda pair: pair[1] - pair[0]):
        run = [n for _, n in group]
        parts.append(f"{run[0]}-{run[-1]}" if len(run) > 2 else ", ".join(map(str, run)))
    return ", ".join(parts)


def _spec_rows(
    result: BenchResult, specs: list[dict[str, Any]], reference: ReferenceCounter
) -> None:
    exact = reference.tools(specs)
    estimator = _estimator()
    estimated = estimator.tools(specs) if estimator is not None else "n/a"
    result.metrics.append(
        Metric(
            "the three tool specs",
            "tokens",
            [float(exact)],
            note=f"{reference.name}; our estimator says {estimated}",
        )
    )
    result.aims.append(Aim("tool specs < 350 tokens", exact < 350, f"{exact} ({reference.name})"))
