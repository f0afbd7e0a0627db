"""A `Source` over a dict: a remote server in memory, for the mirror's tests and benchmark.

Each file has an id (stable across renames, or its path, as `ids="paths"` says), a version
that changes with its content, and an MD5 content hash (or none, `hashes=False`). The test
drives it like a server: `put`, `remove`, `rename`; makes it fail (`fail_listing`,
`fail_fetch`) or change a file while it is fetched (`change_while_fetched`); holds a listing
open until it lets it go (`hold`); and reads what was asked of it (`listings`, `fetched`).
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from bot.documents.sources.remote import RemoteItem, SourceError


@dataclass
class _File:
    item_id: str
    data: bytes
    version: str


@dataclass
class MemorySource:
    """An in-memory remote; `name` is the source's name."""

    name: str = "mem"
    ids: Literal["stable", "paths"] = "stable"
    hashes: bool = True
    files: dict[str, _File] = field(default_factory=dict)
    fail_listing: SourceError | Exception | None = None
    fail_fetch: dict[str, SourceError | Exception] = field(default_factory=dict)
    change_while_fetched: set[str] = field(default_factory=set)
    extra_items: list[RemoteItem] = field(default_factory=list)
    listings: int = 0
    listed: asyncio.Event = field(default_factory=asyncio.Event)
    """Set at each listing, for a test waiting for a background pass."""
    hold: asyncio.Event | None = None
    """When given, a listing (once `listed` is set) waits for it: a pass held open."""
    fetched: list[str] = field(default_factory=list)
    closed: bool = False
    _counter: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    def put(self, path: str, data: bytes | str) -> None:
        """Add or change a file: a new version."""
        raw = data.encode() if isinstance(data, str) else data
        old = self.files.get(path)
        if old is not None:
            item_id = old.item_id
        else:
            item_id = path if self.ids == "paths" else f"id{next(self._counter)}"
        self.files[path] = _File(item_id, raw, f"v{next(self._counter)}")

    def remove(self, path: str) -> None:
        """Delete a file at the source."""
        del self.files[path]

    def rename(self, old: str, new: str) -> None:
        """Rename a file at the source: same id (unless ids are paths), same content."""
        moved = self.files.pop(old)
        if self.ids == "paths":
            moved = _File(new, moved.data, moved.version)
        self.files[new] = moved

    def item(self, path: str) -> RemoteItem:
        """The listing's item for `path`."""
        f = self.files[path]
        digest = f"md5:{hashlib.md5(f.data).hexdigest()}" if self.hashes else None
        return RemoteItem(f.item_id, path, len(f.data), f.version, 0.0, digest)

    async def listing(self) -> list[RemoteItem]:
        """Every file, or the failure it was told to give."""
        self.listings += 1
        self.listed.set()
        if self.hold is not None:
            await self.hold.wait()
        if self.fail_listing is not None:
            raise self.fail_listing
        return [*(self.item(path) for path in self.files), *self.extra_items]

    async def fetch(self, item: RemoteItem, target: Path) -> None:
        """Write the file's content to `target`, or fail half-way as told."""
        self.fetched.append(item.path)
        failure = self.fail_fetch.get(item.path)
        if failure is not None:
            # a partial write the mirror must not leave behind
            target.write_bytes(b"half")  # noqa: ASYNC240 - a few bytes, as a server's would be
            raise failure
        data = self.files[item.path].data
        if item.path in self.change_while_fetched:
            data += b" and more written meanwhile"
        target.write_bytes(data)  # noqa: ASYNC240 - small files; a thread would cost more

    async def close(self) -> None:
        """Nothing to release."""
        self.closed = True
