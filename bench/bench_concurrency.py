"""concurrency: 1,000 chats at once, each a three-round question, through the real Dispatcher.

Real `Update` objects go through `Dispatcher.feed_update` (access, rate limit, per-chat order,
the question handler, progress edits, rendering, delivery) on a `Bot` whose session is the test
suite's fake Telegram; the real Agent talks over HTTP to a fake model in another process that
takes 300 ms per call; the real Toolbox serves the search and read on a small generated corpus.
The floor, measured in the same process right after: the same three model calls per chat made
with bare `AsyncOpenAI` (streamed and read chunk by chunk where the bot streams), plus the Bot
API calls the bot made for each question (counted from what the fake session received: the
status message, its edits, the typing action, drafts, the answer) made with a bare aiogram `Bot`
on the same fake session, every chat at once. Three calls back to back (0.9 s) stays beside it
for information: no Python client reaches it on two cores.
"""

from __future__ import annotations

import asyncio
import subprocess
import time
from collections import Counter
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any, cast

from aiogram import Bot
from aiogram.methods import TelegramMethod
from aiogram.methods.base import TelegramType
from openai import AsyncOpenAI, DefaultAsyncHttpxClient

from bench import corpus
from bench.bare_stream import join_stream
from bench.context import Context
from bench.model_process import FakeModelProcess
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
FLOOR_FACTOR = 1.3
PEAK_MB = 260.0


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
        self.methods: Counter[str] = Counter()
        self.answered: set[int] = set()

    async def make_request(
        self,
        bot: Bot,
        method: TelegramMethod[TelegramType],
        timeout: int | None = None,  # noqa: ASYNC109 - the signature aiogram defines
    ) -> TelegramType:
        self.api_calls += 1
        self.methods[method.__api_method__] += 1
        text = str(getattr(method, "text", "") or "")
        if method.__api_method__ in {"sendMessage", "editMessageText"} and ANSWER_MARK in text:
            self.answered.add(int(cast(Any, method).chat_id))
        try:
            return await super().make_request(bot, method, timeout)
        finally:
            self.calls.clear()


def _shares(calls: Counter[str], chats: int, runs: int) -> list[Counter[str]]:
    """The Bot API calls of one burst dealt out to its chats: each chat gets the average
    number of calls of each method, the remainder going one each to the first chats."""
    shares = [Counter[str]() for _ in range(chats)]
    for name, count in calls.items():
        total = round(count / runs)
        for index, share in enumerate(shares):
            share[name] = total // chats + (1 if index < total % chats else 0)
    return shares


class _BareChat:
    """One chat's Bot API calls on a bare `Bot`: status first, edits and actions while the
    model works, the answer and the deletions last."""

    KNOWN = frozenset(
        {"sendMessage", "editMessageText", "sendChatAction", "sendMessageDraft", "deleteMessage"}
    )

    def __init__(self, bot: Bot, chat_id: int, share: Counter[str]) -> None:
        unknown = set(share) - self.KNOWN
        if unknown:
            msg = f"the floor has no bare call for {', '.join(sorted(unknown))}"
            raise ValueError(msg)
        self.bot = bot
        self.chat_id = chat_id
        self.left = Counter(share)
        self.sent: list[int] = []
        self.step = 0

    def _take(self, name: str) -> bool:
        if self.left[name] <= 0:
            return False
        self.left[name] -= 1
        return True

    async def send(self, text: str) -> None:
        if self._take("sendMessage"):
            message = await self.bot.send_message(self.chat_id, text, parse_mode="HTML")
            self.sent.append(message.message_id)

    async def during(self, rounds_left: int) -> None:
        """This round's part of the calls made while the model works."""
        for name in ("sendChatAction", "editMessageText", "sendMessageDraft"):
            for _ in range(-(-self.left[name] // rounds_left)):
                self._take(name)
                self.step += 1
                if name == "sendChatAction":
                    await self.bot.send_chat_action(self.chat_id, "typing")
                elif name == "editMessageText" and self.sent:
                    text = f"<i>Ищу в документах… {self.step}</i>"
                    await self.bot.edit_message_text(
                        text, chat_id=self.chat_id, message_id=self.sent[-1], parse_mode="HTML"
                    )
                elif name == "sendMessageDraft":
                    await self.bot.send_message_draft(
                        chat_id=self.chat_id,
                        draft_id=self.step,
                        text=f"Шарлотка: {ANSWER_MARK} {self.step}",
                    )

    async def finish(self) -> None:
        """The answer (and any other messages), then the deletions, oldest message first."""
        while self.left["sendMessage"] > 0:
            await self.send(f"<b>Шарлотка</b>: {ANSWER_MARK}, яйца - 3 штуки. {len(self.sent)}")
        while self.sent and self._take("deleteMessage"):
            await self.bot.delete_message(self.chat_id, self.sent.pop(0))


async def _floor(
    settings: Settings,
    specs: list[dict[str, Any]],
    shares: list[Counter[str]],
    first_chat: int,
    httpx: bool,
) -> float:
    """Three dependent model calls per chat with the SDK alone, and the chat's share of the
    bot's Bot API calls with a bare `Bot` on the same fake session; every chat at once.

    The calls are streamed when the bot streams (STREAM=auto): the same model calls, read
    chunk by chunk as a bare SDK user reads them."""
    client = _client(settings, httpx)
    bot = Bot(BOT_TOKEN, session=_TallySession())
    streamed = settings.stream != "off"

    async def one(index: int) -> None:
        chat = _BareChat(bot, first_chat + index, shares[index])
        await chat.send("<i>Думаю…</i>")
        messages: list[dict[str, Any]] = [{"role": "user", "content": f"Вопрос {index}: шарлотка"}]
        for round_ in range(3):
            await chat.during(3 - round_)
            ask = _streamed_call if streamed else _whole_call
            message, calls = await ask(client, settings.model, messages, specs)
            messages.append(message)
            messages.extend({"role": "tool", "tool_call_id": c, "content": "{}"} for c in calls)
        await chat.finish()

    started = time.perf_counter()
    try:
        await asyncio.gather(*(one(i) for i in range(len(shares))))
    finally:
        await client.close()
        await bot.session.close()
    return time.perf_counter() - started


async def _whole_call(
    client: AsyncOpenAI, model: str, messages: list[dict[str, Any]], specs: list[dict[str, Any]]
) -> tuple[dict[str, Any], list[str]]:
    """One call answered whole: the assistant message and its tool call ids."""
    reply = await client.chat.completions.create(
        model=model, messages=cast(Any, messages), tools=cast(Any, specs)
    )
    message = reply.choices[0].message
    return message.model_dump(exclude_none=True), [c.id for c in message.tool_calls or []]


async def _streamed_call(
    client: AsyncOpenAI, model: str, messages: list[dict[str, Any]], specs: list[dict[str, Any]]
) -> tuple[dict[str, Any], list[str]]:
    """One streamed call, its chunks joined into the assistant message as they come."""
    stream = await client.chat.completions.create(
        model=model, messages=cast(Any, messages), tools=cast(Any, specs), stream=True
    )
    message = await join_stream(stream)
    return message, [c["id"] for c in message.get("tool_calls", [])]


async def _timed(run: Awaitable[float]) -> tuple[float, float]:
    """Wall seconds `run` reports and the process CPU seconds it took."""
    cpu_started = time.process_time()
    wall = await run
    return wall, time.process_time() - cpu_started


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
    methods: Counter[str]
    failures: list[BaseException]

    @property
    def runs(self) -> int:
        return len(self.elapsed)

    def per_question_ms(self, cpu: list[float]) -> list[float]:
        return [c / self.chats * 1000 for c in cpu]

    @property
    def cpu_ratio(self) -> float:
        return median(self.cpu) / median(self.bare_cpu)

    @property
    def wall_ratio(self) -> float:
        return median(self.elapsed) / median(self.bare)

    @property
    def per_chat_kb(self) -> float:
        return (self.peak - self.rss_before) * 1024 / self.chats


async def _feed_all(dp: Any, bot: Bot, updates: list[Any]) -> tuple[float, float, list[Any]]:
    """Wall and CPU seconds for every update fed at once, and what each feed returned."""
    cpu_started = time.process_time()
    started = time.perf_counter()
    outcomes = await asyncio.gather(
        *(dp.feed_update(bot, update) for update in updates), return_exceptions=True
    )
    return time.perf_counter() - started, time.process_time() - cpu_started, outcomes


async def _burst(ctx: Context, variant: str) -> Burst:
    """Bursts of every chat at once through one running Dispatcher, then the floor.

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
        session.methods.clear()  # start-up's own calls are not a question's
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
        shares = _shares(session.methods, chats, runs)
        for attempt in range(runs):
            first = 900_000 + attempt * chats
            wall, used = await _timed(_floor(settings, specs, shares, first, httpx))
            bare.append(wall)
            bare_cpu.append(used)
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
        methods=session.methods,
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
    floor = "floor: bare AsyncOpenAI + bare aiogram Bot, same calls"
    return [
        Metric(
            f"{label}: all {b.chats:,} answered, wall time",
            "s",
            b.elapsed,
            reference=b.bare,
            reference_label=floor,
            ratio_ours_over_ref=True,
            note=f"for information: {median(b.elapsed) / IDEAL_S:.1f}× three calls back to back "
            f"({IDEAL_S:.1f} s)",
        ),
        Metric(
            f"{label}: CPU time per question",
            "ms",
            b.per_question_ms(b.cpu),
            reference=b.per_question_ms(b.bare_cpu),
            reference_label=floor,
            ratio_ours_over_ref=True,
            note=f"process CPU time ÷ {b.chats:,} questions a burst",
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
        Metric(
            f"{label}: memory per chat while it waits",
            "KB",
            [b.per_chat_kb],
            note=f"peak RSS growth over the burst ÷ {b.chats:,} chats",
        ),
    ]


def _aims(b: Burst, label: str) -> list[Aim]:
    scope = "" if b.chats == CHATS else f", quick run: {b.chats} chats"
    return [
        Aim(
            f"CPU per question ≤ {FLOOR_FACTOR}× the floor ({label}{scope})",
            b.cpu_ratio <= FLOOR_FACTOR,
            f"{median(b.per_question_ms(b.cpu)):.1f} ms against "
            f"{median(b.per_question_ms(b.bare_cpu)):.1f} ms = {b.cpu_ratio:.2f}× "
            f"(median of {b.runs})",
            value=b.cpu_ratio,
            limit=FLOOR_FACTOR,
            unit="×",
        ),
        Aim(
            f"wall time ≤ {FLOOR_FACTOR}× the floor's ({label}{scope})",
            b.wall_ratio <= FLOOR_FACTOR,
            f"{median(b.elapsed):.2f} s against {median(b.bare):.2f} s = {b.wall_ratio:.2f}× "
            f"(median of {b.runs})",
            value=b.wall_ratio,
            limit=FLOOR_FACTOR,
            unit="×",
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
            f"peak memory ≤ {PEAK_MB:.0f} MB ({label}{scope})",
            b.peak <= PEAK_MB,
            f"peak RSS {b.peak:.0f} MB, {b.per_chat_kb:.0f} KB a chat; a bare "
            f"`import aiogram, openai` process: {b.baseline:.0f} MB",
            value=b.peak,
            limit=PEAK_MB,
            unit="MB",
        ),
    ]


def _notes(b: Burst, label: str, variant: str) -> list[str]:
    failures = b.failures
    questions = b.chats * b.runs
    each = ", ".join(f"{name} {n / questions:.2f}" for name, n in sorted(b.methods.items()))
    notes = [
        f"{label}: {b.api_calls:,} Bot API calls recorded ({each} a question); "
        f"{len(failures)} handler exceptions"
        + (f", first: {type(failures[0]).__name__}: {failures[0]}" if failures else "")
    ]
    if variant == "progress-on":
        notes.append(
            "The fake model runs in its own process (its CPU and memory are not counted); "
            "the corpus is 100 generated documents; production Tuning (edits paced at 1 s a "
            "chat). The floor makes the same three model calls per chat and the same Bot API "
            "calls a question (the counts above, dealt out evenly to the chats) with a bare "
            "`AsyncOpenAI` and a bare aiogram `Bot` on the same fake session, with no "
            "dispatcher, agent, tools or storage: what the clients and the 2-core machine "
            "allow. The fake Telegram session counts the calls instead of keeping them, as a "
            "real session keeps nothing; the fakes and the corpus module add about 3 MB to the "
            "process."
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
