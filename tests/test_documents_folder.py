"""A missing documents folder is one whole line naming its path, in the same words from
`python -m bot run`, `python -m bot check` and `python -m tools`."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.fakes.accounts import BOT_TOKEN
from tests.fakes.bot_api_http import FakeBotApi
from tests.fakes.fake_llm import FakeLLM
from tools.jail.documents_folder import documents_folder_problem

ROOT = Path(__file__).resolve().parent.parent
KEY = "sk-documents-folder-key-97531"
MISSING = "./nowhere"
LINE = "the documents folder ./nowhere does not exist; create it or set SANDBOX_DIR"


def _environment(**extra: str) -> dict[str, str]:
    return {
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": str(ROOT),
        "SANDBOX_DIR": MISSING,
        "OPENAI_API_KEY": KEY,
        **extra,
    }


def _run(cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *argv],
        capture_output=True,
        text=True,
        env=_environment(),
        cwd=cwd,
        timeout=120,
        check=False,
    )


@pytest.fixture
async def bot_api() -> AsyncIterator[FakeBotApi]:
    api = FakeBotApi(token=BOT_TOKEN)
    await api.start()
    try:
        yield api
    finally:
        await api.close()


class TestTheWording:
    def test_a_missing_folder_is_named_as_written(self, tmp_path: Path) -> None:
        assert documents_folder_problem(Path(MISSING)) == LINE
        assert documents_folder_problem(Path("nowhere")) == LINE
        assert documents_folder_problem(tmp_path) is None

    def test_a_file_in_its_place_is_named_as_a_file(self, tmp_path: Path) -> None:
        (tmp_path / "docs").write_text("not a folder", encoding="utf-8")
        problem = documents_folder_problem(tmp_path / "docs")
        assert problem == (
            f"the documents folder {tmp_path / 'docs'} is a file, not a folder; "
            "set SANDBOX_DIR to a folder"
        )


class TestEveryFrontDoor:
    def test_check(self, tmp_path: Path) -> None:
        done = _run(tmp_path, "bot", "check", "--offline")
        assert done.returncode == 1
        assert done.stdout.count("does not exist") == 1
        assert f"✗ documents: {LINE}\n" in done.stdout

    @pytest.mark.parametrize("command", ["list", "search"])
    def test_tools(self, tmp_path: Path, command: str) -> None:
        done = _run(tmp_path, "tools", command, *(["x"] if command == "search" else []))
        assert done.returncode == 2
        assert done.stderr == f"{LINE}\n"

    async def test_run(self, tmp_path: Path, bot_api: FakeBotApi, fake_llm: FakeLLM) -> None:
        log_path = tmp_path / "bot.log"
        with log_path.open("wb") as log_file:
            process = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "bot",
                cwd=tmp_path,
                env=_environment(
                    BOT_TOKEN=BOT_TOKEN,
                    TELEGRAM_API_BASE=bot_api.base_url,
                    OPENAI_BASE_URL=fake_llm.base_url,
                ),
                stdout=log_file,
                stderr=log_file,
            )
            try:
                await bot_api.wait_for(
                    lambda calls: any(c.method == "getUpdates" for c in calls), 60
                )
                process.send_signal(signal.SIGTERM)
                code = await asyncio.wait_for(process.wait(), 30)
            finally:
                if process.returncode is None:
                    process.kill()
                    await process.wait()
        output = log_path.read_text(errors="replace")
        assert code == 0, output
        (warning,) = [line for line in output.splitlines() if "does not exist" in line]
        assert f"WARNING tools.toolbox: {LINE} (the bot keeps looking for it;" in warning
        assert warning.endswith(")")
