"""The configured sources, synced: one pass on request or in the background, and their status.

`Sources` is what the front doors use. `python -m bot sources` reads the status (no source is
opened for that: no credential is needed to see the last pass), runs one pass or takes a
listing; the running bot starts a background loop per source on its `every` (`start`, `stop`).
One pass of a source runs at a time, across processes too (`bot.documents.sources.locks`): a source
another process is syncing is skipped this time and says so.

The seam for the Telegram side (the /sources command, the confirm button, the Mini App tab):
`statuses()` gives one `SourceStatus` per source; `confirm(name, token)` accepts a held-back
mass deletion (`confirmed`, `stale` when the set changed since and was asked about again,
`unknown` for no such source) and wakes that source's loop so the deletion happens now;
`on_ask(callback)` registers a coroutine called with the source's `SourceStatus` whenever a
pass stops at a new set of deletions, for the admins' message with its confirm button;
`on_pass(callback)` one called after every pass that ran (a confirmation's deletion is done by
the background pass it wakes, and this is how a waiting front door or test hears it);
`on_health(callback)` one called with the status and a `Health` when the admins are to hear
that a source broke, still fails (once a day) or works again (`bot.documents.sources.health`;
what they were told is kept, so a restart or another worker does not repeat it);
`started()` waits for the first passes `start` began.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Literal, Protocol

from bot.documents.sources.config import (
    Credentials,
    SourceConfig,
    SourceSecretError,
    SourcesFileError,
)
from bot.documents.sources.health import Health, judge
from bot.documents.sources.locks import SyncLocks
from bot.documents.sources.mirror import Mirror, PassOutcome, Refresh
from bot.documents.sources.registry import open_source
from bot.documents.sources.remote import Source, SourceError
from bot.documents.sources.state import PassReport, PendingDeletion, StateStore
from bot.documents.trash import Trash
from bot.process.ticker import Ticker
from bot.storage.audit import AuditLog

log = logging.getLogger(__name__)

Opener = Callable[[SourceConfig], Source]
"""Opens a configured source (the registry's `open_source` with the process's credentials)."""
Ask = Callable[["SourceStatus"], Awaitable[None]]
Heard = Callable[["SourceStatus", Health], Awaitable[None]]
Confirmed = Literal["confirmed", "stale", "unknown"]


@dataclass(frozen=True, slots=True)
class SourceStatus:
    """One source as the admins see it: never a credential or a URL."""

    name: str
    kind: str
    folder: str
    every_s: float
    last_success: float | None
    last: PassReport | None
    pending: PendingDeletion | None


@dataclass(frozen=True, slots=True)
class Checked:
    """A source's listing taken without changing anything: how many items, or why not."""

    name: str
    items: int | None
    error: str | None = None


class SourceObserver(Protocol):
    """Hears how each pass went (the metrics)."""

    def source_synced(self, name: str, *, items: int, at: float) -> None:
        """A pass left the folder matching the source."""

    def source_failed(self, name: str) -> None:
        """A pass failed or left something undone."""


class Sources:
    """Every configured source of one process.

    `root` is the documents folder; `data` DATA_DIR/sources (the state files and locks).
    `refresh` indexes a changed path at once (the toolbox's), `audit` records deletions and
    moves, `session` (with DATABASE_URL) makes the lock shared by every worker. `credentials`
    are where the kinds read their secrets (`Credentials.beside(settings)`: the environment,
    then the .env file); `opener` replaces the registry (tests pass an in-memory remote).
    """

    def __init__(
        self,
        configs: Sequence[SourceConfig],
        *,
        root: Path,
        data: Path,
        max_delete_percent: float,
        audit: AuditLog | None = None,
        refresh: Refresh | None = None,
        locks: SyncLocks | None = None,
        observer: SourceObserver | None = None,
        credentials: Credentials | None = None,
        opener: Opener | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.configs = {config.name: config for config in configs}
        self._root = root
        self._store = StateStore(data)
        self._locks = locks or SyncLocks(data)
        self._percent = max_delete_percent
        self._audit = audit
        self._refresh = refresh
        self._observer = observer
        self._opener = opener or _registry_opener(credentials or Credentials())
        self._clock = clock
        self._mirrors: dict[str, Mirror] = {}
        self._tickers: dict[str, Ticker] = {}
        self._starting: list[asyncio.Task[None]] = []
        self._asks: list[Ask] = []
        self._passes: list[Ask] = []
        self._healths: list[Heard] = []

    @property
    def names(self) -> list[str]:
        """The sources' names, in the file's order."""
        return list(self.configs)

    def open(self, names: Sequence[str] | None = None) -> None:
        """Open the sources (all, or `names`): each kind reads its credentials now.

        Raises:
            SourceSecretError: a credential is missing; SourceKindError: a kind cannot load.
        """
        for name in names if names is not None else self.names:
            if name in self._mirrors:
                continue
            config = self.configs[name]
            source = self._opener(config)
            self._mirrors[name] = Mirror(
                source,
                folder=config.target,
                root=self._root,
                store=self._store,
                trash=Trash(self._root),
                max_delete_percent=(
                    config.max_delete_percent
                    if config.max_delete_percent is not None
                    else self._percent
                ),
                audit=self._audit,
                refresh=self._refresh,
                clock=self._clock,
            )

    def on_ask(self, callback: Ask) -> None:
        """Call `callback` with a source's status whenever a pass asks to confirm deletions."""
        self._asks.append(callback)

    def on_pass(self, callback: Ask) -> None:
        """Call `callback` with a source's status after each pass of it that ran."""
        self._passes.append(callback)

    def on_health(self, callback: Heard) -> None:
        """Call `callback` with a source's status and its `Health` when a pass broke it, it
        still fails a day after the admins were told, or it works again."""
        self._healths.append(callback)

    async def statuses(self) -> list[SourceStatus]:
        """Every source's status, from its kept state (nothing is opened or asked)."""
        return [await self.status(name) for name in self.names]

    async def status(self, name: str) -> SourceStatus:
        """One source's status."""
        config = self.configs[name]
        state = await asyncio.to_thread(self._store.load, name)
        return SourceStatus(
            name,
            config.kind,
            config.target,
            config.every,
            state.last_success,
            state.last,
            state.pending,
        )

    async def sync(self, name: str) -> PassOutcome | None:
        """One pass of `name` now (opened if it is not); None when another process is
        syncing it."""
        self.open([name])
        mirror = self._mirrors[name]
        async with self._locks.hold(name) as mine:
            if not mine:
                log.info("source %s: another process is syncing it; skipped", name)
                return None
            outcome = await mirror.run_pass()
            health = await self._judge(name, outcome) if self._healths else None
        self._observe(name, outcome)
        if outcome.asked:
            await self._tell(name, self._asks, "telling the admins of the held deletions")
        if health is not None:
            told = [_hearing(callback, health) for callback in self._healths]
            await self._tell(name, told, "telling the admins of its health")
        await self._tell(name, self._passes, "hearing of the pass")
        return outcome

    async def check(self, name: str) -> Checked:
        """Open `name` and take a listing, changing nothing."""
        try:
            self.open([name])
            items = await self._mirrors[name].source.listing()
        except SourceError as exc:
            return Checked(name, None, f"{exc} ({exc.problem})")
        except (SourceSecretError, SourcesFileError) as exc:  # worded without a secret
            return Checked(name, None, str(exc))
        except Exception as exc:  # a kind's bug: its text may quote a URL, so only its type
            return Checked(name, None, f"the listing failed unexpectedly ({type(exc).__name__})")
        return Checked(name, len(items))

    async def confirm(self, name: str, token: str) -> Confirmed:
        """Accept the deletions `token` names; the source's next pass (run now, in the
        background when the loop runs) deletes exactly them."""
        if name not in self.configs:
            return "unknown"
        self.open([name])
        if not await self._mirrors[name].confirm(token):
            return "stale"
        ticker = self._tickers.get(name)
        if ticker is not None:
            ticker.wake()
        return "confirmed"

    # --- the background loop ------------------------------------------------------------
    async def start(self) -> None:
        """Sync every source now and then every `every`, in the background, until `stop`."""
        self.open()
        for name, config in self.configs.items():
            if name in self._tickers:
                continue
            ticker = Ticker(
                partial(self._tick, name), _every(config.every), name=f"source-sync-{name}"
            )
            self._tickers[name] = ticker
            self._starting.append(asyncio.create_task(ticker.start(), name=f"source-{name}"))

    async def started(self) -> None:
        """Wait until the first passes `start` began are over (each ends however it went)."""
        await asyncio.gather(*self._starting, return_exceptions=True)

    async def stop(self) -> None:
        """Stop the background passes (one running is cancelled; its staged file is removed
        at the next pass) and close the sources."""
        for task in self._starting:
            task.cancel()
        for task in self._starting:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._starting.clear()
        for ticker in self._tickers.values():
            await ticker.stop()
        self._tickers.clear()
        await self.close()

    async def close(self) -> None:
        """Close every opened source, each even if another fails."""
        mirrors, self._mirrors = self._mirrors, {}
        for name, mirror in mirrors.items():
            try:
                await mirror.source.close()
            except Exception:  # closing goes on to the other sources
                log.exception("source %s: closing failed", name)

    async def _tick(self, name: str) -> None:
        try:
            await self.sync(name)
        except Exception:  # the loop must live on: the next pass tries again
            log.exception("source %s: the pass failed", name)
            if self._observer is not None:
                self._observer.source_failed(name)

    def _observe(self, name: str, outcome: PassOutcome) -> None:
        if self._observer is None:
            return
        if outcome.report.ok:
            self._observer.source_synced(name, items=outcome.items, at=outcome.report.at)
        elif outcome.report.problem != "guard":
            self._observer.source_failed(name)

    async def _judge(self, name: str, outcome: PassOutcome) -> Health | None:
        """What the admins are to hear of this pass; what they heard is kept first (under the
        pass's lock, so no other worker judges the same pass)."""
        told = await asyncio.to_thread(self._store.trouble, name)
        health, after = judge(outcome.report, told, self._clock())
        if after != told:
            try:
                await asyncio.to_thread(self._store.keep_trouble, name, after)
            except OSError as exc:  # not told now rather than told at every pass
                log.warning("source %s: what the admins heard cannot be kept (%s)", name, exc)
                return None
        return health

    async def _tell(self, name: str, callbacks: Sequence[Ask], what: str) -> None:
        if not callbacks:
            return
        status = await self.status(name)
        for callback in callbacks:
            try:
                await callback(status)
            except Exception:  # one listener failing does not stop another, nor the pass
                log.exception("source %s: %s failed", name, what)


def _registry_opener(credentials: Credentials) -> Opener:
    def opener(config: SourceConfig) -> Source:
        return open_source(config, credentials)

    return opener


def _hearing(callback: Heard, health: Health) -> Ask:
    async def hear(status: SourceStatus) -> None:
        await callback(status, health)

    return hear


def _every(seconds: float) -> Callable[[], float]:
    return lambda: seconds
