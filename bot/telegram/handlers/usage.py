"""`/usage`: tokens spent on the model, and what they cost where LIMITS_FILE has prices.

Anyone: their own use today and this month, each beside its budget. Admins, in a private chat:
the month's total, the top users and chats, each model, each day, and a chart of the days as a
picture (drawn off the event loop). Every figure that holds pictures says how much of it they
took. An admin with a scope sees only the people and chats whose
questions are answered within it, as they see only those documents; a forum topic's use counts
by the topic's own scope.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import date, datetime
from html import escape

from aiogram import Bot, Router
from aiogram.filters import Command
from aiogram.types import BufferedInputFile, Message

from bot.settings.budgets import Budgets
from bot.settings.budgets.limits import Period
from bot.settings.budgets.periods import started, utc_offset_s
from bot.settings.budgets.report import Spend, Summary, spend_of, summarise
from bot.settings.scopes import Scopes
from bot.settings.scopes.viewer import sees_scope
from bot.storage.usage import Tokens, UsageSum
from bot.telegram.context import ChatContext
from bot.telegram.handlers.replies import say
from bot.telegram.texts.numbers import count, decimal, integer
from bot.telegram.texts.usage import ESTIMATED_MARK, UsageTexts, usage_texts
from bot.telegram.tuning import Tuning
from tools.jail.scope import Scope


def make_router() -> Router:
    """`/usage` for everyone; an admin in a private chat gets the whole report."""
    router = Router(name="usage")
    router.message.register(on_usage, Command("usage"))
    return router


async def on_usage(
    message: Message,
    *,
    bot: Bot,
    budgets: Budgets,
    scopes: Scopes,
    tuning: Tuning,
    chat_context: ChatContext,
    is_admin: bool = False,
) -> None:
    """Their own use for everyone; the whole month's for an admin in a private chat."""
    if message.from_user is None:
        return
    texts = usage_texts(chat_context.language)
    if is_admin and not chat_context.is_group:
        await _admin_report(
            bot, budgets, scopes=scopes, tuning=tuning, chat_context=chat_context, texts=texts
        )
        return
    await say(bot, chat_context, await _own(budgets, tuning, message, texts, is_admin), tuning)


async def _own(
    budgets: Budgets, tuning: Tuning, message: Message, texts: UsageTexts, is_admin: bool
) -> str:
    """The asker's tokens today and this month, against their budgets."""
    assert message.from_user is not None
    user_id = message.from_user.id
    limits = budgets.limits
    now = tuning.wall_clock()
    lines = [texts.mine_title]
    limited = False
    estimated = False
    labels: tuple[tuple[Period, str], ...] = (("day", texts.today), ("month", texts.month))
    for period, label in labels:
        since = started(now, period, limits.zone)
        sums = [s for s in await budgets.store.sums(since) if s.user_id == user_id]
        spend = _priced(budgets, sums)
        budget = (
            limits.user_budget(user_id, period, is_admin=is_admin) if limits.configured else None
        )
        limited = limited or budget is not None
        estimated = estimated or spend.tokens.estimated > 0
        of = ""
        if budget is not None:
            percent = int(spend.tokens.total * 100 / budget)
            of = texts.of_budget.format(tokens=_tokens(texts, budget), percent=percent)
        lines.append(
            texts.spent_line.format(
                label=label,
                tokens=_figure(texts, spend.tokens),
                cost=_cost(texts, budgets, spend),
                budget=of,
            )
        )
    if not limited:
        lines += ["", texts.no_budget]
    if estimated:
        lines += ["", texts.estimated]
    return "\n".join(lines)


async def _admin_report(
    bot: Bot,
    budgets: Budgets,
    *,
    scopes: Scopes,
    tuning: Tuning,
    chat_context: ChatContext,
    texts: UsageTexts,
) -> None:
    """The month within the admin's scope, in words and then as a chart."""
    limits = budgets.limits
    now = tuning.wall_clock()
    since = started(now, "month", limits.zone)
    sums = await budgets.store.sums(since, utc_offset_s=utc_offset_s(now, limits.zone))
    scope = await chat_context.scope()
    visible = await visible_places(scopes, scope, sums)
    first = datetime.fromtimestamp(since, tz=limits.zone).date()
    today = datetime.fromtimestamp(now, tz=limits.zone).date()
    summary = summarise(
        limits,
        sums,
        first_day=first,
        last_day=today,
        keep=lambda one: place_of(one) in visible,
    )
    month = f"{first:%Y-%m}"
    await say(bot, chat_context, _admin_text(texts, budgets, summary, month, scope), tuning)
    from bot.settings.budgets.chart import daily_chart  # noqa: PLC0415 - matplotlib loads at the first chart

    png = await asyncio.to_thread(
        daily_chart,
        [(day, spend.tokens.total) for day, spend in summary.days],
        title=texts.chart_caption.format(month=month),
    )
    place = chat_context.place
    await bot.send_photo(
        place.chat_id,
        BufferedInputFile(png, filename=f"usage-{month}.png"),
        caption=texts.chart_caption.format(month=month),
        message_thread_id=place.thread_id,
    )


Place = tuple[int | None, int | None, int | None]
"""Whose use: (user, chat, forum topic)."""


def place_of(one: UsageSum) -> Place:
    """Where a sum's use was asked: who, in which chat and forum topic."""
    return (one.user_id, one.chat_id, one.thread_id)


async def visible_places(
    scopes: Scopes, scope: Scope | None, sums: Sequence[UsageSum]
) -> set[Place]:
    """The (user, chat, topic) places whose questions are answered within `scope` (a topic's
    by the topic's own scope): all of them for an admin who sees everything; use that belongs
    to no question only for those."""
    places = {place_of(one) for one in sums}
    if scope is None:
        return places
    kept: set[Place] = set()
    for user_id, chat_id, thread_id in places:
        if chat_id is None:
            continue
        theirs = await scopes.for_question(chat_id, user_id, thread_id)
        if theirs is not None and sees_scope(scope, theirs):
            kept.add((user_id, chat_id, thread_id))
    return kept


def _admin_text(
    texts: UsageTexts, budgets: Budgets, summary: Summary, month: str, scope: Scope | None
) -> str:
    lines = [texts.admin_title.format(month=month)]
    if scope is not None:
        lines.append(texts.scoped)
    if not summary.total.tokens.total:
        return "\n".join([*lines, "", texts.nothing])
    lines.append(_item(texts, budgets, texts.total, summary.total))
    lines += ["", texts.top_users]
    lines += [_item(texts, budgets, f"<code>{user}</code>", s) for user, s in summary.users]
    lines += ["", texts.top_chats]
    lines += [_item(texts, budgets, f"<code>{chat}</code>", s) for chat, s in summary.chats]
    lines += ["", texts.per_model]
    lines += [
        _item(texts, budgets, f"<code>{escape(m[:60])}</code>", s) for m, s in summary.models
    ]
    lines += ["", texts.per_day]
    lines += [
        _item(texts, budgets, _day(day), spend)
        for day, spend in summary.days
        if spend.tokens.total
    ]
    if summary.total.tokens.estimated:
        lines += ["", texts.estimated]
    return "\n".join(lines)


def _item(texts: UsageTexts, budgets: Budgets, name: str, spend: Spend) -> str:
    return texts.item_line.format(
        name=name, tokens=_figure(texts, spend.tokens), cost=_cost(texts, budgets, spend)
    )


def _priced(budgets: Budgets, sums: Sequence[UsageSum]) -> Spend:
    return spend_of(budgets.limits, sums)


def _tokens(texts: UsageTexts, n: int) -> str:
    return count(texts.lang, n, texts.tokens_word)


def _figure(texts: UsageTexts, tokens: Tokens) -> str:
    """The tokens' total, marked when the bot estimated some of them (the model server reported
    none): the footnote `texts.estimated` says so under the figures; then the part pictures
    took, when they took any."""
    mark = ESTIMATED_MARK if tokens.estimated else ""
    images = texts.images_part.format(tokens=_number(texts, tokens.images))
    return mark + _tokens(texts, tokens.total) + (images if tokens.images else "")


def _number(texts: UsageTexts, n: int) -> str:
    """A count in the texts' language, without its noun."""
    return integer(texts.lang, n)


def _cost(texts: UsageTexts, budgets: Budgets, spend: Spend) -> str:
    """`, $0.42` when every model in `spend` has a price; nothing otherwise."""
    if spend.cost is None or not budgets.limits.prices:
        return ""
    digits = 4 if 0 < spend.cost < 0.01 else 2
    money = f"{budgets.limits.currency}{decimal(texts.lang, spend.cost, digits)}"
    return texts.cost.format(money=money)


def _day(day: date) -> str:
    return day.isoformat()
