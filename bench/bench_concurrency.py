"""concurrency: 1,000 chats at once, each a three-round question, through the real Dispatcher.

Real `Update` objects go through `Dispatcher.feed_update` (access, rate limit, per-chat order,
the question handler, progress edits, rendering, delivery) on a `Bot` whose session is the test
suite's fake Telegram; the real Agent talks over HTTP to a fake model in another process that
takes 300 ms per call; the real Toolbox serves the search and read on a small generated corpus.
The ideal is three calls back to back: 0.9 s. The reference is the same 3,000 calls made with
bare `AsyncOpenAI` and nothing else, all at once, to the same server.
"""

from __future__ import annotations

import asyncio
import subprocess
import time
from dataclasses import dataclass
from typing import Any, cast

from aiogram import Bot
from aiogram.methods import TelegramMethod
from aiogram.methods.base import TelegramType
from openai import AsyncOpenAI, DefaultAsyncHttpxClient

from bench import corpus
from bench.context import Context
from bench.fake_model import FakeModelProcess
from bench.results import Aim, BenchResult, Metric
from bench.stats import current_rss_mb, median, peak_rss_mb
from bench.toolbox import wait_ready
from bot.agent import build_client
from bot.services import close_services, open_services
from bot.settings.model import Settings
from bot.telegram.app import build_dispatcher
from tests.fakes.accounts import BOT_TOKEN
from tests.fakes.fake_telegram import FakeTelegramSession
from tests.fakes.updates import Updates

TITLE = "concurrency: 1,000 chats × three-round questions, 300 ms model, real Dispatcher"
CHATS = 1_000
MODEL_DELAY_S = 0.3
IDEAL_S = 3 * MODEL_DELAY_S
ANSWER_MARK = "сахар - 1 стакан"


def variants(quick: bool) -> list[str]:
    """Progress on (the default) and off, answers not streamed (STREAM=off, so the cost of
    showing answers as they are written shows beside the default), and the SDK's default httpx2
    transport instead of the aiohttp one the bot uses; a fresh process each.

    Quick mode runs the default and STREAM=off only, with 200 chats.
    """
    if quick:
        return ["progress-on", "stream-off"]
    return ["progress-on", "stream-off", "progress-off", "httpx-transport"]


def _client(settings: Settings, httpx: bool) -> AsyncOpenAI:
    """The bot's own client (aiohttp transport), or the same with the SDK's default httpx2."""
    client = build_client(settings)
    if not httpx:
        return client
    return client.with_options(http_client=DefaultAsyncHttpxClient())


def _settings(ctx: Context, base_url: str, variant: str) -> Settings:
    root = corpus.ensure(ctx.workdir, 100, ctx.python, ctx.child_env())
    return Settings(
        _env_file=None,
        bot_token=BOT_TOKEN,
        openai_api_key="bench-key",
        openai_base_url=base_url,
        sandbox_dir=root,
        data_dir=ctx.scratch(f"concurrency-{variant}"),
        allow_all=True,
        rate_limit_per_hour=0,
        request_timeout=60.0,
        model_max_retries=0,
        show_progress=variant != "progress-off",
        stream="off" if variant == "stream-off" else "auto",
    )


class _TallySession(FakeTelegramSession):
    """The fake Telegram session, keeping a tally instead of every call.

    The test suite's session records each call for its assertions; over two bursts that is
    some 20,000 request objects, which a real session never keeps and which would count as the
    bot's memory here. This one counts the calls and notes the chats whose answer was sent.
    """

    def __init__(self) -> None:
        super().__init__()
        self.api_calls = 0
        self.answered: set[int] = set()

    async def make_request(
        self,
        bot: Bot,
        method: TelegramMethod[TelegramType],
        timeout: int | None = None,  # noqa: ASYNC109 - the signature aiogram defines
    ) -> TelegramType:
        self.api_calls += 1
        text = str(getattr(method, "text", "") or "")
        if method.__api_method__ in {"sendMessage", "editMessageText"} and ANSWER_MARK in text:
            self.answered.add(int(cast(Any, method).chat_id))
        try:
            return await super().make_request(bot, method, timeout)
        finally:
            self.calls.clear()


async def _bare(settings: Settings, specs: list[dict[str, Any]], chats: int, httpx: bool) -> float:
    """Three dependent calls per chat, every chat at once, with the SDK alone."""
    client = _client(settings, httpx)

    async def one(index: int) -> None:
        messages: list[dict[str, Any]] = [{"role": "user", "content": f"Вопрос {index}: шарлотка"}]
        for _ in range(3):
            reply = await client.chat.completions.create(
                model=settings.model, messages=cast(Any, messages), tools=cast(Any, specs)
            )
            message = reply.choices[0].message
            messages.append(message.model_dump(exclude_none=True))
            for call in message.tool_calls or []:
                messages.append({"role": "tool", "tool_call_id": call.id, "content": "{}"})

    started = time.perf_counter()
    try:
        await asyncio.gather(*(one(i) for i in range(chats)))
    finally:
        await client.close()
    return time.perf_counter() - started


@dataclass
class Burst:
    """What the bursts of one variant measured (one entry per burst in each list)."""

    chats: int
    elapsed: list[float]
    cpu: list[float]
    bare: list[float]
    bare_cpu: list[float]
    peak: float
    rss_before: float
    baseline: float
    delivered: int
    api_calls: int
    failures: list[BaseException]

    @property
    def runs(self) -> int:
        return len(self.elapsed)


async def _feed_all(dp: Any, bot: Bot, updates: list[Any]) -> tuple[float, float, list[Any]]:
    """Wall and CPU seconds for every update fed at once, and what each feed returned."""
    cpu_started = time.process_time()
    started = time.perf_counter()
    outcomes = await asyncio.gather(
        *(dp.feed_update(bot, update) for update in updates), return_exceptions=True
    )
    return time.perf_counter() - started, time.process_time() - cpu_started, outcomes


async def _burst(ctx: Context, variant: str) -> Burst:
    """Bursts of every chat at once through one running Dispatcher, then the bare reference.

    Each burst uses new chats, so every question starts a fresh conversation.
    """
    chats = 200 if ctx.quick else CHATS
    runs = 1 if ctx.quick else 2
    httpx = variant == "httpx-transport"
    baseline = _import_baseline_mb(ctx)
    elapsed: list[float] = []
    cpu: list[float] = []
    outcomes: list[Any] = []
    bare: list[float] = []
    bare_cpu: list[float] = []
    server = FakeModelProcess.start(ctx.python, ctx.child_env(), delay_s=MODEL_DELAY_S)
    try:
        settings = _settings(ctx, server.base_url, variant)
        services = await open_services(settings, client=_client(settings, httpx))
        await wait_ready(services.toolbox, timeout_s=120)
        session = _TallySession()
        bot = Bot(BOT_TOKEN, session=session)
        dp = build_dispatcher(settings, services)
        builder = Updates(bot)
        await dp.emit_startup(bot=bot, **dp.workflow_data)
        rss_before = current_rss_mb()
        try:
            for attempt in range(runs):
                first = 500_000 + attempt * chats
                updates = [
                    builder.message(f"Вопрос {i}: шарлотка", user_id=first + i)
                    for i in range(chats)
                ]
                wall, used, results = await _feed_all(dp, bot, updates)
                elapsed.append(wall)
                cpu.append(used)
                outcomes.extend(results)
        finally:
            await dp.emit_shutdown(bot=bot, **dp.workflow_data)
            specs = services.toolbox.specs
            await close_services(services)
        peak = peak_rss_mb()
        for _ in range(runs):
            bare_cpu_started = time.process_time()
            bare.append(await _bare(settings, specs, chats, httpx))
            bare_cpu.append(time.process_time() - bare_cpu_started)
    finally:
        server.stop()
    return Burst(
        chats=chats,
        elapsed=elapsed,
        cpu=cpu,
        bare=bare,
        bare_cpu=bare_cpu,
        peak=peak,
        rss_before=rss_before,
        baseline=baseline,
        delivered=len(session.answered),
        api_calls=session.api_calls,
        failures=[o for o in outcomes if isinstance(o, BaseException)],
    )


async def run(ctx: Context, variant: str) -> BenchResult:
    """One burst and its table rows."""
    burst = await _burst(ctx, variant)
    label = {
        "progress-on": "progress on",
        "stream-off": "progress on, STREAM=off",
        "progress-off": "progress off",
        "httpx-transport": "progress on, SDK's default httpx2 transport",
    }[variant]
    result = BenchResult("concurrency", TITLE)
    result.metrics.extend(_metrics(burst, label))
    result.aims.extend(_aims(burst, label))
    result.notes.extend(_notes(burst, label, variant))
    return result


def _metrics(b: Burst, label: str) -> list[Metric]:
    return [
        Metric(
            f"{label}: all {b.chats:,} answered, wall time",
            "s",
            b.elapsed,
            reference=b.bare,
            reference_label=f"bare AsyncOpenAI, same {3 * b.chats:,} calls",
            ratio_ours_over_ref=True,
            note=f"ideal {IDEAL_S:.1f} s, {max(b.elapsed) / IDEAL_S:.2f}× the ideal at worst",
        ),
        Metric(
            f"{label}: CPU time of the bot process during the burst",
            "s",
            b.cpu,
            reference=b.bare_cpu,
            reference_label="bare AsyncOpenAI",
            ratio_ours_over_ref=True,
            note=f"{median(b.cpu) / b.chats * 1000:.1f} ms a question",
        ),
        Metric(
            f"{label}: answers delivered",
            "chats",
            [float(b.delivered)],
            note=f"of {b.chats * b.runs:,} questions in {b.runs} burst(s)",
        ),
        Metric(
            f"{label}: peak RSS of the bot process",
            "MB",
            [b.peak],
            note=f"{b.rss_before:.0f} MB before the burst; a bare `import aiogram, openai` "
            f"process: {b.baseline:.0f} MB",
        ),
    ]


def _aims(b: Burst, label: str) -> list[Aim]:
    scope = "" if b.chats == CHATS else f", quick run: {b.chats} chats"
    return [
        Aim(
            f"1,000 chats within 1.5× of the ideal ({label}{scope})",
            max(b.elapsed) <= 1.5 * IDEAL_S,
            f"{median(b.elapsed):.2f} s = {median(b.elapsed) / IDEAL_S:.2f}× the 0.9 s ideal "
            f"(median of {b.runs})",
            value=median(b.elapsed),
            limit=1.5 * IDEAL_S,
            unit="s",
        ),
        Aim(
            f"none lost ({label}{scope})",
            b.delivered == b.chats * b.runs,
            f"{b.delivered} of {b.chats * b.runs} answers delivered",
            value=float(b.delivered),
            limit=float(b.chats * b.runs),
            unit="answers",
            higher_is_better=True,
        ),
        Aim(
            f"< 300 MB ({label}{scope})",
            b.peak < 300.0,
            f"peak RSS {b.peak:.0f} MB",
            value=b.peak,
            limit=300.0,
            unit="MB",
        ),
    ]


def _notes(b: Burst, label: str, variant: str) -> list[str]:
    failures = b.failures
    notes = [
        f"{label}: {b.api_calls:,} Bot API calls recorded "
        f"({b.api_calls / (b.chats * b.runs):.1f} a question); "
        f"{len(failures)} handler exceptions"
        + (f", first: {type(failures[0]).__name__}: {failures[0]}" if failures else "")
    ]
    bare = median(b.bare)
    if bare > 1.5 * IDEAL_S:
        notes.append(
            f"{label}: the bare SDK alone needs {bare:.1f} s ({bare / IDEAL_S:.1f}× the "
            f"ideal) for the same calls at once, using {median(b.bare_cpu):.1f} s of CPU: one "
            "Python process on this machine is CPU-bound before the bot adds anything; ours "
            f"is {median(b.elapsed) / bare:.2f}× that floor."
        )
    if variant == "progress-on":
        notes.append(
            "The fake model runs in its own process (its CPU and memory are not counted); "
            "the corpus is 100 generated documents; production Tuning (edits paced at 1 s a "
            "chat). The bare reference makes the same three calls per chat with no bot, agent "
            "or tools, so it shows what the HTTP client and the 2-core machine allow. The "
            "fake Telegram session counts the calls instead of keeping them, as a real session "
            "keeps nothing; the fakes and the corpus module add about 3 MB to the process."
        )
    return notes


def _import_baseline_mb(ctx: Context) -> float:
    """RSS of a process that only imports aiogram and openai: the floor for any such bot."""
    code = (
        "import aiogram, aiogram.types, openai\n"
        "from bench.stats import current_rss_mb\n"
        "print(current_rss_mb())"
    )
    done = subprocess.run(
        [ctx.python, "-c", code], env=ctx.child_env(), capture_output=True, text=True, check=False
    )
    try:
        return float(done.stdout.strip())
    except ValueError:
        return float("nan")
