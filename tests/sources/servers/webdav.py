"""A real WebDAV server (wsgidav, in a child process) on loopback, behind a `CuttingProxy`.

It serves a folder in `tmp_path` at `/remote.php/dav/files/alice/`, as Nextcloud does, to one
user with a password, over Basic auth, and answers `oc:fileid` (`wsgidav_fileid`). A person at
the source is played by changing the folder on disk: wsgidav reads it afresh for every request.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.documents.sources.config import WebdavConfig
from bot.documents.sources.remote import Source
from tests.fakes.ports import free_port
from tests.sources.servers.cutting_proxy import CuttingProxy
from tests.sources.servers.listening import end, start_listening
from tests.sources.servers.remote import Abilities, BehindProxy, Configured

SHARE = "/remote.php/dav/files/alice"
USER = "alice"


class WebdavRemote(BehindProxy):
    """A wsgidav server holding the folder `root`, and the hands that change it."""

    kind = "webdav"
    abilities = Abilities()

    def __init__(self, work: Path) -> None:
        self.root = work / "served"
        self.root.mkdir()
        self.password = secrets.token_urlsafe(16)
        port = free_port()
        config = {
            "host": "127.0.0.1",
            "port": port,
            "provider_mapping": {
                SHARE: {
                    "class": "tests.sources.servers.wsgidav_fileid.FileIdProvider",
                    "args": [str(self.root)],
                }
            },
            "http_authenticator": {
                "accept_basic": True,
                "accept_digest": False,
                "default_to_digest": False,
            },
            "simple_dc": {"user_mapping": {"*": {USER: {"password": self.password}}}},
            "dir_browser": {"enable": False},
            "verbose": 1,
        }
        conf = work / "wsgidav.json"
        conf.write_text(json.dumps(config))
        self._server = start_listening(
            ["-m", "wsgidav.server.server_cli", "-c", str(conf)], port, work / "wsgidav.log"
        )
        self._proxy = CuttingProxy(port)
        self.url = f"http://127.0.0.1:{self._proxy.port}{SHARE}/"

    def put(self, name: str, text: str) -> None:
        self.put_bytes(name, text.encode())

    def put_bytes(self, name: str, data: bytes) -> None:
        """Create or replace `name` holding `data` (a binary file)."""
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)

    def delete(self, name: str) -> None:
        (self.root / name).unlink()

    def rename(self, old: str, new: str) -> None:
        target = self.root / new
        target.parent.mkdir(parents=True, exist_ok=True)
        (self.root / old).rename(target)

    def stop(self) -> None:
        end(self._server)
        self._proxy.close()

    def configured(self, *, wrong_credentials: bool = False) -> Configured:
        password = "not-" + self.password if wrong_credentials else self.password
        config = WebdavConfig(
            name="nextcloud",
            kind="webdav",
            url=self.url,
            username=USER,
            password_env="NEXTCLOUD_PASSWORD",
            timeout_s=10,
        )
        return Configured(config, {"NEXTCLOUD_PASSWORD": password})

    def source(self, *, wrong_credentials: bool = False) -> Source:
        return self.configured(wrong_credentials=wrong_credentials).open()

    @property
    def secrets(self) -> list[str]:
        return [self.password]

    def close(self) -> None:
        """Stop the server and the proxy, whether or not a test stopped them."""
        end(self._server)
        self._proxy.close()


@pytest.fixture
def remote_webdav(tmp_path: Path) -> Iterator[WebdavRemote]:
    """A wsgidav server holding nothing yet, its own for the test."""
    work = tmp_path / "webdav-server"
    work.mkdir()
    remote = WebdavRemote(work)
    try:
        yield remote
    finally:
        remote.close()
