"""workers: the 1,000-chat burst through real `python -m bot run` processes over HTTP webhooks.

The same burst as `concurrency` (every chat asks a three-round question at once, the model
taking 300 ms a call), but through the whole deployment: updates are posted to the webhook
with Telegram's secret header on up to 100 connections (Telegram's ceiling), each claimed in
the database, answered by the workers over HTTP to a fake Bot API, with the fake model, the
fake Bot API and PostgreSQL each in processes of their own. Four set-ups: SQLite with one
process, and PostgreSQL with 1, 2 and 4 workers (`WORKERS`).

Where the machine has the cores, each worker gets one of its own and the fakes, PostgreSQL and
the process posting the updates the others (`sched_setaffinity`), so the workers are measured
alone; where it has not (two workers on two cores), every side shares every core, and the
throughput two workers would have on cores of their own is derived from the CPU each one used.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import re
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg

from bench import corpus, machine, tether
from bench.context import Context
from bench.model_process import FakeModelProcess
from bench.postgres import BenchPostgres
from bench.processes import children, cores_of, cpu_seconds, peak_rss_mb, pin
from bench.results import Aim, BenchResult, Metric
from bench.stats import median
from tests.fakes.accounts import BOT_TOKEN
from tests.fakes.ports import free_port
from tests.fakes.postgres import PostgresMissing

TITLE = "workers: 1,000 chats × three-round questions over HTTP webhooks, 1 to 4 worker processes"
CHATS = 1_000
MODEL_DELAY_S = 0.3
IDEAL_S = 3 * MODEL_DELAY_S
ANSWER_MARK = "сахар - 1 стакан"
SECRET = "bench_webhook_secret"
CONNECTIONS = 100
SETUPS = (("sqlite", 1), ("postgres", 1), ("postgres", 2), ("postgres", 4))
QUICK_SETUPS = (("postgres", 1), ("postgres", 2))
"""What the aim compares; without PostgreSQL a quick run measures SQLite alone."""
AIM_SPEED_UP = 1.7
_START_S = 300.0
_BURST_S = 600.0


def timeout_s(quick: bool) -> float:
    """Four deployments started and stopped in turn need more than the runner's default."""
    return 1_200.0 if quick else 3_600.0


def variants(quick: bool) -> list[str]:
    """One variant that runs every set-up in turn, so they can be compared in one table.

    Quick mode bursts 200 chats once instead of 1,000 chats twice, and only in the set-ups the
    aim compares (a bot's start and warm-up take most of a set-up's time).
    """
    return ["all"]


@dataclass(frozen=True)
class Seats:
    """The cores the bot's workers run on, and those of the rest: fakes, PostgreSQL, sender."""

    workers: frozenset[int]
    rest: frozenset[int]

    @property
    def apart(self) -> bool:
        return not self.workers & self.rest

    def describe(self) -> str:
        if not self.apart:
            return f"every process shares {machine.cores_text(self.workers | self.rest)}"
        return (
            f"workers on {machine.cores_text(self.workers)}; fakes, PostgreSQL and sender on "
            f"{machine.cores_text(self.rest)}"
        )


def seats(workers: int, usable: list[int]) -> Seats:
    """Each worker a core of its own and the rest at least one, when the machine has them;
    otherwise every process shares every core."""
    if len(usable) > workers:
        return Seats(frozenset(usable[:workers]), frozenset(usable[workers:]))
    every = frozenset(usable)
    return Seats(every, every)


@dataclass
class Burst:
    """What the bursts of one set-up measured (one entry per burst in each list)."""

    label: str
    workers: int
    chats: int
    planned: Seats
    had: Seats | None = None
    """The cores the processes could run on during the burst, as the kernel said."""
    elapsed: list[float] = field(default_factory=list)
    worker_cpu: list[float] = field(default_factory=list)
    each_worker_cpu: list[list[float]] = field(default_factory=list)
    fakes_cpu: list[float] = field(default_factory=list)
    database_cpu: list[float] = field(default_factory=list)
    sender_cpu: list[float] = field(default_factory=list)
    delivered: int = 0
    twice: int = 0
    asked: int = 0
    peaks: list[float] = field(default_factory=list)
    load: list[float] = field(default_factory=list)

    @property
    def throughput(self) -> float:
        """Questions a second, from the median burst."""
        return self.chats / median(self.elapsed) if self.elapsed else math.nan

    def own_cores_s(self, run: int) -> tuple[float, str]:
        """How long burst `run` would take with each worker on a core of its own and the rest
        on one more, and what sets that time: the busiest worker's CPU, the rest's CPU, or the
        model's delay (a question's three calls, whatever the cores)."""
        rest = self.fakes_cpu[run] + self.sender_cpu[run]
        if not math.isnan(self.database_cpu[run]):
            rest += self.database_cpu[run]
        bounds = {
            "the busiest worker's CPU": max(self.each_worker_cpu[run]),
            "the fakes, PostgreSQL and the sender on one core": rest,
            "the model's delay": IDEAL_S,
        }
        limit = max(bounds, key=lambda name: bounds[name])
        return bounds[limit], limit

    @property
    def own_cores_throughput(self) -> float:
        """Questions a second with each worker on a core of its own, from the median burst."""
        times = [self.own_cores_s(run)[0] for run in range(len(self.elapsed))]
        return self.chats / median(times) if times else math.nan

    @property
    def own_cores_limit(self) -> str:
        return self.own_cores_s(len(self.elapsed) - 1)[1] if self.elapsed else "nothing"


class FakeBotApiProcess:
    """`python -m bench.fake_bot_api` as a child process."""

    def __init__(self, ctx: Context) -> None:
        self.process = subprocess.Popen(
            [ctx.python, "-m", "bench.fake_bot_api"],
            env=ctx.child_env(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline().split()
        if len(line) != 2:
            self.process.kill()
            msg = "the fake Bot API did not start"
            raise RuntimeError(msg)
        self.base_url, self.counting_url = line

    async def answers(self, client: aiohttp.ClientSession, chats: int = 0) -> dict[str, Any]:
        """The answer counts, once at least `chats` chats hold an answer."""
        url = f"{self.counting_url}/_bench/answers"
        params = {"mark": ANSWER_MARK, "chats": str(chats)}
        timeout = aiohttp.ClientTimeout(total=None)
        async with client.get(url, params=params, timeout=timeout) as reply:
            result: dict[str, Any] = await reply.json()
            return result

    def stop(self) -> None:
        _stop(self.process)


class BotProcess:
    """`python -m bot run` in webhook mode: a single process or a parent with its workers,
    on `cores` (its workers inherit them)."""

    def __init__(
        self,
        ctx: Context,
        env: dict[str, str],
        folder: Path,
        workers: int,
        cores: frozenset[int],
    ) -> None:
        self.workers = workers
        self.log_path = folder / "bot.log"
        with self.log_path.open("wb") as log:
            self.process = subprocess.Popen(
                [ctx.python, "-m", "bot", "run"],
                env=env,
                stdout=log,
                stderr=log,
                cwd=folder,
                preexec_fn=tether.child_dying_with_us(signal.SIGTERM, cores),  # noqa: PLW1509 - prctl in the child
            )

    def worker_pids(self) -> list[int]:
        return [self.process.pid] if self.workers == 1 else children(self.process.pid)

    async def wait_started(self) -> None:
        """Until every worker has said it started (its output is read again every 50 ms)."""
        deadline = time.monotonic() + _START_S
        while len(re.findall("started: model", self.output())) < self.workers:
            if self.process.poll() is not None or time.monotonic() > deadline:
                msg = f"the bot did not start: {self.output()[-2000:]}"
                raise RuntimeError(msg)
            await asyncio.sleep(0.05)

    def output(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self) -> int:
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=120)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait()


def _stop(process: subprocess.Popen[str]) -> None:
    if process.stdin is not None:
        process.stdin.close()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _update(update_id: int, chat: int) -> bytes:
    user = {"id": chat, "is_bot": False, "first_name": "U", "language_code": "ru"}
    message = {
        "message_id": 1,
        "date": int(time.time()),
        "chat": {"id": chat, "type": "private", "first_name": "U"},
        "from": user,
        "text": f"Вопрос {chat}: шарлотка",
    }
    return json.dumps({"update_id": update_id, "message": message}).encode()


async def _post_all(client: aiohttp.ClientSession, url: str, updates: list[bytes]) -> None:
    """Post every update as Telegram does; each must be acknowledged with 200."""
    headers = {"X-Telegram-Bot-Api-Secret-Token": SECRET, "Content-Type": "application/json"}

    async def post(body: bytes) -> None:
        async with client.post(url, data=body, headers=headers) as reply:
            if reply.status != 200:
                msg = f"the webhook answered {reply.status}"
                raise RuntimeError(msg)

    await asyncio.gather(*(post(body) for body in updates))


async def _new_database(server: BenchPostgres, name: str) -> str:
    admin = await asyncpg.connect(server.admin_url)
    try:
        await admin.execute(f'CREATE DATABASE "{name}" TEMPLATE template0')
    finally:
        await admin.close()
    return server.url_of(name)


@dataclass
class Rig:
    """The processes every set-up shares: the fake model, the fake Bot API, PostgreSQL."""

    ctx: Context
    model: FakeModelProcess
    api: FakeBotApiProcess
    postgres: BenchPostgres | None
    corpus: Path
    usable: list[int]
    """The cores this benchmark was given, all of which every side may use between set-ups."""

    def fakes_cpu(self) -> float:
        return cpu_seconds(self.model.process.pid) + cpu_seconds(self.api.process.pid)

    def database_cpu(self) -> float:
        return self.postgres.cpu_seconds() if self.postgres is not None else math.nan

    def seat(self, cores: frozenset[int]) -> None:
        """The fakes, PostgreSQL and this process (the sender) to `cores`."""
        for pid in self._pids():
            pin(pid, cores)
        os.sched_setaffinity(0, cores)

    def cores(self) -> frozenset[int]:
        """The cores the fakes, PostgreSQL and this process may run on now."""
        return frozenset().union(*(cores_of(pid) for pid in (*self._pids(), os.getpid())))

    def _pids(self) -> list[int]:
        pids = [self.model.process.pid, self.api.process.pid]
        return pids if self.postgres is None else [*pids, self.postgres.pid]


def _bot_env(
    rig: Rig, folder: Path, port: int, workers: int, database: str | None
) -> dict[str, str]:
    env = rig.ctx.child_env(
        BOT_TOKEN=BOT_TOKEN,
        OPENAI_API_KEY="bench-key",
        OPENAI_BASE_URL=rig.model.base_url,
        TELEGRAM_API_BASE=rig.api.base_url,
        TELEGRAM_API_LOCAL="true",
        WEBHOOK_URL=f"http://127.0.0.1:{port}/hook",
        WEBHOOK_LISTEN=f"127.0.0.1:{port}",
        WEBHOOK_SECRET=SECRET,
        WORKERS=str(workers),
        SANDBOX_DIR=str(rig.corpus),
        DATA_DIR=str(folder / "data"),
        ALLOW_ALL="true",
        RATE_LIMIT_PER_HOUR="0",
        REQUEST_TIMEOUT="120",
        MODEL_MAX_RETRIES="0",
        LOG_LEVEL="INFO",
    )
    env.pop("DATABASE_URL", None)
    if database is not None:
        env["DATABASE_URL"] = database
    return env


async def _wait_index(client: aiohttp.ClientSession, port: int) -> None:
    """Until the workers' search index reports ready (asked every 50 ms)."""
    deadline = time.monotonic() + _START_S
    while time.monotonic() < deadline:
        try:
            async with client.get(f"http://127.0.0.1:{port}/healthz") as reply:
                if (await reply.json()).get("index") == "ready":
                    return
        except (aiohttp.ClientError, ValueError):
            pass
        await asyncio.sleep(0.05)
    msg = "the search index was not ready in time"
    raise TimeoutError(msg)


async def _one_burst(
    rig: Rig,
    client: aiohttp.ClientSession,
    url: str,
    *,
    pids: list[int],
    updates: list[bytes],
    expected: int,
    burst: Burst,
) -> None:
    """Post `updates`, wait until `expected` chats hold an answer; the time and CPU it took."""
    cpu = [cpu_seconds(p) for p in pids]
    fakes, base, sender = rig.fakes_cpu(), rig.database_cpu(), time.process_time()
    burst.load.append(os.getloadavg()[0])
    started = time.perf_counter()
    await _post_all(client, url, updates)
    await asyncio.wait_for(rig.api.answers(client, expected), _BURST_S)
    burst.elapsed.append(time.perf_counter() - started)
    each = [cpu_seconds(p) - at_start for p, at_start in zip(pids, cpu, strict=True)]
    burst.each_worker_cpu.append(each)
    burst.worker_cpu.append(sum(each))
    burst.fakes_cpu.append(rig.fakes_cpu() - fakes)
    burst.database_cpu.append(rig.database_cpu() - base)
    burst.sender_cpu.append(time.process_time() - sender)


async def _run_setup(
    rig: Rig, client: aiohttp.ClientSession, engine: str, workers: int, first_chat: int
) -> Burst:
    """Start the bot, warm every worker up, burst, stop; what it measured."""
    chats = 200 if rig.ctx.quick else CHATS
    runs = 1 if rig.ctx.quick else 2
    label = f"{'PostgreSQL' if engine == 'postgres' else 'SQLite'}, {workers} worker(s)"
    planned = seats(workers, rig.usable)
    burst = Burst(label, workers, chats, planned)
    rig.seat(planned.rest)
    folder = rig.ctx.scratch(f"workers-{engine}-{workers}")
    database = None
    if engine == "postgres":
        assert rig.postgres is not None
        database = await _new_database(rig.postgres, f"bench_{workers}_{first_chat}")
    port = free_port()
    env = _bot_env(rig, folder, port, workers, database)
    bot = BotProcess(rig.ctx, env, folder, workers, planned.workers)
    url = f"http://127.0.0.1:{port}/hook"
    try:
        await bot.wait_started()
        await _wait_index(client, port)
        before = (await rig.api.answers(client))["chats"]
        warm = [_update(first_chat + i, first_chat + i) for i in range(4 * workers)]
        await _post_all(client, url, warm)
        expected = before + len(warm)
        await asyncio.wait_for(rig.api.answers(client, expected), _BURST_S)
        next_chat = first_chat + len(warm)
        pids = bot.worker_pids()
        burst.had = Seats(frozenset().union(*(cores_of(p) for p in pids)), rig.cores())
        for _ in range(runs):
            updates = [_update(next_chat + i, next_chat + i) for i in range(chats)]
            next_chat += chats
            expected += chats
            await _one_burst(
                rig, client, url, pids=pids, updates=updates, expected=expected, burst=burst
            )
        counts = await rig.api.answers(client)
        burst.delivered = int(counts["chats"]) - before - len(warm)
        burst.twice = int(counts["twice"])
        burst.asked = chats * runs
        burst.peaks = [peak_rss_mb(p) for p in pids]
    finally:
        code = bot.stop()
    if code != 0:
        msg = f"{label}: the bot exited with {code}: {bot.output()[-2000:]}"
        raise RuntimeError(msg)
    return burst


def _setups(quick: bool, postgres: bool) -> list[tuple[str, int]]:
    if not postgres:
        return [("sqlite", 1)]
    return list(QUICK_SETUPS if quick else SETUPS)


async def run(ctx: Context, variant: str) -> BenchResult:
    """Every set-up in turn on one fake model, one fake Bot API and one PostgreSQL."""
    result = BenchResult("workers", TITLE)
    env = ctx.child_env()
    root = corpus.ensure(ctx.workdir, 100, ctx.python, env)
    try:
        postgres: BenchPostgres | None = BenchPostgres.start()
    except PostgresMissing as exc:
        postgres = None
        result.notes.append(f"PostgreSQL set-ups skipped: {exc}")
    model = FakeModelProcess.start(ctx.python, env, delay_s=MODEL_DELAY_S)
    api = FakeBotApiProcess(ctx)
    usable = machine.usable_cores()
    rig = Rig(ctx, model, api, postgres, root, usable)
    bursts: list[Burst] = []
    try:
        connector = aiohttp.TCPConnector(limit=CONNECTIONS)
        async with aiohttp.ClientSession(connector=connector) as client:
            first_chat = 1_000_000
            for engine, workers in _setups(ctx.quick, postgres is not None):
                bursts.append(await _run_setup(rig, client, engine, workers, first_chat))
                first_chat += 10_000
    finally:
        os.sched_setaffinity(0, usable)
        api.stop()
        model.stop()
        if postgres is not None:
            postgres.stop()
    for burst in bursts:
        result.metrics.extend(_metrics(burst))
        result.aims.extend(_aims(burst))
    result.aims.extend(_speed_up(bursts))
    result.notes.extend(_notes(bursts))
    return result


def _metrics(b: Burst) -> list[Metric]:
    per_question = median(b.worker_cpu) / b.chats * 1000
    return [
        Metric(
            f"{b.label}: all {b.chats:,} answered, wall time",
            "s",
            b.elapsed,
            note=f"{b.throughput:.0f} questions/s; ideal {IDEAL_S:.1f} s; {_cores(b)}",
        ),
        Metric(
            f"{b.label}: CPU of the bot's workers per question",
            "ms",
            [c / b.chats * 1000 for c in b.worker_cpu],
            note=f"{median(b.worker_cpu):.1f} s of CPU a burst in all workers; "
            f"{1000 / per_question:.0f} questions/s per core at this cost",
        ),
        Metric(
            f"{b.label}: answers delivered",
            "chats",
            [float(b.delivered)],
            note=f"of {b.asked:,} questions; {b.twice} chat(s) answered twice",
        ),
        Metric(
            f"{b.label}: peak RSS per worker",
            "MB",
            [max(b.peaks)] if b.peaks else [math.nan],
            note="each: " + ", ".join(f"{p:.0f}" for p in b.peaks),
        ),
        Metric(
            f"{b.label}: CPU of the fake model and fake Bot API / PostgreSQL / the sender",
            "s",
            b.fakes_cpu,
            note=f"PostgreSQL {median(b.database_cpu):.1f} s, the process posting the "
            f"updates {median(b.sender_cpu):.1f} s, a burst",
        ),
    ]


def _aims(b: Burst) -> list[Aim]:
    return [
        Aim(
            f"every question answered, once ({b.label})",
            b.delivered == b.asked and b.twice == 0,
            f"{b.delivered} of {b.asked} chats answered, {b.twice} twice",
            value=float(b.delivered),
            limit=float(b.asked),
            unit="answers",
            higher_is_better=True,
        )
    ]


def _cores(b: Burst) -> str:
    """The cores each side had during the burst, as the kernel reported them."""
    return (b.had or b.planned).describe()


def _speed_up(bursts: list[Burst]) -> list[Aim]:
    """Judged on the measured throughputs when the workers had cores the rest did not touch;
    otherwise on the throughput each side would have on cores of its own, from its CPU."""
    by_workers = {b.workers: b for b in bursts if b.label.startswith("PostgreSQL")}
    one, two = by_workers.get(1), by_workers.get(2)
    if one is None or two is None:
        return []
    measured = two.throughput / one.throughput
    derived = two.own_cores_throughput / one.own_cores_throughput
    apart = (one.had or one.planned).apart and (two.had or two.planned).apart
    judged = measured if apart else derived
    basis = (
        "measured with the fakes off the workers' cores"
        if apart
        else "judged on cores of their own (the machine has too few to pin both sides), "
        "from the CPU each side used"
    )
    detail = (
        f"{basis}; measured: {two.throughput:.0f} vs {one.throughput:.0f} questions/s = "
        f"{measured:.2f}× (1 worker: {_cores(one)}; 2 workers: {_cores(two)}); each worker on "
        f"a core of its own and the rest on one more: {two.own_cores_throughput:.0f} vs "
        f"{one.own_cores_throughput:.0f} questions/s = {derived:.2f}×, set by "
        f"{two.own_cores_limit} with 2 workers and {one.own_cores_limit} with 1"
    )
    return [
        Aim(
            f"2 workers ≥ {AIM_SPEED_UP}× the throughput of 1 (PostgreSQL, the fakes off the "
            "workers' cores)",
            judged >= AIM_SPEED_UP,
            detail,
            value=judged,
            limit=AIM_SPEED_UP,
            unit="×",
            higher_is_better=True,
        )
    ]


def _notes(bursts: list[Burst]) -> list[str]:
    notes = [
        f"Each set-up: a fresh `python -m bot run` (WORKERS as shown, logging at INFO, "
        "progress and streaming as by default), warmed up with 4 questions a worker, then "
        f"bursts of new chats posted on up to {CONNECTIONS} connections. The fake model "
        f"(three rounds, {MODEL_DELAY_S * 1000:.0f} ms a call) and the fake Bot API run in "
        "processes of their own, as does the throwaway PostgreSQL (fsync and synchronous "
        "commit off, as a test server), and their CPU is listed beside the workers'. "
        "PostgreSQL's CPU counts the server and the backends alive at the end of the burst.",
        "Cores: where the machine has one for each worker and one more, each worker gets its "
        "own and the fakes, PostgreSQL and the process posting the updates the rest "
        '(`sched_setaffinity`); otherwise every process shares every core. "On cores of its '
        "own\" is the time the busiest worker's CPU, the rest's CPU on one core, or the model's "
        f"{IDEAL_S:.1f} s a question would take, whichever is longest: what the burst would "
        "take on a machine with those cores, if each side's CPU per question stayed as "
        "measured.",
    ]
    for b in bursts:
        share = median(b.worker_cpu) + median(b.fakes_cpu) + median(b.sender_cpu)
        if not math.isnan(median(b.database_cpu)):
            share += median(b.database_cpu)
        each = b.each_worker_cpu[-1] if b.each_worker_cpu else []
        notes.append(
            f"{b.label}: {_cores(b)}. {share / median(b.elapsed):.2f} cores busy on average "
            f"during a burst ({median(b.worker_cpu) / median(b.elapsed):.2f} in the workers; "
            "CPU of each worker in the last burst: "
            + ", ".join(f"{c:.1f} s" for c in each)
            + f"); on cores of its own {b.own_cores_throughput:.0f} questions/s, set by "
            f"{b.own_cores_limit}; the machine's load average as each burst began: "
            + ", ".join(f"{load:.1f}" for load in b.load)
        )
    return notes
