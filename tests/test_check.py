"""`python -m bot check`: the rules `run` applies, then the real Telegram, model, folders."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bot.__main__ import main
from bot.settings_loader import load_settings

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "123456:AAF-secret_token_value_abcdef"
KEY = "sk-check-secret-key-123"


def _env_file(folder: Path, **values: str) -> None:
    """A .env in `folder`: the example's lines, then `values` in place of its own."""
    lines = (ROOT / ".env.example").read_text(encoding="utf-8").splitlines()
    kept = [line for line in lines if line.partition("=")[0].lstrip("# ") not in values]
    kept += [f"{name}={value}" for name, value in values.items()]
    (folder / ".env").write_text("\n".join(kept) + "\n", encoding="utf-8")


class TestSettingsRules:
    """`check` refuses, with exit code 2 and one list, whatever `run` would refuse."""

    def test_an_unfilled_env_example_names_both_secrets(
        self, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        shutil.copy(ROOT / ".env.example", tmp_path / ".env")
        monkeypatch.chdir(tmp_path)
        assert main(["check"]) == 2
        report = capsys.readouterr().err
        assert "OPENAI_API_KEY: is missing" in report
        assert "BOT_TOKEN: is missing" in report
        assert "`python -m bot chat` works without it" in report

    def test_example_values_are_refused_without_showing_them(
        self, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        example_token = "123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11"  # Telegram's documentation
        _env_file(
            tmp_path,
            BOT_TOKEN=example_token,
            OPENAI_API_KEY="sk-...",
            WEBHOOK_URL="https://bot.example.com/telegram",
        )
        monkeypatch.chdir(tmp_path)
        assert main(["check"]) == 2
        report = capsys.readouterr().err
        for name in ("BOT_TOKEN", "OPENAI_API_KEY", "WEBHOOK_URL"):
            assert f"{name}: is still the example value" in report
        assert example_token not in report
        assert "sk-..." not in report

    @pytest.mark.parametrize("key", ["<your key>", "your-api-key", "sk-xxxxxxxx", "changeme"])
    def test_stand_ins_for_a_key_are_refused(
        self, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], key: str
    ) -> None:
        monkeypatch.setenv("OPENAI_API_KEY", key)
        assert main(["chat"]) == 2
        assert "OPENAI_API_KEY: is still the example value" in capsys.readouterr().err

    @pytest.mark.parametrize("key", ["ollama", "EMPTY", "sk-no-key-required", "lm-studio"])
    def test_keys_local_servers_accept_are_kept(
        self, monkeypatch: pytest.MonkeyPatch, key: str
    ) -> None:
        monkeypatch.setenv("OPENAI_API_KEY", key)
        settings = load_settings(required=("openai_api_key",))
        assert settings.openai_api_key is not None

    @pytest.mark.parametrize("command", ["check", "run", "chat"])
    def test_a_missing_prompt_file_stops_every_command_before_it_starts(
        self,
        monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path,
        capsys: pytest.CaptureFixture[str],
        command: str,
    ) -> None:
        monkeypatch.setenv("SYSTEM_PROMPT_FILE", str(tmp_path / "prompt.txt"))
        monkeypatch.setenv("MAX_ROUNDS", "0")
        assert main([command]) == 2
        report = capsys.readouterr().err
        assert f"SYSTEM_PROMPT_FILE: {tmp_path / 'prompt.txt'} does not exist" in report
        assert "MAX_ROUNDS:" in report  # listed together, not one per attempt
        assert "OPENAI_API_KEY: is missing" in report

    def test_a_prompt_file_that_is_not_utf8_is_refused(
        self, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        (tmp_path / "prompt.txt").write_bytes(b"\xff\xfe\xfa")
        monkeypatch.setenv("SYSTEM_PROMPT_FILE", str(tmp_path / "prompt.txt"))
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        assert main(["check"]) == 2
        assert "SYSTEM_PROMPT_FILE:" in capsys.readouterr().err

    @pytest.mark.parametrize(
        ("url", "reason"),
        [
            ("http://bot.example.org/tg", "https://"),
            ("https://bot.example.org:8080/tg", "port 443, 80, 88 or 8443"),
        ],
    )
    def test_a_webhook_url_telegram_refuses_is_refused(
        self,
        monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str],
        url: str,
        reason: str,
    ) -> None:
        monkeypatch.setenv("WEBHOOK_URL", url)
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        monkeypatch.setenv("BOT_TOKEN", TOKEN)
        for command in ("check", "run"):
            assert main([command]) == 2
            report = capsys.readouterr().err
            assert "WEBHOOK_URL:" in report
            assert reason in report

    def test_a_local_bot_api_server_may_take_plain_http_webhooks(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("TELEGRAM_API_LOCAL", "true")
        monkeypatch.setenv("WEBHOOK_URL", "http://bot:8080/tg")
        assert load_settings().webhook_url == "http://bot:8080/tg"
