"""What .env holds that no setting takes: unknown keys and lines python-dotenv cannot parse are
named once, at start and by `check`, and `check` does not pass the settings over them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.__main__ import main
from bot.settings.env_file import COMPOSE_KEYS, env_file_notes
from bot.settings.model import Settings
from tests.e2e.test_workers import STARTED
from tests.fakes.accounts import BOT_TOKEN
from tests.fakes.bot_api_http import FakeBotApi
from tests.fakes.fake_llm import FakeLLM
from tests.fakes.ports import free_port
from tests.fakes.processes import (
    START_S,
    BotProcess,
    Finished,
    bare_env,
    bot_env,
    run_python,
    run_until_it_polls,
    wait_in_log,
)

ROOT = Path(__file__).resolve().parent.parent
KEY = "sk-env-file-secret-key-13579"
MISSPELT = "unknown setting MODLE in .env — did you mean MODEL?"
UNPARSABLE = "line 3 of .env cannot be read (it is not KEY=value), so it is ignored"
DOTENV_OWN = "python-dotenv could not parse"


def _write_env(folder: Path, *lines: str) -> None:
    (folder / ".env").write_text("\n".join(lines) + "\n", encoding="utf-8")


def _notes(folder: Path) -> list[str]:
    return env_file_notes(folder / ".env", Settings.model_fields, encoding="utf-8")


async def _run(folder: Path, *args: str, **env: str) -> Finished:
    return await run_python("-m", "bot", *args, env=bare_env(**env), cwd=folder)


class TestNotes:
    def test_a_misspelt_key_is_named_with_the_setting_meant(self, tmp_path: Path) -> None:
        _write_env(tmp_path, "MODLE=gpt-4o", "HISTROY_DAYS=30")
        notes = _notes(tmp_path)
        assert notes[0] == f"unknown setting MODLE in {tmp_path / '.env'} — did you mean MODEL?"
        assert notes[1].endswith("did you mean HISTORY_DAYS?")

    def test_a_key_like_no_setting_is_named_without_a_guess(self, tmp_path: Path) -> None:
        _write_env(tmp_path, "FAVOURITE_COLOUR=blue")
        (note,) = _notes(tmp_path)
        assert note.startswith("unknown setting FAVOURITE_COLOUR in ")
        assert "did you mean" not in note

    def test_settings_in_any_case_and_compose_keys_are_known(self, tmp_path: Path) -> None:
        _write_env(
            tmp_path,
            "model=gpt-4o",
            "export MAX_ROUNDS=3",
            "POSTGRES_PASSWORD=pw",
            "DOCUMENTS_DIR=/srv/docs",
            "COMPOSE_PROFILES=postgres",
        )
        assert _notes(tmp_path) == []

    def test_every_key_compose_yaml_reads_is_known(self) -> None:
        compose = (ROOT / "compose.yaml").read_text(encoding="utf-8")
        read = set(re.findall(r"\$\{([A-Z_]+)", compose))
        assert read  # the pattern still finds them
        settings = {name.upper() for name in Settings.model_fields}
        assert read - settings - COMPOSE_KEYS == set()

    def test_the_process_environment_is_not_judged(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("MODLE", "gpt-4o")
        _write_env(tmp_path, "MODEL=gpt-4o")
        assert _notes(tmp_path) == []

    def test_an_unparsable_line_is_named_without_its_text(self, tmp_path: Path) -> None:
        _write_env(tmp_path, "MODEL=gpt-4o", "", f"BOT_TOKEN {BOT_TOKEN}")
        assert _notes(tmp_path) == [
            f"line 3 of {tmp_path / '.env'} cannot be read (it is not KEY=value), so it is ignored"
        ]


class TestCheck:
    async def test_the_settings_line_fails_over_an_unknown_key_or_a_bad_line(
        self, tmp_path: Path
    ) -> None:
        _write_env(tmp_path, f"OPENAI_API_KEY={KEY}", "MODLE=gpt-4o", "this is no setting")
        (tmp_path / "sandbox").mkdir()
        done = await _run(tmp_path, "check", "--offline")
        assert done.returncode == 1, done.stdout + done.stderr
        settings_line = done.stdout.splitlines()[0]
        assert settings_line.startswith("✗ settings: ")
        assert MISSPELT in settings_line
        assert UNPARSABLE in settings_line
        assert (done.stdout + done.stderr).count("line 3 of .env") == 1
        assert DOTENV_OWN not in done.stderr

    async def test_a_refused_start_names_a_bad_line_once_and_the_misspelling(
        self, tmp_path: Path
    ) -> None:
        """An invalid value makes the settings be read twice; the bad line is still named once,
        and a misspelt key is listed beside the setting it left missing."""
        _write_env(tmp_path, "OPENAI_APY_KEY=x", "HISTORY_DAYS=0", "this is no setting")
        done = await _run(tmp_path, "check")
        assert done.returncode == 2
        assert done.stderr.count("line 3 of .env") == 1
        assert DOTENV_OWN not in done.stderr
        assert "OPENAI_API_KEY: is missing" in done.stderr
        assert "unknown setting OPENAI_APY_KEY in .env — did you mean OPENAI_API_KEY?" in (
            done.stderr
        )

    def test_a_clean_env_passes_the_settings_line(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
    ) -> None:
        _write_env(tmp_path, f"OPENAI_API_KEY={KEY}", "MODEL=gpt-4o", "# MODLE=comment")
        (tmp_path / "sandbox").mkdir()
        monkeypatch.chdir(tmp_path)
        main(["check", "--offline"])
        assert capsys.readouterr().out.startswith("✓ settings: model gpt-4o")


class TestStart:
    async def test_the_bot_warns_once_of_each(
        self, tmp_path: Path, bot_api: FakeBotApi, fake_llm: FakeLLM
    ) -> None:
        _write_env(tmp_path, f"BOT_TOKEN={BOT_TOKEN}", "MODLE=gpt-4o", "this is no setting")
        (tmp_path / "sandbox").mkdir()
        env = bare_env(
            OPENAI_API_KEY=KEY,
            TELEGRAM_API_BASE=bot_api.base_url,
            OPENAI_BASE_URL=fake_llm.base_url,
        )
        code, output = await run_until_it_polls(env, tmp_path, bot_api)
        assert code == 0, output
        (misspelt,) = [line for line in output.splitlines() if "MODLE" in line]
        assert misspelt.endswith(f"WARNING bot.settings: {MISSPELT}")
        assert output.count("line 3 of .env") == 1
        assert f"WARNING bot.settings: {UNPARSABLE}" in output
        assert DOTENV_OWN not in output

    async def test_workers_leave_the_warning_to_their_parent(
        self, tmp_path: Path, bot_api: FakeBotApi, fake_llm: FakeLLM, postgres_url: str
    ) -> None:
        """Each worker reads the same .env again; only the parent names what is wrong in it."""
        _write_env(tmp_path, f"BOT_TOKEN={BOT_TOKEN}", "MODLE=gpt-4o", "this is no setting")
        (tmp_path / "sandbox").mkdir()
        port = free_port()
        env = bot_env(
            OPENAI_API_KEY=KEY,
            OPENAI_BASE_URL=fake_llm.base_url,
            TELEGRAM_API_BASE=bot_api.base_url,
            TELEGRAM_API_LOCAL="true",  # a plain http webhook on a loopback port
            WEBHOOK_URL=f"http://127.0.0.1:{port}/hook",
            WEBHOOK_LISTEN=f"127.0.0.1:{port}",
            DATABASE_URL=postgres_url,
            WORKERS="2",
        )
        process = BotProcess(env, tmp_path)
        await process.start()
        try:
            await wait_in_log(process, STARTED, 2, within_s=2 * START_S)  # parent, then workers
            await process.stop()
        finally:
            await process.ensure_gone()
        output = process.output()
        assert output.count(STARTED) == 2
        assert output.count(MISSPELT) == 1, output
        assert output.count("line 3 of .env") == 1
        assert DOTENV_OWN not in output
