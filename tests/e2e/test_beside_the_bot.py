"""The admin's command line beside a running bot: it reads what the bot keeps, touches none of it,
and a rebuild of the index is asked of the bot, which holds it.

A real `python -m bot` (one worker, SQLite history) runs on a sandbox against a fake Bot API and
a fake model; `python -m tools …` and `python -m bot chat` run beside it as the admin would.
The bot's `/healthz` says when its first index build is done, so the index is looked at only
once the bot has finished writing it.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from tests.fakes.accounts import BOT_TOKEN, USER_ID
from tests.fakes.bot_api_http import FakeBotApi
from tests.fakes.fake_llm import FakeLLM
from tests.fakes.ports import free_port
from tests.fakes.processes import START_S, BotProcess, bot_env, run_python

DAMAGE = ("damaged", "unreadable", "rebuilding", "not closed cleanly")


def _index_files(data: Path) -> dict[str, tuple[int, int, int]]:
    """Every file of the index with its inode, size and mtime (the shared-memory file aside:
    every reader of SQLite's log writes its read marks there)."""
    found: dict[str, tuple[int, int, int]] = {}
    for path in [*data.glob("search-index.sqlite3*"), *data.glob("search-index.terms/*")]:
        if path.name.endswith("-shm"):
            continue
        info = path.stat()
        found[str(path.relative_to(data))] = (info.st_ino, info.st_size, info.st_mtime_ns)
    return found


class RunningBot:
    """A bot process on a sandbox, and the admin's commands run beside it."""

    def __init__(self, tmp_path: Path, env: dict[str, str], health_url: str) -> None:
        self.process = BotProcess(env, tmp_path)
        self.cwd = tmp_path
        self.env = env
        self.data = Path(env["DATA_DIR"])
        self.health_url = health_url

    async def wait_index_ready(self, within_s: float = START_S) -> dict[str, Any]:
        """The health report once the bot says its first index build is done."""
        async with asyncio.timeout(within_s), aiohttp.ClientSession() as session:
            while True:
                try:
                    async with session.get(self.health_url) as response:
                        report: dict[str, Any] = await response.json()
                        if report.get("index") == "ready":
                            return report
                except aiohttp.ClientConnectionError:
                    pass  # not listening yet
                await asyncio.sleep(0.05)

    async def command(self, *argv: str, stdin: int | None = None) -> tuple[int, str, str]:
        """Run `python -m …` with the bot's settings; exit code, stdout, stderr."""
        return await run_python("-m", *argv, env=self.env, cwd=self.cwd, stdin=stdin)


@pytest.fixture
async def bot(tmp_path: Path, sandbox_dir: Path, fake_llm: FakeLLM) -> AsyncIterator[RunningBot]:
    api = FakeBotApi(token=BOT_TOKEN)
    await api.start()
    port = free_port()
    env = bot_env(
        BOT_TOKEN=BOT_TOKEN,
        OPENAI_BASE_URL=fake_llm.base_url,
        OPENAI_API_KEY="sk-beside-the-bot",
        TELEGRAM_API_BASE=api.base_url,
        SANDBOX_DIR=str(sandbox_dir),
        DATA_DIR=str(tmp_path / "data"),
        ALLOWED_USER_IDS=str(USER_ID),
        METRICS_LISTEN=f"127.0.0.1:{port}",
        MODEL_MAX_RETRIES="0",
    )
    running = RunningBot(tmp_path, env, f"http://127.0.0.1:{port}/healthz")
    await running.process.start()
    try:
        yield running
    finally:
        await running.process.ensure_gone()
        await api.close()


class TestToolsBesideTheBot:
    async def test_search_read_and_list_read_the_bots_index_without_touching_it(
        self, bot: RunningBot
    ) -> None:
        ready = await bot.wait_index_ready()
        before = _index_files(bot.data)
        assert "search-index.sqlite3" in before

        code, out, err = await bot.command("tools", "search", "сахар", "стакан")
        assert code == 0, err
        found = json.loads(out)
        assert found["results"][0]["path"] == "документы/рецепт_шарлотки.txt"
        assert "note" not in found  # contents searched, not only names
        code, out, err = await bot.command("tools", "read", "документы/рецепт_шарлотки.txt")
        assert code == 0, err
        assert "сахар - 1 стакан" in json.loads(out)["document"]
        code, out, err = await bot.command("tools", "list", "документы")
        assert code == 0, err
        assert "документы/рецепт_шарлотки.txt" in out
        assert _index_files(bot.data) == before
        after = await bot.wait_index_ready()
        assert after["documents"] == ready["documents"]
        assert await bot.process.stop() == 0
        output = bot.process.output()
        assert not [line for line in output.splitlines() if any(d in line for d in DAMAGE)]


class TestReindexBesideTheBot:
    async def test_both_reindex_commands_have_the_running_bot_rebuild_its_index(
        self, bot: RunningBot
    ) -> None:
        ready = await bot.wait_index_ready()

        code, out, err = await bot.command("tools", "reindex")
        assert code == 0, out + err
        assert json.loads(out)["rebuilt_by"] == "the running bot"
        assert "asked it to rebuild" in err
        code, out, err = await bot.command("bot", "reindex")
        assert code == 0, out + err
        assert out.splitlines() == [
            "A running bot keeps the search index: asked it to rebuild it from the documents "
            "(it answers meanwhile)…",
            "The running bot rebuilt the search index; its log has the counts.",
        ]

        assert not (bot.data / "search-index.rebuild").exists()
        after = await bot.wait_index_ready()
        assert after["documents"] == ready["documents"]
        code, out, err = await bot.command("tools", "search", "сахар", "стакан")
        assert code == 0, err
        assert json.loads(out)["results"][0]["path"] == "документы/рецепт_шарлотки.txt"
        assert await bot.process.stop() == 0
        output = bot.process.output()
        rebuilt = "search index rebuilt as asked from the command line: 8 indexed"
        assert output.count(rebuilt) == 2, output
        assert not [line for line in output.splitlines() if any(d in line for d in DAMAGE)]

    async def test_reindex_without_a_bot_rebuilds_the_index_itself(
        self, tmp_path: Path, sandbox_dir: Path
    ) -> None:
        env = bot_env(SANDBOX_DIR=str(sandbox_dir), DATA_DIR=str(tmp_path / "data"))
        code, out, err = await run_python("-m", "bot", "reindex", env=env, cwd=tmp_path)
        assert code == 0, out + err
        assert out.startswith("Search index rebuilt: 8 documents indexed, 0 skipped in ")
        assert (tmp_path / "data" / "search-index.sqlite3").exists()


class TestTerminalChatBesideTheBot:
    async def test_chat_shares_the_history_and_leaves_the_bots_marker(
        self, bot: RunningBot
    ) -> None:
        await bot.wait_index_ready()
        marker = bot.data / "history.sqlite3.in-use"
        assert marker.exists()
        before = _index_files(bot.data)

        code, out, err = await bot.command("bot", "chat", stdin=asyncio.subprocess.DEVNULL)
        assert code == 0, err
        assert "not closed cleanly" not in out + err
        assert marker.exists()
        assert _index_files(bot.data) == before

        assert await bot.process.stop() == 0
        assert not marker.exists()  # the bot, the last to close the history, removed it
        output = bot.process.output()
        assert not [line for line in output.splitlines() if any(d in line for d in DAMAGE)]
