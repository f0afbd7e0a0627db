"""What the contract suite needs of a real server holding a source's files.

Each kind's module in this package starts a real server on 127.0.0.1 (wsgidav, moto, dovecot,
`rclone serve`) in a fixture and hands the suite a `Remote`: a way to change what the server
holds, as a person at the source would, and to open our `Source` on it. The suite then checks
every kind by the same rules (`tests/sources/test_contract.py`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import pytest

from bot.documents.sources.config import Credentials, SourceConfig
from bot.documents.sources.registry import open_source
from bot.documents.sources.remote import Source, SourceError
from tests.sources.servers.cutting_proxy import CuttingProxy


@dataclass(frozen=True, slots=True)
class Configured:
    """A source on a test server as the bot is given it: its table of the sources file, and
    the environment variables its credentials are read from (`config` names them)."""

    config: SourceConfig
    env: dict[str, str]

    def open(self) -> Source:
        """Our `Source` on the server, opened by its kind's module as the bot opens it."""
        return open_source(self.config, Credentials(self.env))


@dataclass(frozen=True, slots=True)
class Abilities:
    """What a kind's source can do, so the suite skips with a reason instead of failing.

    `paths`: items keep the name they were put under (a mailbox names its messages itself).
    `change`: an item can be changed in place (a mail message cannot).
    `rename`: an item can be renamed or moved at the source.
    """

    paths: bool = True
    change: bool = True
    rename: bool = True


class Remote(Protocol):
    """A real server holding one source's items, and the hands to change them."""

    kind: str
    abilities: Abilities

    def put(self, name: str, text: str) -> None:
        """Create or replace the item `name` (a path such as `hr/leave.txt`) holding `text`.

        A mailbox appends a message with `name` as its subject and `text` as its body.
        """
        ...

    def delete(self, name: str) -> None:
        """Remove the item put under `name`."""
        ...

    def rename(self, old: str, new: str) -> None:
        """Move the item put under `old` to `new`."""
        ...

    def stop(self) -> None:
        """Stop the server: the next listing finds nobody."""
        ...

    def served(self) -> int:
        """Bytes the server has sent back so far (it sits behind a `CuttingProxy`)."""
        ...

    def cut_after(self, nbytes: int | None) -> None:
        """Drop every connection once the server has sent `nbytes` more bytes, as a server
        that dies mid-listing does; None heals it."""
        ...

    def configured(self, *, wrong_credentials: bool = False) -> Configured:
        """The sources file's table for this server and the credentials' environment; with
        `wrong_credentials`, the same variables holding a credential the server refuses."""
        ...

    def source(self, *, wrong_credentials: bool = False) -> Source:
        """Our `Source` on this server (`configured`, opened by its kind's module); with
        `wrong_credentials`, one that logs in wrongly."""
        ...

    @property
    def secrets(self) -> list[str]:
        """The credentials this remote's sources use, which no error may quote."""
        ...


class BehindProxy:
    """What every kind's `Remote` does alike: its server sits behind a `CuttingProxy`, which
    counts the bytes the server sends and cuts the connections when told."""

    _proxy: CuttingProxy

    def served(self) -> int:
        return self._proxy.served

    def cut_after(self, nbytes: int | None) -> None:
        self._proxy.cut_after(nbytes)


async def failed_listing(source: Source) -> SourceError:
    """The error of a listing that must fail; the source is closed after it either way."""
    try:
        with pytest.raises(SourceError) as caught:
            await source.listing()
    finally:
        await source.close()
    return caught.value
