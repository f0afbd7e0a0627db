"""What the contract suite needs of a real server holding a source's files.

Each kind's module in this package starts a real server on 127.0.0.1 (wsgidav, moto, dovecot,
`rclone serve`) in a fixture and hands the suite a `Remote`: a way to change what the server
holds, as a person at the source would, and to open our `Source` on it. The suite then checks
every kind by the same rules (`tests/sources/test_contract.py`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from bot.documents.sources.remote import Source


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

    def source(self, *, wrong_credentials: bool = False) -> Source:
        """Our `Source` on this server; with `wrong_credentials`, one that logs in wrongly."""
        ...

    @property
    def secrets(self) -> list[str]:
        """The credentials this remote's sources use, which no error may quote."""
        ...
