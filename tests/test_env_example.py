""".env.example as a new admin uses it: copied to .env, the two secrets filled in, nothing else.

The copy must pass `check --offline` and start the bot, and every line left empty must mean
its setting's default (or, for a setting that says so, its own meaning of empty).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from bot.entrance.cli import settings_help
from bot.settings.model import Settings
from tests import docs_text
from tests.fakes.accounts import BOT_TOKEN
from tests.fakes.bot_api_http import FakeBotApi
from tests.fakes.fake_llm import FakeLLM
from tests.fakes.processes import bare_env, run_python, run_until_it_polls
from tools.config import EMPTY_IS_A_VALUE

ROOT = Path(__file__).resolve().parent.parent
API_KEY = "sk-example-secret-key-24680"
_SETTING_LINE = re.compile(r"^#? ?([A-Z][A-Z0-9_]*)=(.*)$")


def filled_example(folder: Path) -> Path:
    """A fresh clone's working directory: .env.example as .env with only the two secrets
    written in, and the sample documents folder it names."""
    text = (ROOT / ".env.example").read_text(encoding="utf-8")
    text = re.sub(r"^BOT_TOKEN=$", f"BOT_TOKEN={BOT_TOKEN}", text, count=1, flags=re.M)
    text = re.sub(r"^OPENAI_API_KEY=$", f"OPENAI_API_KEY={API_KEY}", text, count=1, flags=re.M)
    assert BOT_TOKEN in text
    assert API_KEY in text
    (folder / ".env").write_text(text, encoding="utf-8")
    shutil.copytree(ROOT / "sandbox", folder / "sandbox")
    return folder


class TestTheExampleAsShipped:
    async def test_check_offline_passes(self, tmp_path: Path) -> None:
        folder = filled_example(tmp_path)
        done = await run_python("-m", "bot", "check", "--offline", env=bare_env(), cwd=folder)
        assert done.returncode == 0, done.stdout + done.stderr
        lines = done.stdout.splitlines()
        assert lines[0].startswith("✓ settings: model gpt-4.1-mini, documents in ./sandbox")
        assert all(line[0] in "✓·" for line in lines), lines
        assert done.stderr == ""
        assert BOT_TOKEN not in done.stdout
        assert API_KEY not in done.stdout

    async def test_the_bot_starts(
        self, tmp_path: Path, bot_api: FakeBotApi, fake_llm: FakeLLM
    ) -> None:
        """Only the servers' addresses come from the environment: the tests' fakes."""
        folder = filled_example(tmp_path)
        env = bare_env(TELEGRAM_API_BASE=bot_api.base_url, OPENAI_BASE_URL=fake_llm.base_url)
        code, output = await run_until_it_polls(env, folder, bot_api)
        assert code == 0, output
        assert "bot @docs_test_bot started: model gpt-4.1-mini" in output
        assert "bot.settings" not in output  # nothing in the example is an unknown setting
        assert "documents folder" not in output  # ./sandbox is there
        assert "Traceback" not in output
        assert (folder / "data").is_dir()  # DATA_DIR=./data as the example says


def _example_settings() -> list[tuple[str, str]]:
    """Every `KEY=value` line of .env.example, commented out or not."""
    lines = (ROOT / ".env.example").read_text(encoding="utf-8").splitlines()
    found = [m.groups() for m in map(_SETTING_LINE.match, lines) if m]
    return [(key, value) for key, value in found]


class TestEveryLineLeftEmpty:
    def test_the_walk_meets_every_setting(self) -> None:
        keys = [key for key, _ in _example_settings()]
        assert sorted(keys) == sorted(name.upper() for name in Settings.model_fields)

    @pytest.mark.parametrize(("key", "shipped"), _example_settings())
    def test_means_the_default(self, tmp_path: Path, key: str, shipped: str) -> None:
        env_file = tmp_path / ".env"
        env_file.write_text(f"{key}=\n", encoding="utf-8")
        field = Settings.model_fields[key.lower()]
        settings = Settings(_env_file=env_file)
        if EMPTY_IS_A_VALUE in field.metadata:
            assert getattr(settings, key.lower()) == ""
            assert "empty" in str(field.description)
        else:
            assert getattr(settings, key.lower()) == field.get_default(call_default_factory=True)

    @pytest.mark.parametrize("blank", ["", " ", "\t"])
    def test_blank_is_empty(self, tmp_path: Path, blank: str) -> None:
        env_file = tmp_path / ".env"
        env_file.write_text(f"HISTORY_DAYS={blank}\nSANDBOX_DIR={blank}\n", encoding="utf-8")
        settings = Settings(_env_file=env_file)
        assert settings.history_days is None
        assert settings.sandbox_dir == Path("./sandbox")


class TestTheHelpAndTheReferenceAgree:
    """What .env.example writes as a default, `--help` and the configuration page say too."""

    @pytest.mark.parametrize(
        ("key", "shipped"),
        re.findall(
            r"^([A-Z][A-Z0-9_]*)=(.+)$",
            (ROOT / ".env.example").read_text(encoding="utf-8"),
            flags=re.M,
        ),
    )
    def test_with_the_example_on_each_default(self, key: str, shipped: str) -> None:
        line = next(line for line in settings_help().splitlines() if line.startswith(f"  {key} "))
        assert line.endswith(f"[default: {shipped}]"), line
        reference = docs_text.page("configuration.md")
        row = next(row for row in reference.splitlines() if row.startswith(f"| `{key}` |"))
        assert f"| `{shipped}` |" in row, row
