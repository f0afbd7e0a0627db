"""The parent of several webhook workers: one port for all, restarts, signals passed on.

The workers here are small real processes (an aiohttp server on the socket they are given,
answering with their pid), so the supervisor is tested apart from the bot; the bot's own
workers are tested in `tests/e2e/test_workers.py`.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import aiohttp
import pytest

from bot.entrance.loading import SettingsError, load_settings
from bot.telegram.workers import WORKER_ENV, Supervisor, bind_sockets, worker_seat
from tests.fakes.accounts import BOT_TOKEN

_WORKER = """
import os, sys
if os.environ.get("FAIL_AT_ONCE"):
    sys.exit(3)
if os.environ.get("REFUSED_IN") == os.environ["BOT_WORKER"].partition(":")[0]:
    print("the settings are refused", file=sys.stderr)
    sys.exit(2)
import asyncio, signal
from aiohttp import web
from bot.telegram.workers import worker_seat

async def main() -> None:
    seat = worker_seat(os.environ)
    async def pid(_: web.Request) -> web.Response:
        return web.Response(text=f"{seat.index} {os.getpid()}")
    app = web.Application()
    app.router.add_get("/", pid)
    runner = web.AppRunner(app)
    await runner.setup()
    await web.SockSite(runner, seat.socket()).start()
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    await stop.wait()
    await runner.cleanup()
    print(f"worker {seat.index} stopped cleanly", flush=True)

asyncio.run(main())
"""


@asynccontextmanager
async def _supervised(
    count: int, **env: str
) -> AsyncIterator[tuple[Supervisor, int, asyncio.Task[int]]]:
    sockets = bind_sockets("127.0.0.1", 0, count)
    port = sockets[0].getsockname()[1]
    environ = {**os.environ, **env}
    supervisor = Supervisor(sockets, environ, argv=("-c", _WORKER), first_pause_s=0.05)
    running = asyncio.create_task(supervisor.run())
    try:
        yield supervisor, port, running
    finally:
        supervisor.stop()
        await asyncio.wait_for(running, 30)
        for sock in sockets:
            sock.close()


async def _who_answers(port: int, *, connections: int) -> list[tuple[int, int]]:
    """(worker, pid) behind each of `connections` new connections; refused ones are left out."""
    answers: list[tuple[int, int]] = []
    connector = aiohttp.TCPConnector(force_close=True)
    async with aiohttp.ClientSession(connector=connector) as client:
        for _ in range(connections):
            try:
                async with client.get(f"http://127.0.0.1:{port}/") as reply:
                    index, pid = (await reply.text()).split()
                    answers.append((int(index), int(pid)))
            except aiohttp.ClientError:
                continue
    return answers


async def _until_answered_by(port: int, wanted: set[int], within_s: float) -> set[int]:
    """Ask on new connections until every worker in `wanted` has answered; the pids seen."""
    seen: dict[int, int] = {}
    async with asyncio.timeout(within_s):
        while not wanted <= set(seen):
            for index, pid in await _who_answers(port, connections=8):
                seen[index] = pid
    return set(seen.values())


class TestSockets:
    def test_all_sockets_share_one_port(self) -> None:
        sockets = bind_sockets("127.0.0.1", 0, 3)
        try:
            ports = {s.getsockname()[1] for s in sockets}
            assert len(ports) == 1
            assert all(s.get_inheritable() for s in sockets)
        finally:
            for sock in sockets:
                sock.close()

    def test_a_taken_port_is_refused_before_any_worker_starts(self) -> None:
        with socket.socket() as taken:
            taken.bind(("127.0.0.1", 0))
            taken.listen()
            with pytest.raises(OSError):
                bind_sockets("127.0.0.1", taken.getsockname()[1], 2)

    def test_a_worker_reads_its_seat(self) -> None:
        assert worker_seat({}) is None
        seat = worker_seat({WORKER_ENV: "3:17"})
        assert seat is not None
        assert (seat.index, seat.fd) == (3, 17)


class TestSupervisor:
    async def test_connections_reach_every_worker(self) -> None:
        async with _supervised(2) as (_, port, _running):
            pids = await _until_answered_by(port, {0, 1}, within_s=30)
            assert len(pids) == 2
            assert os.getpid() not in pids

    async def test_a_killed_worker_is_started_again_and_stop_ends_all_cleanly(
        self, caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
    ) -> None:
        with caplog.at_level(logging.INFO, logger="bot.telegram.workers"):
            async with _supervised(2) as (supervisor, port, running):
                before = await _until_answered_by(port, {0, 1}, within_s=30)
                victim = max(before)
                os.kill(victim, signal.SIGKILL)
                async with asyncio.timeout(30):
                    while True:
                        now = {pid for _, pid in await _who_answers(port, connections=8)}
                        if now - before:
                            break
                supervisor.stop()
                code = await asyncio.wait_for(running, 30)
        assert code == 0
        messages = [r.getMessage() for r in caplog.records]
        assert any(f"(pid {victim}) was killed by SIGKILL" in m for m in messages), messages
        out = capfd.readouterr().out
        assert out.count("worker 0 stopped cleanly") >= 1
        assert out.count("worker 1 stopped cleanly") >= 1

    async def test_a_worker_that_keeps_failing_at_once_stops_the_bot(
        self, caplog: pytest.LogCaptureFixture
    ) -> None:
        with caplog.at_level(logging.WARNING, logger="bot.telegram.workers"):
            async with _supervised(2, FAIL_AT_ONCE="1") as (_, _port, running):
                code = await asyncio.wait_for(running, 60)
        assert code == 1
        messages = " ".join(r.getMessage() for r in caplog.records)
        assert "exited with code 3" in messages
        assert "times in a row right after starting; stopping the bot" in messages

    async def test_a_worker_refused_its_settings_stops_the_others_and_the_bot_with_2(
        self, caplog: pytest.LogCaptureFixture
    ) -> None:
        with caplog.at_level(logging.INFO, logger="bot.telegram.workers"):
            async with _supervised(2, REFUSED_IN="1") as (_, _port, running):
                code = await asyncio.wait_for(running, 60)
        assert code == 2
        messages = [r.getMessage() for r in caplog.records]
        assert sum(m.startswith("worker 1 started") for m in messages) == 1, messages
        assert not [m for m in messages if "starting it again" in m], messages
        assert any("cannot run as set up; stopping the bot" in m for m in messages), messages
        assert any(m.startswith("worker 0 (pid") and "stopped" in m for m in messages), messages


class TestSettings:
    def test_several_webhook_workers_need_a_shared_database(self) -> None:
        with pytest.raises(SettingsError) as caught:
            load_settings(bot_token=BOT_TOKEN, webhook_url="https://bot.example.com/tg", workers=2)
        (problem,) = caught.value.problems
        assert "WORKERS=2 needs DATABASE_URL" in problem
        assert "WORKERS=1" in problem

    def test_polling_takes_the_setting_and_runs_one_process(self) -> None:
        assert load_settings(bot_token=BOT_TOKEN, workers=2).workers == 2
