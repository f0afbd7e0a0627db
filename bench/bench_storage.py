"""storage: what a question's storage work costs on SQLite and on PostgreSQL, in one run.

A question's storage work is what the agent and a webhook worker do around it: load the
conversation's last turns, begin a turn with the question, append six messages over three
rounds (a tool call and its result each, the answer last), finish the turn; a webhook worker
also claims the update, holds the conversation's lock, and finishes the claim. Measured one
question at a time (latency) and with many conversations at once (throughput). PostgreSQL is
a server started for the run on loopback with its own defaults (every commit flushed to disk);
SQLite is the bot's history file in WAL mode with synchronous=NORMAL, as shipped. Set
BENCH_DATABASE_URL to measure another server instead (a database is created and dropped).
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import asyncpg

from bench.context import Context
from bench.postgres import BenchPostgres, database_url
from bench.results import BenchResult, Metric
from bench.stats import median
from bot.agent import History, HistoryStore, KeyedLocks
from bot.storage import (
    AdvisoryConversationLocks,
    PostgresDatabase,
    PostgresUpdateClaims,
    SqliteUpdateClaims,
    UpdateClaims,
)
from bot.storage.history.postgres import PostgresHistory

TITLE = "storage: a question's storage work, SQLite vs PostgreSQL"
HISTORY_LIMIT = 20
PARALLEL = 32
TOOL_RESULT = "Строка из документа о порядке согласования договоров. " * 30  # ~1.6 kB


@dataclass
class Backend:
    """One backend's stores, as a worker would hold them."""

    label: str
    history: History
    claims: UpdateClaims
    locks: KeyedLocks


def variants(quick: bool) -> list[str]:
    """One variant: both backends are measured in the same process, side by side."""
    return ["both"]


async def question(backend: Backend, key: str, update_id: int, *, webhook: bool) -> None:
    """The storage work of one question (and, for `webhook`, of its update)."""
    if webhook and not await backend.claims.claim(update_id, owner="bench", lease_s=60.0):
        msg = f"update {update_id} was refused"
        raise RuntimeError(msg)
    async with _held(backend, key, webhook=webhook):
        await backend.history.load_turns(key, HISTORY_LIMIT)
        turn = await backend.history.begin_turn(key, {"role": "user", "content": "Как?"})
        for round_ in range(2):
            function = {"name": "search_files", "arguments": '{"query": "договор"}'}
            call = {"id": f"call_{round_}", "type": "function", "function": function}
            await backend.history.append(
                turn,
                [
                    {"role": "assistant", "content": None, "tool_calls": [call]},
                    {"role": "tool", "tool_call_id": f"call_{round_}", "content": TOOL_RESULT},
                ],
            )
        await backend.history.append(
            turn,
            [
                {"role": "assistant", "content": None, "tool_calls": []},
                {"role": "assistant", "content": "Договор согласуют юрист и директор."},
            ],
        )
        await backend.history.finish_turn(turn, done=True)
    if webhook:
        await backend.claims.finish(update_id)


@asynccontextmanager
async def _held(backend: Backend, key: str, *, webhook: bool) -> AsyncIterator[None]:
    if not webhook:
        yield
        return
    async with backend.locks.hold(key):
        yield


async def _latency(backend: Backend, count: int, *, webhook: bool, base: int) -> list[float]:
    """Milliseconds per question, one at a time over ten conversations."""
    samples = []
    for index in range(count):
        started = time.perf_counter()
        await question(backend, f"chat:{index % 10}", base + index, webhook=webhook)
        samples.append((time.perf_counter() - started) * 1000.0)
    return samples


async def _throughput(backend: Backend, count: int, *, base: int) -> float:
    """Questions per second with `PARALLEL` conversations at once (webhook work included)."""
    queue = list(range(count))

    async def conversation(slot: int) -> None:
        while queue:
            index = queue.pop()
            await question(backend, f"busy:{slot}", base + index, webhook=True)

    started = time.perf_counter()
    await asyncio.gather(*(conversation(slot) for slot in range(PARALLEL)))
    return count / (time.perf_counter() - started)


async def _measure(backend: Backend, quick: bool, result: BenchResult) -> None:
    count = 200 if quick else 1000
    await _latency(backend, 20, webhook=True, base=10_000_000)  # warm caches and the pool
    plain = await _latency(backend, count, webhook=False, base=0)
    webhook = await _latency(backend, count, webhook=True, base=1_000_000)
    rate = await _throughput(backend, count * 2, base=2_000_000)
    result.metrics.append(
        Metric(f"{backend.label}: history work per question, one at a time", "ms", plain)
    )
    result.metrics.append(
        Metric(f"{backend.label}: with the update claim and conversation lock", "ms", webhook)
    )
    result.metrics.append(
        Metric(
            f"{backend.label}: questions' storage work per second, {PARALLEL} chats at once",
            "q/s",
            [rate],
        )
    )
    result.notes.append(
        f"{backend.label}: median {median(plain):.2f} ms history only, "
        f"{median(webhook):.2f} ms with claim and lock, {rate:,.0f} questions/s in parallel"
    )


async def _sqlite(ctx: Context, result: BenchResult) -> None:
    folder = ctx.scratch("storage-sqlite")
    history = await HistoryStore.open(folder / "history.sqlite3")
    claims = await SqliteUpdateClaims.open(folder / "update_claims.sqlite3")
    try:
        await _measure(Backend("SQLite", history, claims, KeyedLocks()), ctx.quick, result)
    finally:
        await claims.close()
        await history.close()


async def _postgres(ctx: Context, result: BenchResult) -> None:
    given = os.environ.get("BENCH_DATABASE_URL", "").strip()
    server = None if given else BenchPostgres.start(durable=True)
    admin_url = server.admin_url if server is not None else given
    name = f"bench_storage_{os.getpid()}"
    admin = await asyncpg.connect(admin_url)
    await admin.execute(f'CREATE DATABASE "{name}"')
    try:
        database = await PostgresDatabase.open(database_url(admin_url, name))
        try:
            backend = Backend(
                "PostgreSQL",
                await PostgresHistory.open(database),
                PostgresUpdateClaims(database),
                KeyedLocks(across=AdvisoryConversationLocks(database)),
            )
            await _measure(backend, ctx.quick, result)
        finally:
            await database.close()
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()
        if server is not None:
            server.stop()
    where = "BENCH_DATABASE_URL" if given else "a server started for the run on loopback"
    result.notes.append(f"PostgreSQL: {where}, pool of 10 connections.")


async def run(ctx: Context, variant: str) -> BenchResult:
    """SQLite first, then PostgreSQL, on the same machine in the same process."""
    result = BenchResult("storage", TITLE)
    await _sqlite(ctx, result)
    await _postgres(ctx, result)
    result.notes.append(
        "A question: load the last 20 turns, begin a turn, append 6 messages in 3 calls "
        "(two ~1.6 kB tool results), finish it; the webhook variant adds claim, conversation "
        "lock (an advisory lock on PostgreSQL) and finish of the update."
    )
    return result
