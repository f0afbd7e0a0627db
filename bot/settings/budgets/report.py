"""`/usage` in numbers: the store's sums gathered per user, chat, model and day, each with what
it cost where every model in it has a price. Text and pictures are the front door's."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import TypeVar

from bot.settings.budgets.limits import Limits, cost
from bot.storage.usage import Tokens, UsageSum

TOP = 10
"""Users and chats listed at most."""

_EPOCH = date(1970, 1, 1)
K = TypeVar("K", bound=Hashable)


@dataclass(frozen=True, slots=True)
class Spend:
    """Tokens and, when every model among them has a price, what they cost."""

    tokens: Tokens = field(default_factory=Tokens)
    cost: float | None = 0.0

    def __add__(self, other: Spend) -> Spend:
        money = None if self.cost is None or other.cost is None else self.cost + other.cost
        return Spend(self.tokens + other.tokens, money)


@dataclass(frozen=True, slots=True)
class Summary:
    """One period's use: the total, the top users and chats, every model, every day."""

    total: Spend
    users: Sequence[tuple[int, Spend]]
    chats: Sequence[tuple[int, Spend]]
    models: Sequence[tuple[str, Spend]]
    days: Sequence[tuple[date, Spend]]


def spend_of(limits: Limits, sums: Iterable[UsageSum]) -> Spend:
    """The sums added up, priced by `limits`."""
    total = Spend()
    for one in sums:
        total += Spend(one.tokens, cost(limits, one.model, one.tokens))
    return total


def day_of(number: int) -> date:
    """The calendar day of a sum's day number."""
    return _EPOCH + timedelta(days=number)


def summarise(
    limits: Limits,
    sums: Sequence[UsageSum],
    *,
    first_day: date,
    last_day: date,
    keep: Callable[[UsageSum], bool] = lambda _: True,
) -> Summary:
    """The sums `keep` lets through, gathered; every day from `first_day` to `last_day` is
    listed, a day with no use as zero."""
    kept = [one for one in sums if keep(one)]
    days = {first_day + timedelta(days=n): Spend() for n in range((last_day - first_day).days + 1)}
    for day, spend in _grouped(limits, kept, lambda one: day_of(one.day)):
        if day in days:
            days[day] = spend
    return Summary(
        total=spend_of(limits, kept),
        users=_top(_grouped(limits, kept, lambda one: one.user_id)),
        chats=_top(_grouped(limits, kept, lambda one: one.chat_id)),
        models=sorted(
            _grouped(limits, kept, lambda one: one.model), key=lambda item: -item[1].tokens.total
        ),
        days=sorted(days.items()),
    )


def _grouped(
    limits: Limits, sums: Iterable[UsageSum], key: Callable[[UsageSum], K | None]
) -> list[tuple[K, Spend]]:
    groups: defaultdict[K, list[UsageSum]] = defaultdict(list)
    for one in sums:
        found = key(one)
        if found is not None:
            groups[found].append(one)
    return [(name, spend_of(limits, members)) for name, members in groups.items()]


def _top(items: list[tuple[int, Spend]]) -> list[tuple[int, Spend]]:
    return sorted(items, key=lambda item: -item[1].tokens.total)[:TOP]
