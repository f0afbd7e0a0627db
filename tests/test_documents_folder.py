"""A missing documents folder is one whole line naming its path, in the same words from
`python -m bot run`, `python -m bot check` and `python -m tools`."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes.accounts import BOT_TOKEN
from tests.fakes.bot_api_http import FakeBotApi
from tests.fakes.fake_llm import FakeLLM
from tests.fakes.processes import Finished, bare_env, run_python, run_until_it_polls
from tools.jail.documents_folder import documents_folder_problem

KEY = "sk-documents-folder-key-97531"
MISSING = "./nowhere"
LINE = "the documents folder ./nowhere does not exist; create it or set SANDBOX_DIR"


def _environment(**extra: str) -> dict[str, str]:
    return bare_env(SANDBOX_DIR=MISSING, OPENAI_API_KEY=KEY, **extra)


async def _run(cwd: Path, *argv: str) -> Finished:
    return await run_python("-m", *argv, env=_environment(), cwd=cwd)


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
    async def test_check(self, tmp_path: Path) -> None:
        done = await _run(tmp_path, "bot", "check", "--offline")
        assert done.returncode == 1
        assert done.stdout.count("does not exist") == 1
        assert f"✗ documents: {LINE}\n" in done.stdout

    @pytest.mark.parametrize("command", ["list", "search"])
    async def test_tools(self, tmp_path: Path, command: str) -> None:
        done = await _run(tmp_path, "tools", command, *(["x"] if command == "search" else []))
        assert done.returncode == 2
        assert done.stderr == f"{LINE}\n"

    async def test_run(self, tmp_path: Path, bot_api: FakeBotApi, fake_llm: FakeLLM) -> None:
        env = _environment(
            BOT_TOKEN=BOT_TOKEN,
            TELEGRAM_API_BASE=bot_api.base_url,
            OPENAI_BASE_URL=fake_llm.base_url,
        )
        code, output = await run_until_it_polls(env, tmp_path, bot_api)
        assert code == 0, output
        (warning,) = [line for line in output.splitlines() if "does not exist" in line]
        assert f"WARNING tools.toolbox: {LINE} (the bot keeps looking for it;" in warning
        assert warning.endswith(")")
