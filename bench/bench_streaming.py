"""streaming: how soon an answer shows while the model writes it, and what that costs in calls.

The real Dispatcher (access, order, the question handler, the status message, the streaming
display, delivery) on a Bot whose session is the test suite's fake Telegram, with production
pacing (edits about once a second per chat, the first two in a row, so the first answer text
need not wait behind the status message; drafts about three times a second); the real Agent
over HTTP to the fake model in another process, which answers at once (no tools) with Markdown
prose streamed at about 50 tokens a second: 4 characters a piece, 20 ms apart.

Latency is counted from the moment the bot has the model's first piece of text (the agent's
first draft event) to the first draft or edit that carries answer text, beside the time the
model took to write the whole answer. Calls are every Bot API call one 2,000-character answer
costs, and how many drafts or edits a second it shows while it streams. Each answer is asked in
a chat of its own, all at once.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from aiogram import Bot
from aiogram.methods import TelegramMethod

from bench.context import Context
from bench.model_process import FakeModelProcess
from bench.results import Aim, BenchResult, Metric
from bench.stats import median
from bot.agent import AgentEvent, AnswerDraft, EventHandler
from bot.services import close_services, open_services
from bot.settings.model import Settings
from bot.telegram.app import build_dispatcher
from bot.telegram.tuning import Tuning
from tests.fakes.accounts import BOT_TOKEN, BOT_USERNAME
from tests.fakes.fake_telegram import FakeTelegramSession
from tests.fakes.updates import Updates, mention_entity

TITLE = "streaming: first answer text on screen, and Bot API calls per streamed answer"
PIECE_CHARS = 4
PIECE_DELAY_S = 0.02
LATENCY_CHARS = 400
LONG_CHARS = 2_000
AIM_MS = 400.0
_SHOWING = {"sendMessageDraft", "editMessageText", "sendMessage"}
ANSWER_START = "Д"  # the fake model's prose starts "Для шарлотки"; no status line does
THINKING_S = 1.0


def variants(quick: bool) -> list[str]:
    """A private chat (drafts), then a group (one message edited); a fresh process each."""
    del quick
    return ["private", "group"]


@dataclass
class Timeline:
    """When each chat's answer started and ended arriving, and when it first showed."""

    first_piece: dict[int, float] = field(default_factory=dict)
    last_piece: dict[int, float] = field(default_factory=dict)
    first_shown: dict[int, float] = field(default_factory=dict)

    def heard(self, chat_id: int, text: str) -> None:
        now = time.perf_counter()
        if text:
            self.first_piece.setdefault(chat_id, now)
            self.last_piece[chat_id] = now

    def showing(self, method: TelegramMethod[Any]) -> None:
        text = str(getattr(method, "text", "") or "")
        if method.__api_method__ in _SHOWING and text.startswith(ANSWER_START):
            chat_id = int(getattr(method, "chat_id", 0) or 0)
            self.first_shown.setdefault(chat_id, time.perf_counter())


def _watch_agent(agent: Any, timeline: Timeline) -> None:
    """Note when the agent hears each answer's text, on its way to the display."""
    ask = agent.ask

    async def listened(
        conversation: str, question: str, on_event: EventHandler | None = None, **more: Any
    ) -> Any:
        chat_id = int(conversation.split(":")[1])

        async def hear(event: AgentEvent) -> None:
            if isinstance(event, AnswerDraft):
                timeline.heard(chat_id, event.text)
            if on_event is not None:
                await on_event(event)

        return await ask(conversation, question, hear, **more)

    agent.ask = listened


def _question(updates: Updates, chat_id: int, group: bool) -> Any:
    if not group:
        return updates.message("Как испечь шарлотку?", user_id=chat_id)
    text = f"@{BOT_USERNAME} как испечь шарлотку?"
    return updates.message(
        text,
        user_id=500_000 + abs(chat_id) % 1000,
        chat_id=chat_id,
        chat_type="supergroup",
        entities=[mention_entity(text, f"@{BOT_USERNAME}")],
    )


async def _answers(
    ctx: Context, group: bool, chars: int, count: int, *, first_chat: int, thinking_s: float = 0.0
) -> tuple[Timeline, FakeTelegramSession, list[int]]:
    """`count` answers of `chars` characters, each in a chat of its own, all at once; the
    model starts writing `thinking_s` after each question."""
    server = FakeModelProcess.start(
        ctx.python,
        ctx.child_env(),
        delay_s=thinking_s,
        answer_chars=chars,
        stream_chars=PIECE_CHARS,
        stream_delay_s=PIECE_DELAY_S,
    )
    timeline = Timeline()
    session = FakeTelegramSession()
    for method in _SHOWING:
        session.hooks[method] = _hook(timeline)
    chats = [(-(10**12) - first_chat - i) if group else first_chat + i for i in range(count)]
    try:
        settings = Settings(
            _env_file=None,
            bot_token=BOT_TOKEN,
            openai_api_key="bench-key",
            openai_base_url=server.base_url,
            sandbox_dir=ctx.scratch(f"streaming-{first_chat}-sandbox"),
            data_dir=ctx.scratch(f"streaming-{first_chat}-data"),
            allow_all=True,
            rate_limit_per_hour=0,
            model_max_retries=0,
        )
        services = await open_services(settings)
        _watch_agent(services.agent, timeline)
        bot = Bot(BOT_TOKEN, session=session)
        dp = build_dispatcher(settings, services, tuning=Tuning())
        await dp.emit_startup(bot=bot, **dp.workflow_data)
        session.calls.clear()
        builder = Updates(bot)
        try:
            await asyncio.gather(
                *(dp.feed_update(bot, _question(builder, chat, group)) for chat in chats)
            )
        finally:
            await dp.emit_shutdown(bot=bot, **dp.workflow_data)
            await close_services(services)
    finally:
        server.stop()
    return timeline, session, chats


def _hook(timeline: Timeline) -> Any:
    async def hook(method: TelegramMethod[Any]) -> None:
        timeline.showing(method)

    return hook


async def run(ctx: Context, variant: str) -> BenchResult:
    """Latency over many short answers, then the calls of a few long ones."""
    group = variant == "group"
    where = "group (edits)" if group else "private chat (drafts)"
    result = BenchResult("streaming", TITLE)
    count = 10 if ctx.quick else 20
    timeline, _, chats = await _answers(ctx, group, LATENCY_CHARS, count, first_chat=7_000)
    latency = _latency(timeline, chats)
    result.metrics.append(_latency_metric(timeline, chats, f"{where}, model writes at once"))
    thought, _, chats = await _answers(
        ctx, group, LATENCY_CHARS, count, first_chat=9_000, thinking_s=THINKING_S
    )
    label = f"{where}, model writes {THINKING_S:g} s after the question"
    result.metrics.append(_latency_metric(thought, chats, label))
    result.aims.append(
        Aim(
            f"first answer text on screen < {AIM_MS:.0f} ms after the model's first piece "
            f"({where})",
            median(latency) < AIM_MS,
            f"median {median(latency):.0f} ms over {len(latency)} answers",
            value=median(latency),
            limit=AIM_MS,
            unit="ms",
        )
    )
    long_count = 2 if ctx.quick else 5
    timeline, session, chats = await _answers(ctx, group, LONG_CHARS, long_count, first_chat=8_000)
    result.metrics.extend(_calls(session, timeline, chats, where))
    result.notes.append(_note(session, chats, where, group))
    return result


def _latency(timeline: Timeline, chats: list[int]) -> list[float]:
    return [(timeline.first_shown[c] - timeline.first_piece[c]) * 1000 for c in chats]


def _latency_metric(timeline: Timeline, chats: list[int], label: str) -> Metric:
    writing = [(timeline.last_piece[c] - timeline.first_piece[c]) * 1000 for c in chats]
    return Metric(
        f"{label}: its first piece → first answer text on screen",
        "ms",
        _latency(timeline, chats),
        reference=writing,
        reference_label=f"the model writing the {LATENCY_CHARS}-character answer",
        ratio_ours_over_ref=True,
    )


def _per_chat(session: FakeTelegramSession, chats: list[int]) -> dict[int, Counter[str]]:
    counts: dict[int, Counter[str]] = {chat: Counter() for chat in chats}
    for call in session.calls:
        chat_id = getattr(call, "chat_id", None)
        if chat_id in counts:
            counts[int(chat_id)][call.__api_method__] += 1
    return counts


def _calls(
    session: FakeTelegramSession, timeline: Timeline, chats: list[int], where: str
) -> list[Metric]:
    counts = _per_chat(session, chats)
    totals = [float(sum(counts[c].values())) for c in chats]
    shown = [float(counts[c]["sendMessageDraft"] + counts[c]["editMessageText"]) for c in chats]
    seconds = [timeline.last_piece[c] - timeline.first_piece[c] for c in chats]
    rates = [n / s for n, s in zip(shown, seconds, strict=True)]
    return [
        Metric(f"{where}: Bot API calls per {LONG_CHARS:,}-character answer", "calls", totals),
        Metric(
            f"{where}: drafts and edits a second while the answer streams",
            "1/s",
            rates,
            note=f"over {median(seconds):.1f} s of streaming",
        ),
    ]


def _note(session: FakeTelegramSession, chats: list[int], where: str, group: bool) -> str:
    counts = _per_chat(session, chats)
    total: Counter[str] = Counter()
    for chat in chats:
        total.update(counts[chat])
    per_answer = ", ".join(f"{n / len(chats):.1f} {m}" for m, n in sorted(total.items()))
    pace = (
        "edits paced at 1 s a chat, two in a row after a quiet spell"
        if group
        else "drafts paced at 1/3 s a chat"
    )
    return (
        f"{where}: per {LONG_CHARS:,}-character answer: {per_answer}. Production Tuning "
        f"({pace}); the model streams {PIECE_CHARS} characters every "
        f"{PIECE_DELAY_S * 1000:.0f} ms (about 50 tokens a second) from a separate process."
    )
