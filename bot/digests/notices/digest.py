"""A batch of changes as one subscriber sees it: each document once, moves paired.

Within a batch only the net effect of each path counts (a file added, then edited, is new; a
file added and deleted again is nothing), and a document that went from one path while one
with the same size and time appeared at another was moved (renamed). The subscriber's `shows`
decides which paths may be named at all: what it refuses is left out before anything is
paired, so a move from a folder the subscriber cannot see is told as a new document, and one
into such a folder as a removed one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

from bot.storage.notices import Change

ItemKind = Literal["added", "changed", "removed", "moved"]


@dataclass(frozen=True, slots=True)
class Item:
    """One document in a digest; `source` is where a moved one was."""

    kind: ItemKind
    path: str
    source: str = ""


@dataclass(frozen=True, slots=True)
class Digest:
    """What one subscriber is told about one folder: `folder` (`""`: everything they see)."""

    folder: str
    items: tuple[Item, ...]

    def of(self, kind: ItemKind) -> list[Item]:
        """The items of one kind, by path."""
        return [item for item in self.items if item.kind == kind]


def in_folder(path: str, folder: str) -> bool:
    """Whether `path` lies in `folder` (`""`: the whole documents folder)."""
    return not folder or path == folder or path.startswith(folder + "/")


def digest(folder: str, changes: Iterable[Change], shows: Callable[[str], bool]) -> Digest:
    """The items `changes` (oldest first) make for a subscriber to `folder` who may see the
    paths `shows` allows."""
    first: dict[str, Change] = {}
    last: dict[str, Change] = {}
    for change in changes:
        if in_folder(change.path, folder) and shows(change.path):
            first.setdefault(change.path, change)
            last[change.path] = change
    added: list[Change] = []
    removed: list[Change] = []
    items: list[Item] = []
    for path, change in last.items():
        existed = first[path].kind != "added"
        exists = change.kind != "removed"
        if exists and not existed:
            added.append(change)
        elif existed and not exists:
            removed.append(change)
        elif existed and exists:
            items.append(Item("changed", path))
    items += _paired(added, removed)
    order = {"added": 0, "moved": 1, "changed": 2, "removed": 3}
    return Digest(folder, tuple(sorted(items, key=lambda i: (order[i.kind], i.path))))


def _paired(added: list[Change], removed: list[Change]) -> list[Item]:
    """Moves where a removed document's size and time match an added one's (the same name
    first), then what is left as added and removed."""
    gone: dict[tuple[int, int], list[Change]] = {}
    for change in removed:
        gone.setdefault((change.size, change.mtime_ns), []).append(change)
    items: list[Item] = []
    taken: set[str] = set()
    for change in added:
        same = gone.get((change.size, change.mtime_ns), [])
        candidates = [c for c in same if c.path not in taken]
        if not candidates:
            items.append(Item("added", change.path))
            continue
        name = change.path.rpartition("/")[2]
        source = next((c for c in candidates if c.path.rpartition("/")[2] == name), candidates[0])
        taken.add(source.path)
        items.append(Item("moved", change.path, source.path))
    items += [Item("removed", c.path) for c in removed if c.path not in taken]
    return items
