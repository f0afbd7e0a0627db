"""Deleting, moving and restoring documents for admins, with the search index kept in step.

Every path an admin names goes through the jail (`Sandbox.locate`), the same one the model's
tools use: nothing outside the documents folder, nothing hidden (so not the trash itself), no
link followed out. What the jail settled on is what the rest is checked against: the path as
named (after `..` and stray spaces) must not be a link, and what is deleted or moved must not
hold the bot's own data (a DATA_DIR inside the documents folder). Deleting moves to the trash
(`bot.documents.trash`); nothing is ever overwritten, by a move or by a restore. Once the files
are where they belong, each affected document is refreshed in the index at once, so search
stops finding a deleted file, and finds a moved or restored one under its new path, before the
admin's reply is sent.

In a scoped chat an admin works within the chat's scope, as a question there would: a path
outside it is "not there", exactly like a missing one, the whole of what is deleted or moved and
where it goes must lie inside it, and `/trash` lists and restores only what was inside it.

No aiogram here; the Telegram wing asks and confirms, this does the work.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from bot.documents.trash import RestoreConflict, Trash, TrashItem, move_without_overwrite
from tools import Toolbox
from tools.errors import PathNotFoundError, SandboxError
from tools.jail.scope import Scope

log = logging.getLogger(__name__)

Problem = Literal[
    "empty", "invalid", "outside", "missing", "root", "link", "exists", "inside", "protected"
]
"""Why a path was refused: none given, malformed or hidden, leading out of the documents
folder, nothing there, the folder itself, a link, the target taken, a folder into itself, or
holding the bot's own data."""


class DocumentError(Exception):
    """A path an admin named cannot be used; `problem` picks the message, `path` is quoted."""

    def __init__(self, problem: Problem, path: str) -> None:
        super().__init__(f"{problem}: {path}")
        self.problem = problem
        self.path = path


@dataclass(frozen=True, slots=True)
class Moved:
    """Where a move took a file or folder, both relative to the documents folder."""

    source: str
    target: str


class Documents:
    """The documents folder as admins change it; `clock` gives Unix time (tests move it)."""

    def __init__(self, toolbox: Toolbox, *, clock: Callable[[], float] = time.time) -> None:
        self._toolbox = toolbox
        self._clock = clock
        self.trash = Trash(toolbox.sandbox.root)

    # --- checks, before the confirm button ----------------------------------------------
    async def existing(self, rel: str, scope: Scope | None = None) -> str:
        """The path `rel` names, as the index knows it, when it may be deleted or moved.

        Raises:
            DocumentError: why not.
        """
        real = await asyncio.to_thread(self._resolve, rel, scope=scope)
        return self._toolbox.sandbox.relative(real)

    async def move_target(self, source: str, target: str, scope: Scope | None = None) -> Moved:
        """Where moving `source` to `target` would put it: into `target` when it is a folder or
        ends with `/` (a folder made for it), else under that name.

        Raises:
            DocumentError: why the move cannot be done.
        """
        return await asyncio.to_thread(self._plan_move, source, target, scope)

    # --- changes ------------------------------------------------------------------------
    async def delete(self, rel: str, *, by: int | None, scope: Scope | None = None) -> TrashItem:
        """Move `rel` to the trash and drop its documents from the index."""
        real = await asyncio.to_thread(self._resolve, rel, scope=scope)
        shown = self._toolbox.sandbox.relative(real)
        files = await asyncio.to_thread(self._files_at, shown)
        item = await asyncio.to_thread(self.trash.put, real, shown, by=by, now=self._clock())
        await self._refresh(files)
        log.info("moved %s to the trash as %s", shown, item.item_id)
        return item

    async def move(self, source: str, target: str, scope: Scope | None = None) -> Moved:
        """Move `source` to `target` without overwriting anything; the index follows."""
        plan = await asyncio.to_thread(self._plan_move, source, target, scope)
        before = await asyncio.to_thread(self._files_at, plan.source)
        await asyncio.to_thread(self._move, plan)
        after = await asyncio.to_thread(self._files_at, plan.target)
        await self._refresh([*before, *after])
        log.info("moved %s to %s", plan.source, plan.target)
        return plan

    async def trashed(self, scope: Scope | None = None) -> list[TrashItem]:
        """What is in the trash (from inside `scope`), newest first."""
        items = await asyncio.to_thread(self.trash.items)
        spelled = await asyncio.to_thread(self._spelled, scope)
        return [item for item in items if spelled is None or spelled.covers(item.path)]

    async def restore(self, item_id: str, scope: Scope | None = None) -> TrashItem | None:
        """Put a trashed item back where it was; None when the trash no longer has it (or it
        was outside `scope`).

        Raises:
            DocumentError: `exists` when something now lives at its path (nothing is moved),
                or its old place can no longer be used.
        """
        item = await asyncio.to_thread(self.trash.find, item_id)
        spelled = await asyncio.to_thread(self._spelled, scope)
        if item is None or (spelled is not None and not spelled.covers(item.path)):
            return None
        await asyncio.to_thread(self._restore, item, scope)
        await self._refresh(await asyncio.to_thread(self._files_at, item.path))
        log.info("restored %s from the trash", item.path)
        return item

    async def purge_trash(self, older_than_s: float) -> int:
        """Delete for good what has been in the trash longer than `older_than_s`."""
        cutoff = self._clock() - older_than_s
        return await asyncio.to_thread(self.trash.purge_older, cutoff)

    # --- in a thread --------------------------------------------------------------------
    def _resolve(
        self,
        rel: str,
        *,
        must_exist: bool = True,
        scope: Scope | None = None,
        into: bool = False,
    ) -> Path:
        """The real path `rel` names, or `DocumentError`; `into`: the place things go to, which
        may be the documents folder itself."""
        if not rel.strip():
            raise DocumentError("empty", rel)
        sandbox = self._toolbox.sandbox
        jail = sandbox.within(scope)
        try:
            found = jail.locate(rel, must_exist=must_exist)
        except PathNotFoundError:
            raise DocumentError("missing", rel) from None
        except SandboxError as exc:
            raise DocumentError("outside" if exc.reason == "escape" else "invalid", rel) from None
        real = found.real
        if real == sandbox.root and not into:
            raise DocumentError("root", rel)
        if jail.scope is not None and not jail.scope.covers(sandbox.relative(real)):
            raise DocumentError("missing", rel)  # a folder on the way to the scope: not its own
        if found.named and os.path.islink(sandbox.root / found.named):
            raise DocumentError("link", rel)
        if not into and sandbox.holds_reserved(real):
            raise DocumentError("protected", rel)
        return real

    def _spelled(self, scope: Scope | None) -> Scope | None:
        """`scope` as the jail compares it: its folders as named on disk, compared exactly."""
        return self._toolbox.sandbox.within(scope).scope

    def _plan_move(self, source: str, target: str, scope: Scope | None) -> Moved:
        real_source = self._resolve(source, scope=scope)
        real_target = self._resolve(target, must_exist=False, scope=scope, into=True)
        if real_target.is_dir() or target.rstrip().endswith(("/", "\\")):
            real_target = real_target / real_source.name
        sandbox = self._toolbox.sandbox
        if real_target == real_source or real_source in real_target.parents:
            raise DocumentError("inside", target)
        if os.path.lexists(real_target):
            raise DocumentError("exists", sandbox.relative(real_target))
        parent = next((p for p in real_target.parents if p.exists()), sandbox.root)
        if not parent.is_dir():
            raise DocumentError("invalid", target)
        return Moved(sandbox.relative(real_source), sandbox.relative(real_target))

    def _move(self, plan: Moved) -> None:
        root = self._toolbox.sandbox.root
        target = root / plan.target
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            move_without_overwrite(root / plan.source, target, RestoreConflict)
        except RestoreConflict:
            raise DocumentError("exists", plan.target) from None

    def _restore(self, item: TrashItem, scope: Scope | None) -> None:
        target = self._resolve(item.path, must_exist=False, scope=scope)
        try:
            self.trash.restore(item, target)
        except RestoreConflict:
            raise DocumentError("exists", item.path) from None

    def _files_at(self, rel: str) -> list[str]:
        """The documents at `rel`: the file itself, or every file below the folder."""
        sandbox = self._toolbox.sandbox
        if not (sandbox.root / rel).is_dir():
            return [rel]
        return [entry.rel for entry in sandbox.walk(rel) if not entry.is_dir]

    async def _refresh(self, paths: list[str]) -> None:
        for rel in dict.fromkeys(paths):
            try:
                await self._toolbox.refresh(rel)
            except Exception:  # the change is made; the watcher's next pass indexes it
                log.exception("refreshing %s in the index failed", rel)
