"""`check`'s line per source: offline its credentials, online its listing taken from a real
WebDAV server on 127.0.0.1, changing nothing; a credential is never shown, and there is no line
without SOURCES_FILE."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.console.check.outcome import Outcome
from bot.console.check.sources import source_checks
from bot.entrance.loading import load_settings
from bot.settings.model import Settings
from tests.fakes.ports import free_port
from tests.fakes.processes import bare_env, run_python
from tests.sources.servers.webdav import USER, WebdavRemote, remote_webdav

__all__ = ["remote_webdav"]  # the fixture, for the tests here

KEY = "sk-check-sources-key-97531"
TABLE = """
[[source]]
name = "{name}"
kind = "webdav"
url = "{url}"
username = "{user}"
password_env = "{variable}"
timeout_s = 5
"""


def _sources_file(folder: Path, *tables: tuple[str, str, str]) -> Path:
    """SOURCES_FILE with a WebDAV table per `(name, url, variable)`."""
    path = folder / "sources.toml"
    text = "".join(
        TABLE.format(name=name, url=url, user=USER, variable=variable)
        for name, url, variable in tables
    )
    path.write_text(text, encoding="utf-8")
    return path


def _settings(tmp_path: Path, **values: Any) -> Settings:
    (tmp_path / "docs").mkdir(exist_ok=True)
    return load_settings(
        openai_api_key=KEY,
        sandbox_dir=tmp_path / "docs",
        data_dir=tmp_path / "data",
        _env_file=None,
        **values,
    )


async def _lines(settings: Settings, *, offline: bool) -> list[Outcome]:
    return [await check() for check in source_checks(settings, offline=offline)]


class TestLines:
    async def test_no_sources_file_no_line(self, tmp_path: Path) -> None:
        assert source_checks(_settings(tmp_path), offline=False) == []

    async def test_a_listing_is_counted_and_nothing_is_changed(
        self, tmp_path: Path, remote_webdav: WebdavRemote, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        remote_webdav.put("a.txt", "one")
        remote_webdav.put("sub/b.txt", "two")
        monkeypatch.setenv("NEXTCLOUD_PASSWORD", remote_webdav.password)
        file = _sources_file(tmp_path, ("nextcloud", remote_webdav.url, "NEXTCLOUD_PASSWORD"))
        settings = _settings(tmp_path, sources_file=file)
        (outcome,) = await _lines(settings, offline=False)
        assert outcome.line() == "✓ source nextcloud: webdav → nextcloud/, 2 item(s) listed"
        assert list((tmp_path / "docs").iterdir()) == []
        assert not (tmp_path / "data").exists()

    async def test_wrong_password_and_no_server_fail_without_the_password(
        self, tmp_path: Path, remote_webdav: WebdavRemote, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("WRONG_PASSWORD", "not-the-password-8642")
        monkeypatch.setenv("NEXTCLOUD_PASSWORD", remote_webdav.password)
        nowhere = f"http://127.0.0.1:{free_port()}/dav/"
        file = _sources_file(
            tmp_path,
            ("wrong", remote_webdav.url, "WRONG_PASSWORD"),
            ("gone", nowhere, "NEXTCLOUD_PASSWORD"),
        )
        wrong, gone = await _lines(_settings(tmp_path, sources_file=file), offline=False)
        assert wrong.ok is False
        assert gone.ok is False
        assert wrong.line().startswith("✗ source wrong: ")
        assert "(auth)" in wrong.text
        assert gone.line().startswith("✗ source gone: ")
        assert "127.0.0.1" in gone.text
        for outcome in (wrong, gone):
            assert "not-the-password-8642" not in outcome.text
            assert remote_webdav.password not in outcome.text

    async def test_offline_only_the_credentials_are_checked(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("SET_PASSWORD", "set-password-1357")
        monkeypatch.delenv("UNSET_PASSWORD", raising=False)
        nowhere = f"http://127.0.0.1:{free_port()}/dav/"
        file = _sources_file(
            tmp_path, ("set", nowhere, "SET_PASSWORD"), ("unset", nowhere, "UNSET_PASSWORD")
        )
        present, absent = await _lines(_settings(tmp_path, sources_file=file), offline=True)
        assert present.line() == (
            "✓ source set: webdav → set/, its credentials are set; listing not taken (--offline)"
        )
        assert absent.line() == (
            "✗ source unset: password: the variable UNSET_PASSWORD is not set"
        )

    async def test_online_a_missing_credential_is_the_same_line(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.delenv("UNSET_PASSWORD", raising=False)
        file = _sources_file(tmp_path, ("unset", "http://127.0.0.1:9/", "UNSET_PASSWORD"))
        (outcome,) = await _lines(_settings(tmp_path, sources_file=file), offline=False)
        assert outcome.line() == "✗ source unset: password: the variable UNSET_PASSWORD is not set"


class TestEntrance:
    async def test_check_prints_a_line_per_source_after_the_others(
        self, tmp_path: Path, remote_webdav: WebdavRemote
    ) -> None:
        remote_webdav.put("a.txt", "one")
        file = _sources_file(
            tmp_path,
            ("nextcloud", remote_webdav.url, "NEXTCLOUD_PASSWORD"),
            ("other", remote_webdav.url, "OTHER_PASSWORD"),
        )
        (tmp_path / "sandbox").mkdir()
        (tmp_path / ".env").write_text(
            f"OPENAI_API_KEY={KEY}\nSOURCES_FILE={file}\n"
            f"NEXTCLOUD_PASSWORD={remote_webdav.password}\n",
            encoding="utf-8",
        )
        done = await run_python("-m", "bot", "check", "--offline", env=bare_env(), cwd=tmp_path)
        assert done.returncode == 1, done.stdout + done.stderr
        assert done.stdout.splitlines()[-2:] == [
            "✓ source nextcloud: webdav → nextcloud/, its credentials are set; listing not "
            "taken (--offline)",
            "✗ source other: password: the variable OTHER_PASSWORD is not set",
        ]
        assert done.stdout.splitlines()[0].startswith("✓ settings: ")
        assert remote_webdav.password not in done.stdout + done.stderr
        assert remote_webdav.served() == 0
