"""What one pass must do to make a source's folder match a complete listing: a pure function.

`plan` compares the listing with what the mirror placed (`Placed`) and what the folder holds now
(`Local`) and says which items to fetch, which files to move (a rename at the source), and which
files to delete. No disk, no network: the mirror (`bot.documents.sources.mirror`) does the work
and its guard decides whether the deletions may go ahead.

- unchanged: placed, same id and version, and the local file as it was placed;
- moved: a path the listing lacks whose placed item reappears at a new path, recognised by its
  id (where ids survive a rename) or, where ids are paths, by the same content hash and size;
  the local file must be as placed and nothing may stand at the new path;
- fetched: everything else listed: new items, new versions, files edited or removed locally,
  files at a listed path the mirror did not place;
- deleted: every visible file in the folder that the listing lacks and no move takes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from bot.documents.sources.remote import RemoteItem
from bot.documents.sources.state import Placed


@dataclass(frozen=True, slots=True)
class Local:
    """A file in the source's folder now."""

    size: int
    mtime_ns: int


@dataclass(frozen=True, slots=True)
class Fetch:
    """An item to download: new at its path (`added`) or replacing what is there (`changed`)."""

    item: RemoteItem
    kind: Literal["added", "changed"]


@dataclass(frozen=True, slots=True)
class Move:
    """A placed file to rename from `source` to `item.path`; `refetch` when the item's content
    changed too (same id, new version, no hash saying otherwise)."""

    source: str
    item: RemoteItem
    refetch: bool


@dataclass(slots=True)
class Plan:
    """The work of one pass; `kept` is what the state keeps as it is (the unchanged files)."""

    fetches: list[Fetch] = field(default_factory=list)
    moves: list[Move] = field(default_factory=list)
    deletions: list[str] = field(default_factory=list)
    kept: dict[str, Placed] = field(default_factory=dict)


def as_placed(placed: Placed, local: Local) -> bool:
    """Whether the local file is the one the mirror placed (nobody edited or replaced it)."""
    return placed.local_size == local.size and placed.local_mtime_ns == local.mtime_ns


def plan(items: dict[str, RemoteItem], placed: dict[str, Placed], local: dict[str, Local]) -> Plan:
    """The work that makes the folder (`local`) match the listing (`items`, by path)."""
    work = Plan()
    gone = {
        path: entry
        for path, entry in placed.items()
        if path not in items and path in local and as_placed(entry, local[path])
    }
    by_id = {entry.item_id: path for path, entry in gone.items()}
    by_hash = {
        (entry.content_hash, entry.size): path
        for path, entry in gone.items()
        if entry.content_hash is not None
    }
    taken: set[str] = set()
    for path, item in items.items():
        entry = placed.get(path)
        here = local.get(path)
        if entry is not None and here is not None:
            if (
                entry.item_id == item.item_id
                and entry.version == item.version
                and as_placed(entry, here)
            ):
                work.kept[path] = entry
            else:
                work.fetches.append(Fetch(item, "changed"))
            continue
        if here is not None:  # a file the mirror did not place, at a listed path
            work.fetches.append(Fetch(item, "changed"))
            continue
        source = _moved_from(item, by_id, by_hash, taken)
        if source is None:
            work.fetches.append(Fetch(item, "added"))
            continue
        taken.add(source)
        before = placed[source]
        same_content = item.content_hash is not None and item.content_hash == before.content_hash
        refetch = before.version != item.version and not same_content
        work.moves.append(Move(source, item, refetch))
    work.deletions = sorted(path for path in local if path not in items and path not in taken)
    return work


def _moved_from(
    item: RemoteItem,
    by_id: dict[str, str],
    by_hash: dict[tuple[str, int], str],
    taken: set[str],
) -> str | None:
    """The gone path `item` was renamed from, if its id or its content says so."""
    source = by_id.get(item.item_id)
    if source is not None and source != item.path and source not in taken:
        return source
    if item.content_hash is None:
        return None
    source = by_hash.get((item.content_hash, item.size))
    if source is not None and source not in taken:
        return source
    return None
