"""The documents folder's hidden trash: deleted files wait there to be restored or to expire.

A deleted file or folder is moved (renamed, so nothing is copied) to `.trash/<id>/<name>` inside
the documents folder, beside `.trash/<id>.json`, which says where it came from, who deleted it
and when. The dot makes the whole trash invisible to the tools, the index, the watcher and
`/files`, like every hidden name, so a deleted document can never be found or read by the
model. The id is short and random: a restore button carries it and nothing else.

Everything here is blocking file work; callers run it in a thread.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

TRASH_DIR = ".trash"
_ID_BYTES = 6
_ID = re.compile(r"[A-Za-z0-9_-]{8}")


class RestoreConflict(Exception):
    """Something already lives where a trashed item would return; nothing was moved."""


@dataclass(frozen=True, slots=True)
class TrashItem:
    """One deleted file or folder."""

    item_id: str
    path: str
    """Where it was, relative to the documents folder."""
    deleted_at: float
    """Unix time."""
    deleted_by: int | None
    is_dir: bool


def is_trash_id(text: str) -> bool:
    """Whether `text` has the shape of an id the trash makes."""
    return _ID.fullmatch(text) is not None


class Trash:
    """The trash of one documents folder (`root` is that folder, already resolved)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.folder = root / TRASH_DIR

    def put(self, real: Path, rel: str, *, by: int | None, now: float) -> TrashItem:
        """Move `real` (shown as `rel`) into the trash; its record is written first, so a crash
        between the two steps leaves a record without an item, which is dropped when listed."""
        self.folder.mkdir(exist_ok=True)
        while True:
            item_id = secrets.token_urlsafe(_ID_BYTES)
            slot = self.folder / item_id
            try:
                slot.mkdir()
                break
            except FileExistsError:  # a clash of 48 random bits draws again
                continue
        item = TrashItem(item_id, rel, now, by, real.is_dir())
        record = {"path": rel, "deleted_at": now, "deleted_by": by, "is_dir": item.is_dir}
        self._record(item_id).write_text(json.dumps(record, ensure_ascii=False), "utf-8")
        try:
            real.rename(slot / real.name)
        except OSError:
            self._drop(item_id)
            raise
        return item

    def items(self) -> list[TrashItem]:
        """Everything in the trash, newest first; broken records are skipped."""
        found = []
        with suppress(FileNotFoundError):
            for record in self.folder.glob("*.json"):
                item = self.find(record.stem)
                if item is not None:
                    found.append(item)
        return sorted(found, key=lambda i: i.deleted_at, reverse=True)

    def find(self, item_id: str) -> TrashItem | None:
        """The item under `item_id`, None when it is unknown or its record unreadable."""
        if not is_trash_id(item_id):
            return None
        try:
            data = json.loads(self._record(item_id).read_text("utf-8"))
            content = self._content(item_id)
        except (OSError, ValueError):
            return None
        if content is None:
            return None
        return TrashItem(
            item_id,
            str(data["path"]),
            float(data["deleted_at"]),
            data.get("deleted_by"),
            bool(data.get("is_dir", content.is_dir())),
        )

    def restore(self, item: TrashItem, target: Path) -> None:
        """Move the item back to `target` (resolved inside the documents folder by the caller).

        Raises:
            RestoreConflict: something exists at `target`; the item stays in the trash.
        """
        content = self._content(item.item_id)
        if content is None:
            raise FileNotFoundError(item.path)
        target.parent.mkdir(parents=True, exist_ok=True)
        move_without_overwrite(content, target, RestoreConflict)
        self._drop(item.item_id)

    def purge_older(self, cutoff: float) -> int:
        """Delete for good what was trashed before `cutoff` (Unix time); how many items."""
        dropped = 0
        for item in self.items():
            if item.deleted_at < cutoff:
                self._drop(item.item_id)
                dropped += 1
        return dropped

    def _record(self, item_id: str) -> Path:
        return self.folder / f"{item_id}.json"

    def _content(self, item_id: str) -> Path | None:
        slot = self.folder / item_id
        try:
            entries = list(slot.iterdir())
        except OSError:
            return None
        return entries[0] if len(entries) == 1 else None

    def _drop(self, item_id: str) -> None:
        shutil.rmtree(self.folder / item_id, ignore_errors=True)
        self._record(item_id).unlink(missing_ok=True)


def move_without_overwrite(source: Path, target: Path, conflict: type[Exception]) -> None:
    """Rename `source` to `target` unless something is there; `conflict` is raised if it is.

    A file is hard-linked first (which fails on an existing name, race-free) and then unlinked;
    a folder is renamed after a check, which cannot replace a folder with content.
    """
    if os.path.lexists(target):
        raise conflict(str(target))
    if source.is_dir() and not source.is_symlink():
        source.rename(target)
        return
    try:
        os.link(source, target, follow_symlinks=False)
    except FileExistsError:
        raise conflict(str(target)) from None
    except OSError:  # a file system without hard links: the checked rename is all there is
        source.rename(target)
        return
    source.unlink()
