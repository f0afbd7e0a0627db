"""Settings: id lists, secrets, and the clear report on bad values."""

from __future__ import annotations

import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from types import SimpleNamespace

import pytest

from bot.__main__ import main
from bot.access import MAX_USER_ID
from bot.agent import AgentConfig
from bot.entrance.cli import settings_help
from bot.entrance.loading import SettingsError, load_settings
from bot.settings.model import ChatTopic, Settings
from tests import docs_text

TOKEN = "123456:AAF-secret_token_value_abcdef"
ROOT = Path(__file__).resolve().parent.parent


class TestIdLists:
    @pytest.mark.parametrize(
        ("raw", "expected"),
        [
            ("1,2,3", {1, 2, 3}),
            (" 1, 2 ,3 ", {1, 2, 3}),
            ("[1, 2, 3]", {1, 2, 3}),
            ("42", {42}),
            ("", set()),
            ("100123 7", {100123, 7}),
            (str(MAX_USER_ID), {MAX_USER_ID}),
        ],
    )
    def test_accepts_commas_spaces_and_json(
        self, monkeypatch: pytest.MonkeyPatch, raw: str, expected: set[int]
    ) -> None:
        monkeypatch.setenv("ALLOWED_USER_IDS", raw)
        monkeypatch.setenv("ADMIN_IDS", raw)
        settings = Settings()
        assert settings.allowed_user_ids == expected
        assert settings.admin_ids == expected

    @pytest.mark.parametrize("raw", ["1,two,3", "[1, 2", "@durov"])
    def test_rejects_non_numbers_with_a_hint(
        self, monkeypatch: pytest.MonkeyPatch, raw: str
    ) -> None:
        monkeypatch.setenv("ADMIN_IDS", raw)
        with pytest.raises(SettingsError) as caught:
            load_settings()
        assert len(caught.value.problems) == 1
        assert caught.value.problems[0].startswith("ADMIN_IDS:")
        assert "1,2,3" in caught.value.problems[0]

    @pytest.mark.parametrize("name", ["ADMIN_IDS", "ALLOWED_USER_IDS"])
    @pytest.mark.parametrize(
        ("raw", "bad"),
        [
            ("1,0", "0"),
            ("-100123 7", "-100123"),
            (f"[5, {MAX_USER_ID + 1}]", str(MAX_USER_ID + 1)),
        ],
    )
    def test_rejects_ids_no_user_has(
        self, monkeypatch: pytest.MonkeyPatch, name: str, raw: str, bad: str
    ) -> None:
        monkeypatch.setenv(name, raw)
        with pytest.raises(SettingsError) as caught:
            load_settings()
        assert caught.value.problems == [
            f"{name}: {bad} is not a Telegram user id (one from 1 to {MAX_USER_ID}"
            + ("; a group's id goes in ALLOWED_CHAT_IDS)" if bad.startswith("-") else ")")
        ]

    def test_access_rules(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("ALLOWED_USER_IDS", "1")
        monkeypatch.setenv("ADMIN_IDS", "2")
        settings = Settings()
        assert settings.may_use(1)
        assert settings.may_use(2)
        assert not settings.may_use(3)
        assert settings.is_admin(2)
        assert not settings.is_admin(1)
        monkeypatch.setenv("ALLOW_ALL", "true")
        assert Settings().may_use(3)


class TestExperts:
    @pytest.mark.parametrize(
        ("raw", "expected"),
        [
            ("", None),
            ("-100123456", ChatTopic(-100123456, None)),
            (" -100123456/7 ", ChatTopic(-100123456, 7)),
        ],
    )
    def test_a_group_and_its_topic(
        self, monkeypatch: pytest.MonkeyPatch, raw: str, expected: ChatTopic | None
    ) -> None:
        monkeypatch.setenv("EXPERTS_CHAT_ID", raw)
        assert Settings().experts_chat == expected

    @pytest.mark.parametrize("raw", ["experts", "100123456", "-100123456/", "-100/x", "@team"])
    def test_anything_else_stops_the_start_with_the_format(
        self, monkeypatch: pytest.MonkeyPatch, raw: str
    ) -> None:
        monkeypatch.setenv("EXPERTS_CHAT_ID", raw)
        with pytest.raises(SettingsError) as caught:
            load_settings()
        (problem,) = caught.value.problems
        assert problem.startswith("EXPERTS_CHAT_ID:")
        assert "-100123456 or -100123456/7" in problem

    @pytest.mark.parametrize("raw", ["../FAQ", "/srv/FAQ", "FAQ/../..", "./"])
    def test_the_folder_stays_inside_the_documents(
        self, monkeypatch: pytest.MonkeyPatch, raw: str
    ) -> None:
        monkeypatch.setenv("EXPERTS_FOLDER", raw)
        with pytest.raises(SettingsError) as caught:
            load_settings()
        (problem,) = caught.value.problems
        assert problem.startswith("EXPERTS_FOLDER:")

    def test_the_folder_defaults_to_faq_and_loses_stray_slashes(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        assert Settings().experts_folder == "FAQ"
        monkeypatch.setenv("EXPERTS_FOLDER", " ")
        assert Settings().experts_folder == "FAQ", "empty means the default"
        monkeypatch.setenv("EXPERTS_FOLDER", "docs/FAQ/")
        assert Settings().experts_folder == "docs/FAQ"


class TestSecrets:
    def test_hidden_in_repr_and_dump(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("BOT_TOKEN", TOKEN)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-very-secret-key")
        settings = Settings()
        for text in (repr(settings), str(settings), settings.model_dump_json()):
            assert TOKEN not in text
            assert "sk-very-secret-key" not in text
        assert settings.bot_token is not None
        assert settings.bot_token.get_secret_value() == TOKEN

    def test_bad_token_is_reported_without_its_value(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("BOT_TOKEN", "not-a-token-sk-leak")
        with pytest.raises(SettingsError) as caught:
            load_settings()
        report = caught.value.report()
        assert "BOT_TOKEN" in report
        assert "not-a-token-sk-leak" not in report


class TestRequired:
    def test_missing_token_and_key_listed_together(self) -> None:
        with pytest.raises(SettingsError) as caught:
            load_settings(required=("bot_token", "openai_api_key"))
        names = [p.split(":")[0] for p in caught.value.problems]
        assert names == ["BOT_TOKEN", "OPENAI_API_KEY"]
        assert "@BotFather" in caught.value.report()

    def test_empty_value_counts_as_missing(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("BOT_TOKEN", "")
        monkeypatch.setenv("OPENAI_API_KEY", "x")
        with pytest.raises(SettingsError) as caught:
            load_settings(required=("bot_token", "openai_api_key"))
        assert [p.split(":")[0] for p in caught.value.problems] == ["BOT_TOKEN"]

    def test_dotenv_in_working_directory_is_read(self, tmp_path: Path) -> None:
        (tmp_path / ".env").write_text(f"BOT_TOKEN={TOKEN}\nMAX_ROUNDS=3\n", encoding="utf-8")
        settings = Settings(_env_file=tmp_path / ".env")
        assert settings.max_rounds == 3
        assert settings.bot_token is not None

    def test_several_bad_values_reported_at_once(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("MAX_ROUNDS", "0")
        monkeypatch.setenv("LOG_LEVEL", "loud")
        monkeypatch.setenv("OPENAI_BASE_URL", "localhost:11434")
        with pytest.raises(SettingsError) as caught:
            load_settings()
        names = sorted(p.split(":")[0] for p in caught.value.problems)
        assert names == ["LOG_LEVEL", "MAX_ROUNDS", "OPENAI_BASE_URL"]

    def test_output_must_fit_window(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("CONTEXT_WINDOW", "4096")
        monkeypatch.setenv("MAX_OUTPUT_TOKENS", "4000")
        with pytest.raises(SettingsError, match="MAX_OUTPUT_TOKENS"):
            load_settings()


class TestEntryPoint:
    def _run(self, *args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "bot", *args],
            capture_output=True,
            text=True,
            env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), **env},
            cwd=cwd,
            timeout=60,
            check=False,
        )

    def test_missing_token_exits_2_without_traceback(self, tmp_path: Path) -> None:
        done = self._run(env={"BOT_TOKEN": ""}, cwd=tmp_path)
        assert done.returncode == 2
        assert "Traceback" not in done.stderr
        assert "BOT_TOKEN: is missing" in done.stderr
        assert "OPENAI_API_KEY: is missing" in done.stderr

    def test_version_is_the_package_version(self, tmp_path: Path) -> None:
        done = self._run("--version", env={}, cwd=tmp_path)
        assert done.returncode == 0
        assert done.stdout.strip() == f"python -m bot {metadata.version('docs-bot')}"

    def test_the_installed_command_says_its_own_name(self, tmp_path: Path) -> None:
        command = Path(sys.executable).with_name("docs-bot")  # installed with the package
        assert command.is_file()
        done = subprocess.run(
            [str(command), "--version"],
            capture_output=True,
            text=True,
            env={"PATH": "/usr/bin:/bin"},
            cwd=tmp_path,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout == f"docs-bot {metadata.version('docs-bot')}\n"

    def test_help_lists_every_setting(self, tmp_path: Path) -> None:
        done = self._run("--help", env={}, cwd=tmp_path)
        assert done.returncode == 0
        for name in Settings.model_fields:
            assert name.upper() in done.stdout


class TestDocumentation:
    def test_every_setting_is_in_the_reference_and_env_example(self) -> None:
        reference = docs_text.page("configuration.md")
        example = (ROOT / ".env.example").read_text(encoding="utf-8")
        for name in Settings.model_fields:
            assert f"| `{name.upper()}` |" in reference, name
            assert f"{name.upper()}=" in example, name

    def test_the_reference_lists_exactly_the_settings(self) -> None:
        rows = docs_text.SETTING_ROW.findall(docs_text.page("configuration.md"))
        assert sorted(rows) == sorted(name.upper() for name in Settings.model_fields)

    def test_every_documented_setting_exists(self) -> None:
        example = (ROOT / ".env.example").read_text(encoding="utf-8")
        documented = set(docs_text.SETTING_ROW.findall(docs_text.all_text()))
        documented |= set(re.findall(r"^#? ?([A-Z_]+)=", example, flags=re.MULTILINE))
        known = {name.upper() for name in Settings.model_fields}
        assert documented - known == set()

    def test_the_settings_table_is_made_from_the_model_not_by_hand(self) -> None:
        hook = docs_text.settings_hook()
        written = docs_text.source("configuration.md")
        assert written.count(hook.MARKER) == 1
        assert written.count(hook.END_MARKER) == 1
        assert docs_text.SETTING_ROW.findall(written) == []

    def test_a_configuration_page_without_its_block_fails_the_build(self) -> None:
        hook = docs_text.settings_hook()
        page = SimpleNamespace(file=SimpleNamespace(src_uri="configuration.md"))
        with pytest.raises(ValueError, match="block"):
            hook.on_page_markdown("# Configuration\n", page=page)
        with pytest.raises(ValueError, match="block"):
            hook.on_page_markdown(f"# Configuration\n{hook.MARKER}\n", page=page)

    def test_the_reference_shows_defaults_and_accepted_values(self) -> None:
        reference = docs_text.page("configuration.md")
        row = next(line for line in reference.splitlines() if line.startswith("| `STREAM` |"))
        assert "| `auto` |" in row
        assert "one of `auto`, `on`, `off`" in row
        row = next(line for line in reference.splitlines() if line.startswith("| `MAX_ROUNDS` |"))
        assert "| `6` |" in row
        assert "at least 1, at most 50" in row

    def test_help_mentions_each_field_once(self) -> None:
        text = settings_help()
        for name in Settings.model_fields:
            assert text.count(f" {name.upper()} ") == 1


class TestCommands:
    def test_ci_runs_the_readme_test_command(self) -> None:
        readme = docs_text.readme()
        ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
        test_command = next(
            line for line in readme.splitlines() if "pip install -e '.[dev]'" in line
        )
        assert test_command.strip() in ci

    def test_ci_builds_the_docs_with_warnings_as_errors(self) -> None:
        ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
        assert ".venv/bin/pip install -e '.[docs]'" in ci
        assert ".venv/bin/mkdocs build --strict" in ci


class TestTelegramSettings:
    def test_allowed_chats(self, monkeypatch: pytest.MonkeyPatch) -> None:
        assert Settings().allowed_chat_ids == frozenset()
        monkeypatch.setenv("ALLOWED_CHAT_IDS", "-1001,-1002")
        assert Settings().allowed_chat_ids == frozenset({-1001, -1002})

    @pytest.mark.parametrize("secret", ["has space", "ünicode", "a" * 257])
    def test_webhook_secret_must_be_what_telegram_accepts(
        self, monkeypatch: pytest.MonkeyPatch, secret: str
    ) -> None:
        monkeypatch.setenv("WEBHOOK_SECRET", secret)
        with pytest.raises(SettingsError, match="WEBHOOK_SECRET"):
            load_settings()

    @pytest.mark.parametrize(
        ("env", "says"),
        [
            ({"ADMIN_APP_URL": "http://bot.example.com/admin"}, "https:// URL"),
            ({"ADMIN_APP_URL": "https://bot.example.com"}, "a path of its own"),
            ({"ADMIN_APP_URL": "https://bot.example.com/admin"}, "METRICS_LISTEN"),
        ],
    )
    def test_the_admin_app_needs_https_a_path_and_a_server(
        self, monkeypatch: pytest.MonkeyPatch, env: dict[str, str], says: str
    ) -> None:
        if says != "METRICS_LISTEN":
            monkeypatch.setenv("METRICS_LISTEN", "127.0.0.1:9108")
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        with pytest.raises(SettingsError, match="ADMIN_APP_URL") as caught:
            load_settings()
        assert says in str(caught.value)

    @pytest.mark.parametrize(
        ("window", "page"), [(4_096, 1_000), (8_192, 4_000), (16_384, 9_000), (128_000, 12_000)]
    )
    def test_a_page_left_unset_shrinks_with_a_small_window(
        self, monkeypatch: pytest.MonkeyPatch, window: int, page: int
    ) -> None:
        monkeypatch.setenv("CONTEXT_WINDOW", str(window))
        monkeypatch.setenv("READ_PAGE_CHARS", "")  # as .env.example ships it
        assert Settings().read_page_chars == page

    def test_a_page_set_by_hand_is_kept_whatever_the_window(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("CONTEXT_WINDOW", "8192")
        monkeypatch.setenv("READ_PAGE_CHARS", "12000")
        assert Settings().read_page_chars == 12_000

    def test_the_admin_app_is_served_under_its_path(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("METRICS_LISTEN", "127.0.0.1:9108")
        monkeypatch.setenv("ADMIN_APP_URL", "https://bot.example.com/team/admin/")
        assert Settings().admin_app_path == "/team/admin"

    def test_ipv6_listen_address(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("WEBHOOK_LISTEN", "[::]:8443")
        settings = Settings()
        assert (settings.webhook_host, settings.webhook_port) == ("::", 8443)


class TestContextBudget:
    def test_it_bounds_the_agents_budget_below_the_window(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("CONTEXT_BUDGET_TOKENS", "16000")
        settings = Settings()
        config = AgentConfig.from_settings(settings)
        assert (config.prompt_budget, config.bounded_window) == (16_000, 18_048)
        assert settings.read_page_chars == 10_000, "the page shrinks to the budget's room"

    def test_unset_or_zero_is_the_window_less_the_answer(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        assert AgentConfig.from_settings(Settings()).prompt_budget == 128_000 - 2_048
        monkeypatch.setenv("CONTEXT_BUDGET_TOKENS", "")  # as .env.example ships it
        monkeypatch.setenv("CONTEXT_WINDOW", "32000")
        assert AgentConfig.from_settings(Settings()).prompt_budget == 32_000 - 2_048

    @pytest.mark.parametrize(("raw", "says"), [("500", "from 1024"), ("40000", "(29952)")])
    def test_outside_the_window_it_is_refused_with_what_it_may_be(
        self, monkeypatch: pytest.MonkeyPatch, raw: str, says: str
    ) -> None:
        monkeypatch.setenv("CONTEXT_WINDOW", "32000")
        monkeypatch.setenv("CONTEXT_BUDGET_TOKENS", raw)
        with pytest.raises(SettingsError) as caught:
            load_settings()
        (problem,) = caught.value.problems
        assert problem.startswith(f"CONTEXT_BUDGET_TOKENS ({raw}) must be 0")
        assert says in problem

    def test_help_lists_it(self) -> None:
        assert "CONTEXT_BUDGET_TOKENS" in settings_help()


class TestFolders:
    def test_data_dir_may_not_be_the_sandbox(
        self, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
    ) -> None:
        monkeypatch.setenv("SANDBOX_DIR", str(tmp_path / "docs"))
        monkeypatch.setenv("DATA_DIR", str(tmp_path / "docs" / "."))
        with pytest.raises(SettingsError, match="DATA_DIR must not be the documents folder"):
            load_settings()

    @pytest.mark.parametrize("command", ["run", "check", "chat"])
    def test_data_dir_inside_the_documents_stops_every_command(
        self,
        monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path,
        capsys: pytest.CaptureFixture[str],
        command: str,
    ) -> None:
        (tmp_path / "docs" / "team").mkdir(parents=True)
        monkeypatch.setenv("SANDBOX_DIR", str(tmp_path / "docs"))
        monkeypatch.setenv("DATA_DIR", str(tmp_path / "docs" / "team" / "bot-data"))
        monkeypatch.setenv("OPENAI_API_KEY", "sk-folders-key")
        monkeypatch.setenv("BOT_TOKEN", TOKEN)
        assert main([command]) == 2
        report = capsys.readouterr().err
        assert (
            f"  - DATA_DIR ({tmp_path / 'docs' / 'team' / 'bot-data'}) must not be inside the "
            f"documents folder (SANDBOX_DIR, {tmp_path / 'docs'}): /rm or /mv of a folder "
            "holding it would move the bot's history, admins and grants into the trash"
        ) in report
        assert not (tmp_path / "docs" / "team" / "bot-data").exists()

    def test_a_link_does_not_hide_data_dir_inside_the_documents(
        self, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
    ) -> None:
        (tmp_path / "docs").mkdir()
        (tmp_path / "docs-link").symlink_to(tmp_path / "docs")
        (tmp_path / "data-link").symlink_to(tmp_path / "docs" / "data")
        for sandbox, data in [("docs-link", "docs/data"), ("docs", "data-link")]:
            monkeypatch.setenv("SANDBOX_DIR", str(tmp_path / sandbox))
            monkeypatch.setenv("DATA_DIR", str(tmp_path / data))
            with pytest.raises(SettingsError, match="must not be inside the documents folder"):
                load_settings()

    def test_documents_inside_data_dir_are_refused(
        self, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
    ) -> None:
        monkeypatch.setenv("SANDBOX_DIR", str(tmp_path / "data" / "documents"))
        monkeypatch.setenv("DATA_DIR", str(tmp_path / "data"))
        with pytest.raises(
            SettingsError, match=r"\(SANDBOX_DIR, .*\) must not be inside DATA_DIR"
        ):
            load_settings()

    @pytest.mark.parametrize(
        ("sandbox", "data"),
        [
            ("./sandbox", "./data"),  # .env.example
            ("/documents", "/data"),  # the Dockerfile and compose.yaml
            ("./docs", "./docs-data"),  # a shared prefix is not a parent
        ],
    )
    def test_folders_side_by_side_are_accepted(
        self, monkeypatch: pytest.MonkeyPatch, sandbox: str, data: str
    ) -> None:
        monkeypatch.setenv("SANDBOX_DIR", sandbox)
        monkeypatch.setenv("DATA_DIR", data)
        settings = load_settings()
        assert (settings.sandbox_dir, settings.data_dir) == (Path(sandbox), Path(data))
