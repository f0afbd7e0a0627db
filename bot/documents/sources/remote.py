"""What every kind of source gives the mirror: a listing of remote items and a fetch of one.

A source (a WebDAV folder, an S3 prefix, a mailbox, an rclone remote) is seen through this one
narrow seam, so the mirror engine (`bot.documents.sources.mirror`) applies every kind's listing
to its folder by the same rules and one contract test suite runs against every kind.

A listing is all or nothing: `Source.listing` returns every item under the source, or raises
`SourceError`. There is no partial listing to misread as "the rest was deleted" — that is the
whole of the deletion rule's safety, so a kind must never swallow an error of a page, a folder or
a message and return what it had so far.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

Problem = Literal["auth", "unreachable", "timeout", "missing", "refused", "broken"]
"""Why a source failed: the credentials were refused, the server could not be reached, it did
not answer in time, the folder/bucket/mailbox is not there, the server refused the request
(permissions, quota), or it answered something that cannot be read."""


class SourceError(Exception):
    """A listing or a fetch failed; `problem` says why, the message is one line for the admin.

    The message never holds a secret: a kind words it from what it knows (the host, the bucket,
    the status), never from a URL with a password in it or from a raw exception of its client
    that may quote a header.
    """

    def __init__(self, problem: Problem, message: str) -> None:
        super().__init__(message)
        self.problem = problem


@dataclass(frozen=True, slots=True)
class RemoteItem:
    """One file at the source.

    `path` is relative to the source's root, with `/` between parts and no leading slash; the
    mirror places it at the same path in the source's folder. `item_id` is what stays the same
    when the item is renamed or moved at the source, where the source has such a thing (a Drive
    file id, a WebDAV `oc:fileid`, an IMAP UID); elsewhere it is the path. `version` changes
    whenever the content does (an ETag, a version id, a modification time with the size).
    `content_hash`, when the source gives one, lets the mirror recognise a rename where ids are
    only paths: `"md5:…"` or `"sha1:…"`.
    """

    item_id: str
    path: str
    size: int
    version: str
    modified: float
    """Unix time, as the source reports it; 0.0 when it does not."""
    content_hash: str | None = None


class Source(Protocol):
    """One configured source, opened: its listing and a fetch of one of its items."""

    name: str

    async def listing(self) -> list[RemoteItem]:
        """Every file under the source, complete, or `SourceError`.

        Raises:
            SourceError: the listing could not be taken whole.
        """
        ...

    async def fetch(self, item: RemoteItem, target: Path) -> None:
        """Write `item`'s content to `target` (a new file the mirror names; its folder exists).

        The mirror stages `target` under a dot-name and renames it into place itself, so a
        kind writes plainly and need not clean up after a failure.

        Raises:
            SourceError: the item could not be read (it may have gone since the listing).
        """
        ...

    async def close(self) -> None:
        """Release connections and processes; the source is not used again."""
        ...
