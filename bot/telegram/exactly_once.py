"""Webhook updates handled exactly once, however often Telegram or a balancer sends them.

Telegram sends an update again when it got no 200 in time, and a balancer may retry it on
another worker or machine. So each `update_id` is claimed in the shared database before any
work: the first claim wins and is answered 200 at once, the work going on in the background; a
duplicate is answered 200 and dropped. The claim is a lease, renewed while the question runs
and finished when handling ends (a handled error too): a worker that dies mid-question stops
renewing, the lease runs out, and the update Telegram sends again (it never got its 200) is
claimed and answered by another worker, once.

A worker that is stopping claims nothing: it answers 503, so Telegram sends the update again
and a worker that stays takes it, and a rolling restart loses no update.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any

from aiogram import Bot, Dispatcher
from aiogram.methods import TelegramMethod
from aiogram.types import Update
from aiogram.webhook.aiohttp_server import SimpleRequestHandler
from aiohttp import web

from bot.storage import UpdateClaims
from bot.telegram.middlewares import InFlight

log = logging.getLogger(__name__)

FORGET_AFTER_S = 2 * 24 * 3600.0
"""Claims older than this are deleted: Telegram keeps an unanswered update for 24 hours."""
FORGET_EVERY_S = 3600.0
_CLOSE_WAIT_S = 10.0
"""At shutdown, how long finished handlers get to record their claims as done."""


_MAX_UPDATE_ID = 2**63 - 1
"""The largest number a claim's column holds (PostgreSQL's bigint)."""


def _update_number(raw: object) -> int:
    """The update's number as Telegram writes it: a whole number, not a float such as
    `Infinity` or `1e400` (which `int()` turns into an error other than ValueError or into a
    number no claim can hold); ValueError otherwise."""
    if isinstance(raw, bool) or not isinstance(raw, int) or not 0 <= raw <= _MAX_UPDATE_ID:
        msg = f"update_id {raw!r} is not an update number"
        raise ValueError(msg)
    return raw


class ClaimingRequestHandler(SimpleRequestHandler):
    """aiogram's webhook route with a claim on each update before it is handled.

    The secret-token check stays aiogram's. `close` (at the server's shutdown, after the
    dispatcher drained its handlers) waits for the claims of finished updates to be written
    before the Bot session closes.
    """

    def __init__(
        self,
        dispatcher: Dispatcher,
        bot: Bot,
        *,
        secret_token: str,
        claims: UpdateClaims,
        owner: str,
        lease_s: float,
    ) -> None:
        super().__init__(dispatcher, bot, handle_in_background=True, secret_token=secret_token)
        self._claims = claims
        self._owner = owner
        self._lease_s = lease_s
        self._in_flight: InFlight | None = dispatcher.workflow_data.get("in_flight")

    async def _handle_request_background(self, bot: Bot, request: web.Request) -> web.Response:
        if self._in_flight is not None and self._in_flight.closing:
            return web.Response(status=503, text="stopping; send it again")
        try:
            update: dict[str, Any] = await request.json(loads=bot.session.json_loads)
            update_id = _update_number(update["update_id"])
        except (ValueError, KeyError, TypeError, RecursionError):  # nested past the parser's depth
            log.warning("a webhook request without a readable update was refused")
            return web.Response(status=400, text="not an update")
        try:
            mine = await self._claims.claim(update_id, owner=self._owner, lease_s=self._lease_s)
        except Exception as exc:  # the database is away: Telegram sends it again later
            log.warning("update %d could not be claimed, left to a resend: %s", update_id, exc)
            return web.Response(status=503, text="try again")
        if not mine:
            log.info("update %d was already taken; this copy is dropped", update_id)
            return web.json_response({})
        task = asyncio.create_task(self._handle_claimed(bot, update_id, update))
        self._background_feed_update_tasks.add(task)
        task.add_done_callback(self._background_feed_update_tasks.discard)
        return web.json_response({})

    async def _handle_claimed(self, bot: Bot, update_id: int, update: dict[str, Any]) -> None:
        """Handle the update while its lease is kept alive; record it done whatever happens."""
        keeper = asyncio.create_task(self._keep_lease(update_id))
        try:
            await self._feed(bot, update)
        except Exception:  # the dispatcher let a handler's error through; it is done all the same
            log.exception("update %d failed", update_id)
        finally:
            keeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await keeper
            try:
                await self._claims.finish(update_id)
            except Exception as exc:  # the lease runs out; no resend comes after a 200
                log.warning("update %d could not be marked as done: %s", update_id, exc)

    async def _feed(self, bot: Bot, update: dict[str, Any]) -> None:
        """aiogram's `_background_feed_update` by its public parts: its `feed_raw_update` logs a
        failure with the whole traceback before raising it, and `_handle_claimed` logs it once,
        with the update's number."""
        parsed = Update.model_validate(update, context={"bot": bot})
        result = await self.dispatcher.feed_update(bot, parsed, **self.data)
        if isinstance(result, TelegramMethod):
            await self.dispatcher.silent_call_request(bot=bot, result=result)

    async def _keep_lease(self, update_id: int) -> None:
        """Renew the claim three times a lease, so it lasts while this worker lives."""
        while True:
            await asyncio.sleep(self._lease_s / 3)
            try:
                await self._claims.renew(update_id, owner=self._owner, lease_s=self._lease_s)
            except Exception as exc:  # tried again at the next third; the work goes on
                log.warning("the claim on update %d could not be renewed: %s", update_id, exc)

    async def close(self) -> None:
        """Let finished handlers record their claims, then close the Bot session."""
        running = list(self._background_feed_update_tasks)
        if running:
            await asyncio.wait(running, timeout=_CLOSE_WAIT_S)
        await super().close()


async def forget_old_claims(claims: UpdateClaims, *, every_s: float = FORGET_EVERY_S) -> None:
    """Delete claims older than `FORGET_AFTER_S` now and every `every_s` (runs until cancelled)."""
    while True:
        started = time.monotonic()
        try:
            forgotten = await claims.forget_older(FORGET_AFTER_S)
        except Exception as exc:  # tried again next time; old claims only take room
            log.warning("old update claims could not be deleted: %s", exc)
        else:
            if forgotten:
                log.info("forgot %d old update claims", forgotten)
        await asyncio.sleep(max(0.0, every_s - (time.monotonic() - started)))


class MemoryClaims:
    """Claims kept in this process, for a webhook app built without shared ones (tests, or a
    program embedding the route): a copy arriving while or after the first is handled is
    dropped all the same. The bot itself uses the storage's claims."""

    def __init__(self) -> None:
        self._leases: dict[int, float] = {}
        self._done: dict[int, float] = {}

    async def claim(self, update_id: int, *, owner: str, lease_s: float) -> bool:
        now = time.monotonic()
        if update_id in self._done or self._leases.get(update_id, 0.0) > now:
            return False
        self._leases[update_id] = now + lease_s
        return True

    async def renew(self, update_id: int, *, owner: str, lease_s: float) -> None:
        self._leases[update_id] = time.monotonic() + lease_s

    async def finish(self, update_id: int) -> None:
        self._leases.pop(update_id, None)
        self._done[update_id] = time.monotonic()

    async def forget_older(self, age_s: float) -> int:
        cutoff = time.monotonic() - age_s
        old = [u for u, at in self._done.items() if at < cutoff]
        for update_id in old:
            del self._done[update_id]
        return len(old)

    async def close(self) -> None:
        """Nothing to release."""
