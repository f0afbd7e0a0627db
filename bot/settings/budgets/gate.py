"""What the front door asks of the budgets: may this question be asked, what did it spend, and
is it time to tell the asker they are near the end.

A question is let through when every budget it counts against (its asker's and its chat's, per
day and per month) has room; the store reserves it in the same step, so two workers racing one
person's last question let one through. Its spending is recorded when the answer is known, and
when a budget has reached `WARN_AT` of itself the asker is told once per day or month (the
store's claim makes that once across workers). No aiogram here.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from bot.settings.budgets import periods
from bot.settings.budgets.limits import Limits, Period, cost
from bot.storage.usage import Allowance, Tokens, UsageStore, Use, Who

log = logging.getLogger(__name__)

WARN_AT = 0.8
"""The share of a budget at which its asker is told, and from which a second question waits
for the first."""

PERIODS: tuple[Period, ...] = ("day", "month")


class UsageObserver(Protocol):
    """Who hears of every use recorded (the metrics)."""

    def model_used(self, model: str, kind: str, tokens: Tokens, cost: float | None) -> None:
        """Tokens of one use, and what they cost when the model has a price."""


@dataclass(frozen=True, slots=True)
class Refused:
    """A question not let through: which budget (the asker's or the chat's, of which period),
    when it starts afresh (Unix time), and whether only because another of the asker's
    questions is still being answered near the budget's end."""

    who: Who
    period: Period
    resets_at: float
    busy: bool = False


@dataclass(frozen=True, slots=True)
class Warning:
    """A budget that has reached `WARN_AT`: whose, which period, how much of it is spent (0–1
    and more), and when it starts afresh."""

    who: Who
    period: Period
    share: float
    resets_at: float


class Budgets:
    """Budgets from LIMITS_FILE over the usage store; `clock` gives Unix time."""

    def __init__(
        self,
        limits: Limits,
        store: UsageStore,
        *,
        clock: Callable[[], float] = time.time,
        observer: UsageObserver | None = None,
    ) -> None:
        self.limits = limits
        self.store = store
        self._clock = clock
        self._observer = observer

    def allowances(self, user_id: int, chat_id: int, *, is_admin: bool) -> list[Allowance]:
        """Every budget a question from `user_id` in `chat_id` counts against, now. A private
        chat (its id is its person's) is held to the chats' defaults only when listed itself:
        they are meant for groups, and the person's own budget already holds it."""
        now = self._clock()
        zone = self.limits.zone
        found = []
        for period in PERIODS:
            since = periods.started(now, period, zone)
            mine = self.limits.user_budget(user_id, period, is_admin=is_admin)
            if mine is not None:
                found.append(Allowance("user", user_id, since, mine, _near(mine), period))
            chats = self.limits.chat_budget(chat_id, period, user_id=user_id, is_admin=is_admin)
            if chat_id == user_id and chat_id not in self.limits.chats:
                chats = None
            if chats is not None:
                found.append(Allowance("chat", chat_id, since, chats, _near(chats), period))
        return found

    async def admit(
        self, question: str, *, user_id: int, chat_id: int, is_admin: bool
    ) -> Refused | None:
        """Reserve the question against its budgets; None when it may be asked."""
        allowances = self.allowances(user_id, chat_id, is_admin=is_admin)
        if not allowances:
            return None
        refusal = await self.store.reserve(
            question, user_id=user_id, chat_id=chat_id, allowances=allowances
        )
        if refusal is None:
            return None
        allowance = refusal.allowance
        period = allowance.period
        resets_at = periods.resets(self._clock(), period, self.limits.zone)
        log.info(
            "budget: refused a question of user %d in chat %d (%s %s budget of %d tokens%s)",
            user_id,
            chat_id,
            allowance.who,
            period,
            allowance.tokens,
            ", another question in flight" if refusal.busy else "",
        )
        return Refused(allowance.who, period, resets_at, busy=refusal.busy)

    async def release(self, question: str) -> None:
        """The question asked the model nothing: give its reservation back."""
        await self.store.release(question)

    async def record(self, use: Use) -> None:
        """Keep one use, counted once however often it is recorded; the observer hears it. A
        store out of reach costs a log line, never the answer the use was for."""
        try:
            recorded = await self.store.record(use)
        except Exception:  # the answer is given; losing its count must not lose it too
            log.exception("budget: %d tokens of %s not recorded", use.tokens.total, use.model)
            return
        if not recorded:
            return
        if self._observer is not None:
            self._observer.model_used(
                use.model, use.kind, use.tokens, cost(self.limits, use.model, use.tokens)
            )

    async def warning(self, user_id: int, chat_id: int, *, is_admin: bool) -> Warning | None:
        """The first budget that has reached `WARN_AT` and whose warning is this caller's to
        send (once per subject and period, whichever worker asks first); None otherwise."""
        now = self._clock()
        zone = self.limits.zone
        for allowance in self.allowances(user_id, chat_id, is_admin=is_admin):
            spent = await self.store.spent(
                who=allowance.who, id=allowance.id, since=allowance.since
            )
            if spent.total < allowance.near:
                continue
            period = allowance.period
            subject = f"{allowance.who}:{allowance.id}:{user_id}:{period}"
            if await self.store.claim_warning(subject, periods.name(now, period, zone)):
                share = spent.total / allowance.tokens
                return Warning(allowance.who, period, share, periods.resets(now, period, zone))
        return None


def _near(tokens: int) -> int:
    return int(tokens * WARN_AT)
