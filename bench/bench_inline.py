"""inline: how soon `@bot words` typed in any chat gets its answer, at 10,000 documents.

The real Dispatcher (the chat context, pairing and access checks, the inline router, the search
within the asker's scope, the deep-link ids written to the source-link store) on a Bot whose
session is the test suite's fake Telegram; the time is counted from the update handed to the
Dispatcher to the answerInlineQuery call reaching the fake Bot API. No model is involved.

Cold: a user's first query with these words (searched, its links written). Cached: the same
user typing the same words again within the minute (`InlineSearch` answers from memory). The
queries are the search benchmark's mix (inflected Russian, English, phrases, globs, words with
no hit) plus a word typed letter by letter, as Telegram sends it while the user types; each is
asked by fresh users over the whole folder, and by users whose scope is one top folder.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiogram import Bot, Dispatcher
from aiogram.methods import TelegramMethod

from bench import corpus
from bench.context import Context
from bench.lexicon import FOLDERS_RU
from bench.queries import query_mix
from bench.results import Aim, BenchResult, Metric
from bench.stats import p95
from bench.toolbox import wait_ready
from bot.services import close_services, open_services
from bot.settings.model import Settings
from bot.telegram.app import build_dispatcher
from bot.telegram.tuning import Tuning
from tests.fakes.accounts import BOT_TOKEN
from tests.fakes.fake_telegram import FakeTelegramSession
from tests.fakes.updates import Updates

TITLE = "inline: answerInlineQuery p95, update in to answer sent, cold and cached"
AIM_MS = 300.0
TYPED = "отпусками"
"""Typed letter by letter from its third letter, as the client sends queries meanwhile."""
FIRST_USER = 600_000
SCOPED_USER = 700_000
Asked = Callable[[int, str], Awaitable[tuple[float, tuple[str, ...]]]]
"""Feeds one query: its milliseconds to the answer, and the ids of the results answered."""


def variants(quick: bool) -> list[str]:
    """1,000 documents in quick mode, 10,000 in a full run (the size the aim speaks of)."""
    return ["1000"] if quick else ["10000"]


def timeout_s(quick: bool) -> float:
    """Generating and indexing 10,000 documents takes a few minutes on a busy machine."""
    return 600.0 if quick else 2400.0


def _words() -> list[str]:
    typing = [TYPED[:n] for n in range(3, len(TYPED) + 1)]
    return [query.text for query in query_mix()] + typing


def _scopes_file(path: Path, users: range) -> Path:
    """Each scoped user sees one top folder of the corpus."""
    lines = [f'{user} = ["{FOLDERS_RU[0]}"]' for user in users]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _asker(dp: Dispatcher, bot: Bot, session: FakeTelegramSession) -> Asked:
    """Feeds one inline query through the Dispatcher, timed to the answer's arrival."""
    updates = Updates(bot)
    answered: list[tuple[float, tuple[str, ...]]] = []

    async def hook(method: TelegramMethod[Any]) -> None:
        ids = tuple(str(result.id) for result in getattr(method, "results", ()))
        answered.append((time.perf_counter(), ids))

    session.hooks["answerInlineQuery"] = hook

    async def ask(user_id: int, words: str) -> tuple[float, tuple[str, ...]]:
        answered.clear()
        update = updates.inline_query(words, user_id=user_id)
        started = time.perf_counter()
        await dp.feed_update(bot, update)
        session.calls.clear()
        if len(answered) != 1:
            msg = f"the inline query {words!r} got {len(answered)} answers"
            raise RuntimeError(msg)
        at, ids = answered[0]
        return (at - started) * 1000.0, ids

    return ask


@dataclass
class Rounds:
    """Cold and cached times; `remade`: cached answers that were searched again (their
    results carry new ids), which a rescan of the folder in between would cause."""

    cold: list[float] = field(default_factory=list)
    cached: list[float] = field(default_factory=list)
    remade: int = 0


async def _rounds(ask: Asked, first_user: int, passes: int) -> Rounds:
    """Every query by `passes` fresh users, each asked twice in a row: cold, then cached."""
    rounds = Rounds()
    for number in range(passes):
        user = first_user + number
        for words in _words():
            cold_ms, cold_ids = await ask(user, words)
            cached_ms, cached_ids = await ask(user, words)
            rounds.cold.append(cold_ms)
            rounds.cached.append(cached_ms)
            rounds.remade += cached_ids != cold_ids
    return rounds


async def run(ctx: Context, variant: str) -> BenchResult:
    """One corpus size: start the bot over it, then the queries, whole-folder and scoped."""
    docs = int(variant)
    result = BenchResult("inline", TITLE)
    root = corpus.ensure(ctx.workdir, docs, ctx.python, ctx.child_env())
    passes = 2 if ctx.quick else 5
    data = ctx.scratch(f"inline-{docs}-data")
    settings = Settings(
        _env_file=None,
        bot_token=BOT_TOKEN,
        openai_api_key="bench-key",
        openai_base_url="http://127.0.0.1:9/v1",  # never called: inline search asks no model
        sandbox_dir=root,
        data_dir=data,
        allow_all=True,
        admin_ids=frozenset({1}),  # an admin exists: no pairing code is offered in the log
        rate_limit_per_hour=0,
        scopes_file=_scopes_file(
            ctx.scratch(f"inline-{docs}-scopes") / "scopes.toml",
            range(SCOPED_USER, SCOPED_USER + passes),
        ),
    )
    services = await open_services(settings)
    session = FakeTelegramSession()
    bot = Bot(BOT_TOKEN, session=session)
    dp = build_dispatcher(settings, services, tuning=Tuning())
    try:
        build_s = await wait_ready(services.toolbox)
        await services.toolbox.wait_synced()  # the rescan after start, not during the queries
        await dp.emit_startup(bot=bot, **dp.workflow_data)
        session.calls.clear()
        ask = _asker(dp, bot, session)
        first, _ = await ask(FIRST_USER - 1, "договор")
        whole = await _rounds(ask, FIRST_USER, passes)
        scoped = await _rounds(ask, SCOPED_USER, passes)
    finally:
        await dp.emit_shutdown(bot=bot, **dp.workflow_data)
        await close_services(services)
    queries = len(_words())
    where = f"{docs:,} docs"
    result.metrics += [
        Metric(f"{where}: first query after start (loads the index engine)", "ms", [first]),
        Metric(
            f"{where}, whole folder: cold (searched, links written)",
            "ms",
            whole.cold,
            note=f"{queries} queries × {passes} users",
        ),
        Metric(f"{where}, whole folder: cached (same user, same words)", "ms", whole.cached),
        Metric(f"{where}, one-folder scope: cold", "ms", scoped.cold),
        Metric(f"{where}, one-folder scope: cached", "ms", scoped.cached),
    ]
    for label, samples in [
        ("cold, whole folder", whole.cold),
        ("cached, whole folder", whole.cached),
        ("cold, one-folder scope", scoped.cold),
        ("cached, one-folder scope", scoped.cached),
    ]:
        value = p95(samples)
        result.aims.append(
            Aim(
                f"answerInlineQuery ≤ {AIM_MS:.0f} ms p95 at {docs:,} documents ({label})",
                value <= AIM_MS,
                f"p95 {value:.1f} ms over {len(samples)} queries",
                value=value,
                limit=AIM_MS,
                unit="ms",
            )
        )
    result.notes.append(
        f"inline: the index over {docs:,} documents was ready {build_s:.0f} s after start; "
        f"{whole.remade + scoped.remade} of {len(whole.cached) + len(scoped.cached)} cached "
        "answers were searched again (a rescan of the folder in between drops what is kept); "
        "the fake Bot API is in the same process (no network), as in the streaming benchmark."
    )
    return result
