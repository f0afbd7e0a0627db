"""When a subscription's digest is due, and the loop that records changes and sends each
digest once.

A subscription's digest is due once its folder has been quiet for `quiet_s`
(NOTIFY_DEBOUNCE_S) since its latest change, or `MAX_DELAY_TIMES` that long after its first
untold one, so a folder that never stops changing is still told about. Every step reads the
store, so every worker and every restart agrees: changes are recorded as they are seen, each
subscription keeps the id of the last change it was told, and a tick claims the digest by moving
that id forward with one conditional write (`NoticeStore.claim`); only the process whose claim
moved it sends. Changes recorded before a restart are still sent after it. The claim comes
before the sending: a process that dies in between loses that one digest rather than sending
it twice. A subscription whose new changes all lie outside its folder is moved past them
without a message, so the changes read back always start near the newest.

The first look, once the index's first scan has ended, starts from the folder the store
remembers, so what changed while no bot ran is recorded then and told like any other change
(once, as it is recorded once across workers); at a first start the folder as scanned is
remembered instead, and nothing is told.

The clock is passed in and `tick(now)` does one step, so tests move a clock and tick instead of
waiting; the loop ticks every `LOOK_EVERY_S` (a look at an unchanged folder costs nothing) or
when `wake` is called.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from bot.digests.notices.audience import Audience
from bot.digests.notices.changes import FolderChanges
from bot.digests.notices.digest import Digest, digest, in_folder
from bot.process.ticker import Ticker
from bot.storage.notices import KEEP_S, NoticedChange, NoticeStore, Snapshot, Subscription

log = logging.getLogger(__name__)

MAX_DELAY_TIMES = 6
"""A digest waits at most this many quiet periods after its first change."""
LOOK_EVERY_S = 10.0
SWEEP_EVERY_S = 3600.0

Send = Callable[[Subscription, Digest], Awaitable[bool]]
"""Sends one subscriber's digest; whether it reached them."""


@dataclass(frozen=True, slots=True)
class Due:
    """One subscription's untold changes: what the digest covers, through which id."""

    subscription: Subscription
    changes: tuple[NoticedChange, ...]
    through: int


def due(
    subscription: Subscription,
    changes: Sequence[NoticedChange],
    now: float,
    quiet_s: float,
    *,
    max_delay_s: float | None = None,
) -> Due | None:
    """What `subscription` should be told now of `changes` (oldest first): a digest when its
    folder's changes are quiet or overdue, none with `changes` empty when all of them lie
    elsewhere (it is moved past them), and None while its folder's changes wait."""
    untold = [c for c in changes if c.id > subscription.sent_through]
    if not untold:
        return None
    through = untold[-1].id
    mine = tuple(c for c in untold if in_folder(c.change.path, subscription.folder))
    if not mine:
        return Due(subscription, (), through)
    longest = quiet_s * MAX_DELAY_TIMES if max_delay_s is None else max_delay_s
    quiet = now - mine[-1].noticed_at >= quiet_s
    overdue = now - mine[0].noticed_at >= longest
    return Due(subscription, mine, through) if quiet or overdue else None


class NoticeSchedule:
    """Records what changed and sends the digests due, once across restarts and workers;
    `clock` gives Unix time."""

    def __init__(
        self,
        source: FolderChanges,
        store: NoticeStore,
        audience: Audience,
        send: Send,
        *,
        quiet_s: float,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._source = source
        self._store = store
        self._audience = audience
        self._send = send
        self._quiet_s = quiet_s
        self._clock = clock
        self._ticker = Ticker(self._tick_logged, lambda: LOOK_EVERY_S, name="change notices")
        self._next_sweep = 0.0
        self._failing = False

    async def observe(self) -> int:
        """Record what changed in the folder since the last look; how many changes were new."""
        if not self._source.started and not await self._started():
            return 0
        changes = await asyncio.to_thread(self._source.look)
        if not changes:
            return 0
        try:
            kept = await self._store.record(changes)
        except BaseException:
            # Not kept: start again from the folder the store remembers, which these changes
            # did not reach (one transaction), so the next look finds them again.
            self._source.restart()
            raise
        log.debug("%d change(s) in the documents folder, %d new to the store", len(changes), kept)
        return kept

    async def _started(self) -> bool:
        """Take the folder's starting point once the index's first scan has ended: the folder
        the store remembers, or at a first start the folder now, which the store remembers
        first (so a store that fails is tried again at the next look). Whether it is taken."""
        if not self._source.scanned:
            return False
        remembered = await self._store.remembered_folder()
        if remembered is None:
            remembered = await self._first_start()
            if remembered is None:
                return False
        self._source.start(remembered)
        return True

    async def _first_start(self) -> Snapshot | None:
        """The store remembers no folder: remember it as it is now (the first build is not
        news), or as another worker starting with this one remembered it first. An empty
        folder is not remembered (None): it may be a disk not mounted yet or a wrong
        SANDBOX_DIR, and remembering it would make every document news once it is right."""
        now = await asyncio.to_thread(self._source.now)
        if not now:
            return None  # the next look asks the store again
        if await self._store.remember_folder(now):
            log.info(
                "change notices start from the folder as it is now (no earlier look is remembered)"
            )
            return now
        theirs = await self._store.remembered_folder()
        return now if theirs is None else theirs

    async def tick(self, now: float) -> int:
        """Record the folder's changes, then send every digest due by `now` that no process
        has; how many this one sent."""
        await self.observe()
        if now >= self._next_sweep:
            self._next_sweep = now + SWEEP_EVERY_S
            await self._store.delete_older(now - KEEP_S)
        subscriptions = await self._store.subscriptions()
        if not subscriptions:
            return 0
        changes = await self._store.since(min(s.sent_through for s in subscriptions))
        sent = 0
        for subscription in subscriptions:
            found = due(subscription, changes, now, self._quiet_s)
            if found is not None and await self._claimed(found) and found.changes:
                sent += await self._tell(found)
        return sent

    async def _claimed(self, found: Due) -> bool:
        return await self._store.claim(found.subscription, found.through)

    async def _tell(self, found: Due) -> int:
        """Send one digest, naming only what its chat may see now; 1 when one went out."""
        subscription = found.subscription
        shows = await self._audience.shows(subscription)
        if shows is None:
            log.info("change notices for chat %d skipped: no access now", subscription.chat_id)
            return 0
        told = digest(subscription.folder, (c.change for c in found.changes), shows)
        if not told.items:
            return 0
        return int(await self._send(subscription, told))

    async def start(self) -> None:
        """Tick now (taking the folder's starting point, recording what changed while no bot
        ran), then in the background until `stop`."""
        await self._ticker.start()

    def wake(self) -> None:
        """Tick again now, instead of at the next look."""
        self._ticker.wake()

    async def stop(self) -> None:
        """Stop the background ticks."""
        await self._ticker.stop()

    async def _tick_logged(self) -> None:
        try:
            await self.tick(self._clock())
        except Exception:  # notices must never stop the bot; the next tick tries again
            if not self._failing:
                log.exception(
                    "sending change notices failed; trying again every %g s", LOOK_EVERY_S
                )
            self._failing = True
        else:
            if self._failing:
                log.info("sending change notices works again")
            self._failing = False
