"""Several bot processes on one PostgreSQL: every question answered once, in order, anywhere.

Real `python -m bot run` processes in webhook mode on loopback, a fake Bot API and a fake model
in this process, and a throwaway PostgreSQL. Updates are posted the way Telegram posts them
(the secret-token header, the same `update_id` again when it did not get its 200). Two
replicas on their own ports (as two machines behind a balancer) let a test choose which one an
update reaches; `WORKERS=2` runs the parent and its workers as a deployment does.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg
import pytest

from tests.fakes.accounts import BOT_TOKEN
from tests.fakes.bot_api_http import ApiCall, FakeBotApi
from tests.fakes.fake_llm import FakeLLM, Reply, text_reply
from tests.fakes.ports import free_port
from tests.fakes.processes import START_S, BotProcess, bot_env, wait_in_log

SECRET = "replica_secret-token"
LEASE_S = 3.0
STARTED = "started: model"
LISTENING = "webhook mode: listening on"
"""Logged once the webhook's socket takes connections; `STARTED` comes before it (aiogram's
startup runs as the web app is set up, before its site listens)."""


def _update(update_id: int, chat_id: int, text: str) -> dict[str, Any]:
    user = {"id": chat_id, "is_bot": False, "first_name": "U", "language_code": "ru"}
    return {
        "update_id": update_id,
        "message": {
            "message_id": update_id,
            "date": int(time.time()),
            "chat": {"id": chat_id, "type": "private", "first_name": "U"},
            "from": user,
            "text": text,
        },
    }


def _answer_to(question: str) -> str:
    return f"Ответ на «{question}»."


def _question_of(body: dict[str, Any]) -> str:
    users = [m for m in body.get("messages", []) if m.get("role") == "user"]
    return str(users[-1]["content"]) if users else ""


def _answers(calls: list[ApiCall], question: str) -> list[ApiCall]:
    """The messages that carry the answer to `question` (answers are not streamed here)."""
    answer = _answer_to(question)
    return [c for c in calls if c.method == "sendMessage" and answer in str(c.params.get("text"))]


class Model:
    """The fake model: answers each question by its text; held questions wait for release."""

    def __init__(self, llm: FakeLLM) -> None:
        self.llm = llm
        self.held: dict[str, asyncio.Event] = {}
        llm.responder = self._respond

    def hold(self, question: str) -> asyncio.Event:
        """Keep the answer to `question` until the returned event is set."""
        return self.held.setdefault(question, asyncio.Event())

    def asked(self, question: str) -> list[dict[str, Any]]:
        return [r for r in self.llm.requests if _question_of(r) == question]

    async def wait_asked(self, question: str, times: int = 1, within_s: float = 30) -> None:
        async with asyncio.timeout(within_s), self.llm._arrived:
            await self.llm._arrived.wait_for(lambda: len(self.asked(question)) >= times)

    async def _respond(self, body: dict[str, Any]) -> Reply:
        question = _question_of(body)
        gate = self.held.get(question)
        if gate is not None:
            await gate.wait()
        return text_reply(_answer_to(question))


class Replica:
    """One `python -m bot run` on a port of its own."""

    def __init__(self, process: BotProcess, port: int) -> None:
        self.process = process
        self.url = f"http://127.0.0.1:{port}/hook"

    async def post(self, update: dict[str, Any], *, client: aiohttp.ClientSession) -> int:
        """Post as Telegram does, on a new connection; the HTTP status."""
        headers = {"X-Telegram-Bot-Api-Secret-Token": SECRET, "Connection": "close"}
        async with client.post(self.url, data=json.dumps(update), headers=headers) as reply:
            return reply.status


@pytest.fixture
async def client() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(force_close=True)) as http:
        yield http


def _settings(
    folder: Path, port: int, *, sandbox: Path, llm: FakeLLM, api: FakeBotApi, database: str
) -> dict[str, str]:
    return bot_env(
        BOT_TOKEN=BOT_TOKEN,
        OPENAI_API_KEY="sk-workers-test-key-123",
        OPENAI_BASE_URL=llm.base_url,
        TELEGRAM_API_BASE=api.base_url,
        TELEGRAM_API_LOCAL="true",  # lets the webhook URL be plain http on a loopback port
        WEBHOOK_URL=f"http://127.0.0.1:{port}/hook",
        WEBHOOK_LISTEN=f"127.0.0.1:{port}",
        WEBHOOK_SECRET=SECRET,
        DATABASE_URL=database,
        UPDATE_LEASE_S=str(LEASE_S),
        SANDBOX_DIR=str(sandbox),
        DATA_DIR=str(folder / "data"),
        ALLOW_ALL="true",
        RATE_LIMIT_PER_HOUR="0",
        STREAM="off",
        SHOW_PROGRESS="false",
        MODEL_MAX_RETRIES="0",
        REQUEST_TIMEOUT="60",
    )


async def _wait_for_waiters(database: str, count: int, within_s: float) -> None:
    """Wait until `count` sessions wait for an advisory lock (a conversation held elsewhere).

    Another process's wait cannot be awaited from here, so PostgreSQL is asked again every few
    milliseconds.
    """
    connection = await asyncpg.connect(database)
    query = "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
    try:
        async with asyncio.timeout(within_s):
            while True:
                if await connection.fetchval(query) >= count:
                    return
                await asyncio.sleep(0.02)
    finally:
        await connection.close()


async def _claim_owners(database: str) -> dict[int, str]:
    """Which worker (its owner name, `host:pid:tag`) handled each update."""
    connection = await asyncpg.connect(database)
    try:
        rows = await connection.fetch("SELECT update_id, owner FROM update_claims")
    finally:
        await connection.close()
    return {int(r["update_id"]): str(r["owner"]) for r in rows}


def _pid_of(owner: str) -> int:
    return int(owner.split(":")[-2])


class Deployment:
    """Replicas or a parent with workers, stopped (and checked for tracebacks) at the end."""

    def __init__(
        self, tmp_path: Path, sandbox: Path, llm: FakeLLM, api: FakeBotApi, database: str
    ) -> None:
        self.tmp_path = tmp_path
        self.database = database
        self.settings: Callable[[Path, int], dict[str, str]] = lambda folder, port: _settings(
            folder, port, sandbox=sandbox, llm=llm, api=api, database=database
        )
        self.processes: list[BotProcess] = []

    async def start(self, name: str, **extra: str) -> Replica:
        folder = self.tmp_path / name
        folder.mkdir()
        port = free_port()
        process = BotProcess({**self.settings(folder, port), **extra}, folder)
        self.processes.append(process)
        await process.start()
        workers = int(extra.get("WORKERS", "1"))
        # The parent starts first, then its workers: each a Python that imports the bot.
        await wait_in_log(process, LISTENING, workers, within_s=START_S * (1 + (workers > 1)))
        return Replica(process, port)

    async def close(self) -> None:
        for process in self.processes:
            await process.ensure_gone()


@pytest.fixture
async def deployment(
    tmp_path: Path,
    sandbox_dir: Path,
    fake_llm: FakeLLM,
    bot_api: FakeBotApi,
    postgres_url: str,
) -> AsyncIterator[Deployment]:
    running = Deployment(tmp_path, sandbox_dir, fake_llm, bot_api, postgres_url)
    try:
        yield running
    finally:
        await running.close()


class TestReplicas:
    async def test_resends_are_dropped_and_one_chat_is_answered_in_order_with_one_history(
        self,
        deployment: Deployment,
        fake_llm: FakeLLM,
        bot_api: FakeBotApi,
        client: aiohttp.ClientSession,
    ) -> None:
        model = Model(fake_llm)
        first, second = "Сколько сахара в шарлотке?", "А муки?"
        release = model.hold(first)
        a = await deployment.start("a")
        b = await deployment.start("b")

        assert await a.post(_update(101, 5005, first), client=client) == 200
        await model.wait_asked(first)
        # Telegram sends it again, and the balancer picks the other replica: dropped.
        assert await b.post(_update(101, 5005, first), client=client) == 200
        assert await a.post(_update(101, 5005, first), client=client) == 200
        # The chat's next message reaches the other replica while the first is answered.
        assert await b.post(_update(102, 5005, second), client=client) == 200
        await _wait_for_waiters(deployment.database, 1, within_s=30)
        assert not model.asked(second)
        release.set()
        await model.wait_asked(second)
        (answered_first,) = _answers(bot_api.calls, first)
        follow_up = model.asked(second)[0]["messages"]
        await bot_api.wait_for(lambda calls: bool(_answers(calls, second)), 30)

        assert len(model.asked(first)) == 1
        assert len(_answers(bot_api.calls, first)) == 1
        assert len(_answers(bot_api.calls, second)) == 1
        # The follow-up, handled by the other replica, carries the first turn.
        contents = [str(m.get("content")) for m in follow_up]
        assert first in contents
        assert _answer_to(first) in contents
        assert bot_api.calls.index(answered_first) < bot_api.calls.index(
            _answers(bot_api.calls, second)[0]
        )
        owners = await _claim_owners(deployment.database)
        assert _pid_of(owners[101]) != _pid_of(owners[102])
        assert "update 101 was already taken" in b.process.output()

    async def test_a_replica_killed_mid_question_leaves_the_resend_to_another(
        self,
        deployment: Deployment,
        fake_llm: FakeLLM,
        bot_api: FakeBotApi,
        client: aiohttp.ClientSession,
    ) -> None:
        model = Model(fake_llm)
        question = "Где рецепт?"
        release = model.hold(question)
        a = await deployment.start("a")
        b = await deployment.start("b")

        assert await a.post(_update(201, 6006, question), client=client) == 200
        await model.wait_asked(question)
        dead = (await _claim_owners(deployment.database))[201]
        await a.process.kill()  # mid-question: the model has not answered yet
        # The copy sent again (say the 200 was lost on the way) reaches the other replica:
        # dropped while the dead replica's lease lasts, then claimed and answered.
        async with asyncio.timeout(90):  # a bound for a busy machine, not a measurement
            while len(model.asked(question)) < 2:
                assert await b.post(_update(201, 6006, question), client=client) == 200
                await asyncio.sleep(0.25)  # Telegram's resends come spaced out too
        release.set()
        await bot_api.wait_for(lambda calls: bool(_answers(calls, question)), 30)

        assert len(model.asked(question)) == 2
        assert len(_answers(bot_api.calls, question)) == 1
        owners = await _claim_owners(deployment.database)
        assert owners[201] != dead
        assert "update 201 was already taken" in b.process.output()


class TestWorkers:
    async def test_two_workers_share_the_port_answer_each_question_once_and_stop_cleanly(
        self,
        deployment: Deployment,
        fake_llm: FakeLLM,
        bot_api: FakeBotApi,
        client: aiohttp.ClientSession,
    ) -> None:
        model = Model(fake_llm)
        bot = await deployment.start("workers", WORKERS="2")
        questions = {7000 + i: f"Вопрос номер {i}?" for i in range(20)}

        posts = [
            bot.post(_update(chat, chat, text), client=client)
            for chat, text in questions.items()
            for _ in range(2)  # each sent twice, on connections of their own
        ]
        assert set(await asyncio.gather(*posts)) == {200}
        await bot_api.wait_for(
            lambda calls: all(_answers(calls, q) for q in questions.values()), 60
        )

        for text in questions.values():
            assert len(model.asked(text)) == 1, text
            assert len(_answers(bot_api.calls, text)) == 1, text
        owners = await _claim_owners(deployment.database)
        assert len({_pid_of(owners[chat]) for chat in questions}) == 2
        assert [c.method for c in bot_api.calls].count("setWebhook") == 1
        code = await bot.process.stop()
        output = bot.process.output()
        assert code == 0, output
        assert "all workers stopped" in output
        assert "Traceback" not in output

    async def test_a_killed_worker_is_restarted_and_its_question_answered_once(
        self,
        deployment: Deployment,
        fake_llm: FakeLLM,
        bot_api: FakeBotApi,
        client: aiohttp.ClientSession,
    ) -> None:
        model = Model(fake_llm)
        question = "Что в папке отчётов?"
        release = model.hold(question)
        bot = await deployment.start("workers", WORKERS="2")

        assert await bot.post(_update(301, 8008, question), client=client) == 200
        await model.wait_asked(question)
        killed = _pid_of((await _claim_owners(deployment.database))[301])
        os.kill(killed, signal.SIGKILL)
        await wait_in_log(bot.process, rf"\(pid {killed}\) was killed by SIGKILL", 1, 30)
        async with asyncio.timeout(90):  # a bound for a busy machine, not a measurement
            while len(model.asked(question)) < 2:
                assert await bot.post(_update(301, 8008, question), client=client) == 200
                await asyncio.sleep(0.25)  # Telegram's resends come spaced out too
        release.set()
        await bot_api.wait_for(lambda calls: bool(_answers(calls, question)), 30)

        assert len(_answers(bot_api.calls, question)) == 1
        assert _pid_of((await _claim_owners(deployment.database))[301]) != killed
        await wait_in_log(bot.process, STARTED, 3, START_S)  # the replacement started
        assert await bot.process.stop() == 0
