"""The mirror engine: one pass takes a source's listing, plans, and applies it to its folder.

The rules every kind gets, whatever its protocol:

- A listing that raises deletes nothing: the pass ends there, reported with the source's
  problem and its one line (which holds no secret).
- An empty listing where the folder holds files is suspicious (a wrong prefix, a mailbox
  emptied by mistake, a server answering nothing): nothing is deleted, the admins are asked.
- After a complete listing, every visible file in the folder the listing lacks (the source owns
  its folder, so files it did not place count too; hidden names excepted) goes to the bot's
  trash, restorable with /trash, and into the audit log as the source's (`source:<name>`).
- More than `max_delete_percent` of the folder's files to delete at once: none is deleted and
  the set is kept as a `PendingDeletion` whose token is tied to exactly those paths. Additions,
  changes and moves still go ahead (they destroy nothing and a source left half-updated would
  answer from stale files). `confirm(token)` lets the next pass delete exactly that set; if the
  set changed meanwhile, it has another token and is asked again.
- A rename at the source (the same id at a new path, or the same content hash and size where ids
  are paths) is a rename here, not a delete and a download.
- A download is written under a dot name beside its place (`.<name>.part-<hex>`) and renamed
  into place only when whole; a failed fetch leaves no partial file and the old version stays.
  An item whose size differs from the listing's when fetched was being written at the source:
  the download is dropped and the item fetched again on the next pass.
- Each changed path is refreshed in the search index at once (`refresh`), so a deleted document
  stops being found within the pass.

One pass at a time per `Mirror` (an asyncio lock); across processes the runner takes a lock.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from bot.documents.sources import folder as disk
from bot.documents.sources.plan import Fetch, Local, Move, Plan, plan
from bot.documents.sources.remote import RemoteItem, Source, SourceError
from bot.documents.sources.state import (
    PassReport,
    PendingDeletion,
    Placed,
    SourceState,
    StateStore,
    deletion_token,
)
from bot.documents.trash import RestoreConflict, Trash, move_without_overwrite
from bot.storage.audit import AuditLog
from tools.errors import SandboxError
from tools.jail.sandbox import Sandbox, shown

log = logging.getLogger(__name__)

Refresh = Callable[[str], Awaitable[object]]
"""Index one path of the documents folder now (`Toolbox.refresh`)."""

FETCHES_AT_ONCE = 4
_SAVE_EVERY = 200


@dataclass(frozen=True, slots=True)
class PassOutcome:
    """A pass's report, the deletion waiting for a confirmation after it (if any), and whether
    this pass is the one that asked (a new set), so admins are told once per set."""

    report: PassReport
    pending: PendingDeletion | None = None
    asked: bool = False
    items: int = 0
    """Files the mirror has placed in the folder after the pass."""


@dataclass(slots=True)
class _Tally:
    added: int = 0
    changed: int = 0
    moved: int = 0
    removed: int = 0
    skipped: int = 0
    failures: list[str] = field(default_factory=list)
    unsafe: list[str] = field(default_factory=list)


class Mirror:
    """One source applied to its folder (`folder`, relative to the documents folder `root`)."""

    def __init__(
        self,
        source: Source,
        *,
        folder: str,
        root: Path,
        store: StateStore,
        trash: Trash,
        max_delete_percent: float,
        audit: AuditLog | None = None,
        refresh: Refresh | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.source = source
        self.name = source.name
        self.folder = folder
        self._root = Path(os.path.realpath(root))
        self._real = self._root / folder
        self._store = store
        self._trash = trash
        self.max_delete_percent = max_delete_percent
        self._audit = audit
        self._refresh = refresh
        self._clock = clock
        self._turn = asyncio.Lock()
        self._jail: Sandbox | None = None

    async def state(self) -> SourceState:
        """What is kept for this source now."""
        return await asyncio.to_thread(self._store.load, self.name)

    async def confirm(self, token: str) -> bool:
        """Let the next pass delete the pending set `token` names; False when no pending set
        has that token (it changed, or was done)."""
        async with self._turn:
            state = await self.state()
            if state.pending is None or state.pending.token != token:
                return False
            state.pending = replace(state.pending, confirmed=True)
            await asyncio.to_thread(self._store.save, self.name, state)
            return True

    async def run_pass(self) -> PassOutcome:
        """List, plan, apply; the report is kept with the state and returned."""
        async with self._turn:
            state = await self.state()
            outcome = await self._pass(state)
            state.last = outcome.report
            if outcome.report.ok:
                state.last_success = outcome.report.at
            await asyncio.to_thread(self._store.save, self.name, state)
            return replace(outcome, items=len(state.placed))

    # --- the pass -----------------------------------------------------------------------
    async def _pass(self, state: SourceState) -> PassOutcome:
        started = self._clock()
        try:
            listing = await self.source.listing()
        except SourceError as exc:
            line = f"the listing failed ({exc.problem}): {exc}; nothing was deleted"
            log.warning("source %s: %s", self.name, line)
            return PassOutcome(PassReport(started, problem=exc.problem, error=line), state.pending)
        except Exception as exc:  # a kind's bug: its text may quote a URL, so only its type
            log.error("source %s: the listing failed unexpectedly (%s)", self.name, type(exc))
            line = f"the listing failed unexpectedly ({type(exc).__name__}); nothing was deleted"
            return PassOutcome(PassReport(started, problem="broken", error=line), state.pending)
        tally = _Tally()
        items = self._checked(listing, tally)
        local = await asyncio.to_thread(disk.scan, self._real)
        work = plan(items, state.placed, local)
        placed = dict(work.kept)
        allowed, pending, asked = self._guard(work, state, local, listed=len(listing))
        await self._moves(work.moves, state.placed, placed, tally)
        if allowed:
            await self._delete(work.deletions, tally)
        else:
            placed.update({p: state.placed[p] for p in work.deletions if p in state.placed})
        fetches = [*work.fetches, *(Fetch(m.item, "changed") for m in work.moves if m.refetch)]
        await self._fetch_all(fetches, state, placed, tally)
        state.placed = placed
        state.pending = pending
        await asyncio.to_thread(disk.prune_empty, self._real, [*work.deletions, *_sources(work)])
        report = self._report(started, work, tally, pending, listed=len(listing))
        log.info(
            "source %s: %d added, %d changed, %d moved, %d removed, %d unchanged%s",
            self.name,
            report.added,
            report.changed,
            report.moved,
            report.removed,
            report.unchanged,
            f"; {report.error}" if report.error else "",
        )
        return PassOutcome(report, pending, asked)

    def _checked(self, listing: list[RemoteItem], tally: _Tally) -> dict[str, RemoteItem]:
        """The listing by path, without the paths that may not be placed."""
        items: dict[str, RemoteItem] = {}
        for item in listing:
            reason = disk.refused(item.path)
            if reason is None and item.path in items:
                reason = "listed twice"
            if reason is None:
                items[item.path] = item
                continue
            tally.skipped += 1
            if reason != "hidden":
                tally.unsafe.append(f"{shown(item.path, 80)!r} ({reason})")
                log.warning("source %s: skipped %r: %s", self.name, shown(item.path), reason)
        return items

    def _guard(
        self, work: Plan, state: SourceState, local: dict[str, Local], *, listed: int
    ) -> tuple[bool, PendingDeletion | None, bool]:
        """Whether the deletions may go ahead; the pending set after this pass; whether this
        pass asks anew."""
        if not work.deletions:
            return True, None, False
        suspicious = listed == 0
        too_many = len(work.deletions) * 100 > self.max_delete_percent * len(local)
        if not (suspicious or too_many):
            return True, None, False
        token = deletion_token(set(work.deletions))
        before = state.pending
        if before is not None and before.token == token:
            if before.confirmed:
                return True, None, False
            return False, before, False
        pending = PendingDeletion(token, tuple(work.deletions), len(local), self._clock())
        log.warning(
            "source %s: %d of %d files would be deleted%s; nothing deleted until an admin "
            "confirms",
            self.name,
            pending.count,
            pending.total,
            " (the listing is empty)" if suspicious else "",
        )
        return False, pending, True

    async def _moves(
        self,
        moves: list[Move],
        before: dict[str, Placed],
        placed: dict[str, Placed],
        tally: _Tally,
    ) -> None:
        for move in moves:
            target = move.item.path
            try:
                real = await asyncio.to_thread(self._move, move.source, target)
            except (OSError, SandboxError, RestoreConflict) as exc:
                tally.failures.append(f"{shown(target, 80)!r}: cannot be moved ({_why(exc)})")
                placed[move.source] = before[move.source]
                continue
            item = move.item
            placed[target] = Placed(
                item.item_id, item.version, item.size, item.content_hash, *real
            )
            if move.refetch:
                placed[target] = replace(placed[target], version="")
            tally.moved += 1
            await self._record("move", self._rel(move.source), self._rel(target))
            await self._index(self._rel(move.source), self._rel(target))

    def _move(self, source: str, target: str) -> tuple[int, int]:
        real = self._jailed(target)
        real.parent.mkdir(parents=True, exist_ok=True)
        move_without_overwrite(self._real / source, real, RestoreConflict)
        st = real.lstat()
        return st.st_size, st.st_mtime_ns

    async def _delete(self, paths: list[str], tally: _Tally) -> None:
        for path in paths:
            rel = self._rel(path)
            try:
                await asyncio.to_thread(
                    self._trash.put, self._real / path, rel, by=None, now=self._clock()
                )
            except OSError as exc:
                tally.failures.append(f"{shown(path, 80)!r}: cannot be deleted ({_why(exc)})")
                continue
            tally.removed += 1
            await self._record("delete", rel, "not at the source")
            await self._index(rel)

    async def _fetch_all(
        self, fetches: list[Fetch], state: SourceState, placed: dict[str, Placed], tally: _Tally
    ) -> None:
        gate = asyncio.Semaphore(FETCHES_AT_ONCE)
        done = 0

        async def one(fetch: Fetch) -> None:
            nonlocal done
            path = fetch.item.path
            async with gate:
                result = await self._fetch(fetch.item)
            if isinstance(result, str):
                tally.failures.append(result)
                if path in state.placed:
                    placed[path] = state.placed[path]  # the old version stays
                return
            if result is None:
                tally.skipped += 1
                if path in state.placed:
                    placed[path] = state.placed[path]
                return
            placed[path] = result
            if fetch.kind == "added":
                tally.added += 1
            else:
                tally.changed += 1
            await self._index(self._rel(path))
            done += 1
            if done % _SAVE_EVERY == 0:
                snapshot = SourceState({**state.placed, **placed}, state.last, state.last_success)
                snapshot.pending = state.pending
                await asyncio.to_thread(self._store.save, self.name, snapshot)

        await asyncio.gather(*(one(fetch) for fetch in fetches))

    async def _fetch(self, item: RemoteItem) -> Placed | str | None:
        """The item placed; a line saying why it was not; None when it changed meanwhile."""
        try:
            final, stage = await asyncio.to_thread(self._staged, item.path)
        except (OSError, SandboxError) as exc:
            return f"{shown(item.path, 80)!r}: cannot be written ({_why(exc)})"
        try:
            await self.source.fetch(item, stage)
        except SourceError as exc:
            await asyncio.to_thread(_unlink, stage)
            return f"{shown(item.path, 80)!r}: {exc}"
        except OSError as exc:
            await asyncio.to_thread(_unlink, stage)
            return f"{shown(item.path, 80)!r}: cannot be written ({_why(exc)})"
        except BaseException as exc:
            await asyncio.to_thread(_unlink, stage)
            if not isinstance(exc, Exception):
                raise
            # a kind's bug: its text may quote a URL, so only its type
            log.error("source %s: fetching failed unexpectedly (%s)", self.name, type(exc))
            return f"{shown(item.path, 80)!r}: the fetch failed ({type(exc).__name__})"
        try:
            return await asyncio.to_thread(self._place, item, stage, final)
        except OSError as exc:
            return f"{shown(item.path, 80)!r}: cannot be written ({_why(exc)})"

    def _staged(self, path: str) -> tuple[Path, Path]:
        """Where `path` goes (through the jail) and the dot name its download is written to."""
        final = self._jailed(path)
        final.parent.mkdir(parents=True, exist_ok=True)
        return final, disk.stage_name(final)

    def _place(self, item: RemoteItem, stage: Path, final: Path) -> Placed | None:
        """Rename the whole download into place; None (and no file) when it is not the size
        the listing said."""
        try:
            size = stage.stat().st_size
            if item.size >= 0 and size != item.size:
                log.info(
                    "source %s: %s changed while it was fetched; fetched again next pass",
                    self.name,
                    shown(item.path),
                )
                return None
            os.replace(stage, final)
        finally:
            stage.unlink(missing_ok=True)
        st = final.stat()
        return Placed(
            item.item_id, item.version, item.size, item.content_hash, st.st_size, st.st_mtime_ns
        )

    def _jailed(self, path: str) -> Path:
        """Where `path` goes, through the jail of the source's folder (which is made)."""
        if self._jail is None:
            self._real.mkdir(parents=True, exist_ok=True)
            self._jail = Sandbox(self._real)
        located = self._jail.locate(path, must_exist=False)
        if located.named != path:
            raise SandboxError(f"'{shown(path)}' is not a plain path", "invalid")
        return located.real

    # --- around the work ----------------------------------------------------------------
    def _rel(self, path: str) -> str:
        """`path` in the source's folder as the documents folder names it."""
        return f"{self.folder}/{path}"

    async def _record(self, action: Literal["move", "delete"], rel: str, detail: str) -> None:
        if self._audit is None:
            return
        try:
            await self._audit.record(
                action, rel, actor_id=None, actor_name=f"source:{self.name}", detail=detail
            )
        except Exception:  # the file is in the trash already; the log line says what was lost
            log.exception("source %s: the audit entry for %s was not written", self.name, rel)

    async def _index(self, *paths: str) -> None:
        if self._refresh is None:
            return
        for rel in paths:
            try:
                await self._refresh(rel)
            except Exception:  # the change is made; the watcher's next pass indexes it
                log.exception("refreshing %s in the index failed", rel)

    def _report(
        self,
        started: float,
        work: Plan,
        tally: _Tally,
        pending: PendingDeletion | None,
        *,
        listed: int,
    ) -> PassReport:
        problem: str | None = None
        error: str | None = None
        if tally.failures:
            problem = "fetch"
            first = tally.failures[0]
            error = f"{len(tally.failures)} item(s) failed, the first: {first}"
        if tally.unsafe:
            problem = problem or "unsafe"
            line = f"{len(tally.unsafe)} remote path(s) refused, the first: {tally.unsafe[0]}"
            error = f"{error}; {line}" if error else line
        if pending is not None:
            problem = "suspicious" if listed == 0 else "guard"
            why = "the listing is empty" if listed == 0 else "over the limit"
            line = (
                f"{pending.count} of {pending.total} files would be deleted ({why}: "
                f"{self.max_delete_percent:g} %); nothing deleted until an admin confirms"
            )
            error = f"{line}; {error}" if error else line
        return PassReport(
            started,
            added=tally.added,
            changed=tally.changed,
            moved=tally.moved,
            removed=tally.removed,
            unchanged=len(work.kept),
            skipped=tally.skipped,
            problem=problem,
            error=error,
        )


def _sources(work: Plan) -> list[str]:
    return [move.source for move in work.moves]


def _unlink(path: Path) -> None:
    path.unlink(missing_ok=True)


def _why(exc: Exception) -> str:
    """An OS or jail error in a few words, without a host path."""
    if isinstance(exc, OSError):
        return exc.strerror or type(exc).__name__
    if isinstance(exc, RestoreConflict):
        return "something is already there"
    return str(exc)
