"""A source's credential named by variable is found where the settings are: the process
environment, then the `.env` file the settings were read from, which does not call it unknown.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.documents.sources.config import Credentials, SourceSecretError, parse_sources
from bot.entrance.loading import load_settings
from bot.settings.model import Settings
from tests.fakes.accounts import BOT_TOKEN
from tests.fakes.bot_api_http import FakeBotApi
from tests.fakes.fake_llm import FakeLLM
from tests.fakes.processes import bare_env, run_python, run_until_it_polls
from tests.sources.servers.webdav import USER, WebdavRemote

KEY = "sk-credentials-test-key-2468"
FILE = """
[[source]]
name = "nextcloud"
kind = "webdav"
url = "{url}"
username = "alice"
password_env = "NEXTCLOUD_PASSWORD"
timeout_s = 10

[[source]]
name = "contracts"
kind = "s3"
bucket = "legal"
access_key_id_env = "S3_KEY_ID"
secret_access_key_file = "{folder}/s3-secret"
"""


def _write(folder: Path, url: str = "https://cloud.example.com/dav") -> Path:
    path = folder / "sources.toml"
    path.write_text(FILE.format(url=url, folder=folder), encoding="utf-8")
    return path


def _env(folder: Path, *lines: str) -> Path:
    path = folder / ".env"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


class TestCredentials:
    def test_a_variable_in_the_env_file_is_read(self, tmp_path: Path) -> None:
        env_file = _env(tmp_path, "BOT_TOKEN=x", "NEXTCLOUD_PASSWORD='from the file'")
        credentials = Credentials({}, env_files=env_file)
        secret = credentials.read("nextcloud", "password", "NEXTCLOUD_PASSWORD", None)
        assert secret is not None
        assert secret.get_secret_value() == "from the file"

    def test_the_environment_wins_over_the_file(self, tmp_path: Path) -> None:
        env_file = _env(tmp_path, "NEXTCLOUD_PASSWORD=from-the-file")
        credentials = Credentials({"NEXTCLOUD_PASSWORD": "from-the-env"}, env_files=env_file)
        secret = credentials.read("nextcloud", "password", "NEXTCLOUD_PASSWORD", None)
        assert secret is not None
        assert secret.get_secret_value() == "from-the-env"

    def test_a_variable_in_neither_is_named_without_a_value(self, tmp_path: Path) -> None:
        env_file = _env(tmp_path, "S3_KEY_ID=kid-13579")
        credentials = Credentials({}, env_files=[tmp_path / "absent.env", env_file])
        with pytest.raises(SourceSecretError) as caught:
            credentials.read("nextcloud", "password", "NEXTCLOUD_PASSWORD", None)
        assert "NEXTCLOUD_PASSWORD is not set" in str(caught.value)
        assert "kid-13579" not in str(caught.value)

    def test_missing_names_each_credential_it_cannot_read(self, tmp_path: Path) -> None:
        _, contracts = parse_sources(_write(tmp_path).read_text("utf-8"))
        credentials = Credentials({}, env_files=_env(tmp_path, "S3_KEY_ID=kid-13579"))
        (problem,) = credentials.missing(contracts)
        assert problem == (
            f"source 'contracts': secret_access_key: the file {tmp_path}/s3-secret cannot be read"
        )
        (tmp_path / "s3-secret").write_text("s3-secret-value\n")
        assert credentials.missing(contracts) == []


class TestSettings:
    def test_the_file_the_settings_were_read_from_is_the_one_read(self, tmp_path: Path) -> None:
        env_file = _env(
            tmp_path,
            f"OPENAI_API_KEY={KEY}",
            f"SOURCES_FILE={_write(tmp_path)}",
            "NEXTCLOUD_PASSWORD=pw-in-dotenv",
            "S3_KEY_ID=kid-13579",
        )
        settings = load_settings(_env_file=env_file)
        assert settings.env_files == (env_file,)
        secret = Credentials.beside(settings).read(
            "nextcloud", "password", "NEXTCLOUD_PASSWORD", None
        )
        assert secret is not None
        assert secret.get_secret_value() == "pw-in-dotenv"

    def test_the_env_check_knows_the_variables_the_sources_name(self, tmp_path: Path) -> None:
        env_file = _env(
            tmp_path,
            f"OPENAI_API_KEY={KEY}",
            f"SOURCES_FILE={_write(tmp_path)}",
            "NEXTCLOUD_PASSWORD=pw-in-dotenv",
            "s3_key_id=kid-13579",
            "NEXTCLOUD_PASWORD=misspelt",
        )
        settings = load_settings(_env_file=env_file)
        assert settings.env_file_notes == (
            f"unknown setting NEXTCLOUD_PASWORD in {env_file} — did you mean NEXTCLOUD_PASSWORD?",
        )

    def test_settings_made_without_the_loader_read_their_own_env_file(self) -> None:
        assert Settings(_env_file=None, openai_api_key=KEY).env_files == (Path(".env"),)


class TestEntrance:
    async def test_sources_check_finds_the_password_in_dotenv(
        self, tmp_path: Path, remote_webdav: WebdavRemote
    ) -> None:
        remote_webdav.put("a.txt", "one")
        _env(
            tmp_path,
            f"SOURCES_FILE={_write(tmp_path, remote_webdav.url)}",
            f"NEXTCLOUD_PASSWORD={remote_webdav.password}",
            f"DATA_DIR={tmp_path / 'data'}",
        )
        done = await run_python(
            "-m", "bot", "sources", "check", "nextcloud", env=bare_env(), cwd=tmp_path
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert done.stdout.splitlines() == ["✓ nextcloud: 1 item(s) listed"]
        assert remote_webdav.password not in done.stdout + done.stderr

    async def test_the_bot_starts_with_the_password_in_dotenv(
        self,
        tmp_path: Path,
        remote_webdav: WebdavRemote,
        bot_api: FakeBotApi,
        fake_llm: FakeLLM,
    ) -> None:
        (tmp_path / "sandbox").mkdir()
        sources = tmp_path / "sources.toml"
        sources.write_text(
            "[[source]]\n"
            'name = "nextcloud"\nkind = "webdav"\n'
            f'url = "{remote_webdav.url}"\nusername = "{USER}"\n'
            'password_env = "NEXTCLOUD_PASSWORD"\n',
            encoding="utf-8",
        )
        _env(
            tmp_path,
            f"BOT_TOKEN={BOT_TOKEN}",
            f"SOURCES_FILE={sources}",
            f"NEXTCLOUD_PASSWORD={remote_webdav.password}",
        )
        env = bare_env(
            OPENAI_API_KEY=KEY,
            TELEGRAM_API_BASE=bot_api.base_url,
            OPENAI_BASE_URL=fake_llm.base_url,
        )
        code, output = await run_until_it_polls(env, tmp_path, bot_api)
        assert code == 0, output
        assert "NEXTCLOUD_PASSWORD" not in output
        assert remote_webdav.password not in output
