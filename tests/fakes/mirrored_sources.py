"""Two configured sources over in-memory remotes, as the runner's and the bot's tests set them up.

`SOURCES` is a sources file naming a WebDAV and an S3 source; `Remotes` opens each as a
`MemorySource` the test drives; `source_settings` writes the file, sets the credentials' variables
and returns the settings that make a bot (or the Mini App over it) mirror them.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from bot.documents.sources.config import SourceConfig
from bot.documents.sources.remote import Source
from bot.documents.sources.runner import Sources, SourceStatus
from tests.fakes.accounts import ADMIN_ID
from tests.fakes.harness import Harness
from tests.fakes.memory_source import MemorySource

SECRET = "s3cr3t-Pa55word-for-nextcloud"
OTHER_ADMIN = 2003

SOURCES = """
[[source]]
name = "nextcloud"
kind = "webdav"
url = "https://cloud.example.com/remote.php/dav/files/alice/Docs"
username = "alice"
password_env = "NEXTCLOUD_PASSWORD"
every = "15m"

[[source]]
name = "contracts"
kind = "s3"
endpoint_url = "https://s3.example.com"
bucket = "legal"
prefix = "contracts/"
access_key_id_env = "S3_KEY_ID"
secret_access_key_env = "S3_SECRET"
"""


class Remotes:
    """The in-memory servers, one per source of `SOURCES`, there before anything opens them."""

    def __init__(self) -> None:
        self.made = {name: MemorySource(name) for name in ("nextcloud", "contracts")}

    def open(self, config: SourceConfig) -> Source:
        return self.made.setdefault(config.name, MemorySource(config.name))


def stocked_remotes() -> Remotes:
    """Ten files at nextcloud and one at contracts: a third of nextcloud is a mass deletion."""
    remotes = Remotes()
    for index in range(10):
        remotes.made["nextcloud"].put(f"f{index}.txt", f"text number {index}")
    remotes.made["contracts"].put("lease.txt", "the lease of the office")
    return remotes


def source_settings(
    remotes: Remotes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> dict[str, Any]:
    """The settings of a bot mirroring `SOURCES` over `remotes`, with two admins to ask."""
    monkeypatch.setenv("NEXTCLOUD_PASSWORD", SECRET)
    monkeypatch.setenv("S3_KEY_ID", "AKIA-not-shown")
    monkeypatch.setenv("S3_SECRET", SECRET + "-s3")
    sources_file = tmp_path / "sources.toml"
    sources_file.write_text(SOURCES, encoding="utf-8")
    return {
        "sources_file": sources_file,
        "source_opener": remotes.open,
        "admin_ids": frozenset({ADMIN_ID, OTHER_ADMIN}),
    }


def sources_of(harness: Harness) -> Sources:
    found: Sources = harness.dp["sources"]
    return found


class Passes:
    """Hears each pass `Sources` runs, so a test can wait for the background one."""

    def __init__(self, sources: Sources) -> None:
        self.done: asyncio.Queue[SourceStatus] = asyncio.Queue()
        sources.on_pass(self.done.put)

    async def next(self) -> SourceStatus:
        async with asyncio.timeout(10):
            return await self.done.get()
