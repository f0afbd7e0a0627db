"""Uses of the model reported outside any question: the embeddings the search by meaning pays
for, from the vector builder's thread or a search on the event loop.

They start before the bot's stores do (the index is built as the services open), so they wait
here, in a bounded list, until the store's recorder is attached; then each is recorded in a
task of its own on the event loop. A failed record costs a log line, never a search.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from bot.storage.usage import Tokens, Use

log = logging.getLogger(__name__)

MAX_WAITING = 10_000
"""Uses kept until a recorder is attached; beyond that the oldest are dropped."""

Recorder = Callable[[Use], Awaitable[None]]


class UsageSink:
    """Takes uses from any thread and hands them to the recorder on `loop`."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._record: Recorder | None = None
        self._waiting: list[Use] = []
        self._tasks: set[asyncio.Task[None]] = set()

    def embedded(self, model: str, tokens: int) -> None:
        """Texts were embedded for `tokens` prompt tokens; safe from any thread."""
        use = Use(model, "embeddings", Tokens(tokens, 0, 0))
        try:
            self._loop.call_soon_threadsafe(self._take, use)
        except RuntimeError:  # the loop has closed: the bot is gone, nothing left to record
            log.debug("embeddings of %d tokens not recorded: the event loop is closed", tokens)

    def attach(self, record: Recorder) -> None:
        """Record every use from now on, and those that waited, with `record`."""
        self._record = record
        waiting, self._waiting = self._waiting, []
        for use in waiting:
            self._take(use)

    async def settled(self) -> None:
        """Wait for the records already under way (those handed over before this call)."""
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    async def close(self) -> None:
        """Let the records under way finish."""
        self._record = None
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    def _take(self, use: Use) -> None:
        record = self._record
        if record is None:
            self._waiting.append(use)
            del self._waiting[:-MAX_WAITING]
            return
        task = asyncio.ensure_future(self._recorded(record, use))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _recorded(self, record: Recorder, use: Use) -> None:
        try:
            await record(use)
        except Exception as exc:  # a usage row must never fail a search or the index build
            log.warning("embeddings of %d tokens not recorded: %s", use.tokens.prompt, exc)
