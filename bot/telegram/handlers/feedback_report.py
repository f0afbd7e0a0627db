"""`/feedback`: what people thought of the answers, for admins, in a private chat.

Counts of 👍 and 👎 per day for the last week and per week (from Monday, UTC) for the last four;
the latest 👎 with their questions and what was wrong; and the documents read most often in the
answers marked 👎. An admin sees only the answers whose files all lie within their own scope
(an answer that read no file is everyone's), so a question about a folder they may not see
does not reach them here either. Every question, comment and path is escaped, and the message
is kept under Telegram's length by leaving out the oldest 👎.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta
from html import escape

from aiogram import Bot, F, Router
from aiogram.filters import Command, MagicData
from aiogram.types import Message

from bot.settings.scopes.viewer import sees_all
from bot.storage.feedback import FeedbackRecord, FeedbackStore, Vote
from bot.telegram.context import ChatContext
from bot.telegram.handlers.private import in_private, reply_with
from bot.telegram.handlers.replies import say
from bot.telegram.texts.feedback import FeedbackTexts, feedback_texts
from bot.telegram.texts.names import visible
from bot.telegram.texts.people import when
from bot.telegram.tuning import Tuning

DAYS = 7
WEEKS = 4
SHOWN = 10
"""The 👎 shown, and the documents listed."""
LOOKED_AT = 500
"""The latest 👎 read to find those within the admin's scope."""
MAX_CHARS = 3800
"""Below Telegram's 4,096 characters a message, with room for the markup."""
QUESTION_CHARS = 200
COMMENT_CHARS = 300
_DAY_S = 24 * 3600.0


def make_router() -> Router:
    """Admins only; anyone else's `/feedback` falls through to the admin-only notice."""
    router = Router(name="feedback_report")
    router.message.filter(MagicData(F.is_admin))
    router.message.register(on_feedback, Command("feedback"), in_private)
    router.message.register(reply_with(lambda t: t.access_in_private), Command("feedback"))
    return router


async def on_feedback(
    message: Message,
    *,
    bot: Bot,
    feedback: FeedbackStore,
    tuning: Tuning,
    chat_context: ChatContext,
) -> None:
    """The counts, the latest 👎 within the admin's scope, the documents read in them."""
    now = tuning.wall_clock()
    today = _day(now)
    monday = today - timedelta(days=today.weekday())
    first_monday = monday - timedelta(weeks=WEEKS - 1)
    since = datetime(first_monday.year, first_monday.month, first_monday.day, tzinfo=UTC)
    votes = await feedback.votes_since(min(since.timestamp(), now - DAYS * _DAY_S))
    scope = await chat_context.scope()
    disliked = [r for r in await feedback.disliked(LOOKED_AT) if sees_all(scope, r.answered.files)]
    texts = feedback_texts(chat_context.language)
    days = [today - timedelta(days=n) for n in reversed(range(DAYS))]
    weeks = [monday - timedelta(weeks=n) for n in reversed(range(WEEKS))]
    await say(bot, chat_context, report(texts, votes, days, weeks, disliked), tuning)


def report(
    texts: FeedbackTexts,
    votes: Sequence[tuple[float, Vote]],
    days: Sequence[date],
    weeks: Sequence[date],
    disliked: Sequence[FeedbackRecord],
) -> str:
    """The whole message (HTML), at most `MAX_CHARS`: the oldest 👎 go first when it is long."""
    by_day = Counter((_day(at), vote) for at, vote in votes)
    by_week = Counter((_monday(_day(at)), vote) for at, vote in votes)
    head = [texts.title, "", texts.by_day]
    head += [_counts(texts, d.isoformat(), by_day, d) for d in days]
    head += ["", texts.by_week]
    head += [
        _counts(texts, texts.week_label.format(monday=w.isoformat()), by_week, w) for w in weeks
    ]
    tail = ["", texts.files_title, *_files(texts, disliked)]
    items = [_disliked_line(texts, record) for record in disliked[:SHOWN]]
    while True:
        shown = items or [texts.disliked_none]
        left_out = min(len(disliked), SHOWN) - len(items)
        more = [texts.more_cut.format(n=left_out)] if left_out else []
        text = "\n".join([*head, "", texts.disliked_title, *shown, *more, *tail])
        if len(text) <= MAX_CHARS or not items:
            return text[:MAX_CHARS]
        items.pop()


def _counts(
    texts: FeedbackTexts, label: str, counted: Counter[tuple[date, Vote]], key: date
) -> str:
    return texts.count_line.format(
        label=label, up=counted[(key, "up")], down=counted[(key, "down")]
    )


def _disliked_line(texts: FeedbackTexts, record: FeedbackRecord) -> str:
    why = texts.reasons[record.reason] if record.reason else texts.no_reason
    if record.comment:
        why += f"; «{_cut(record.comment, COMMENT_CHARS)}»"
    return texts.disliked_line.format(
        when=when(record.voted_at or record.created_at),
        question=escape(_cut(record.answered.question, QUESTION_CHARS)),
        why=escape(why),
    )


def _files(texts: FeedbackTexts, disliked: Sequence[FeedbackRecord]) -> list[str]:
    read = Counter(path for record in disliked for path in dict.fromkeys(record.answered.files))
    if not read:
        return [texts.files_none]
    return [
        texts.file_line.format(path=escape(visible(_cut(path, 120))), n=n)
        for path, n in read.most_common(SHOWN)
    ]


def _cut(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _day(unix_time: float) -> date:
    return datetime.fromtimestamp(unix_time, tz=UTC).date()


def _monday(day: date) -> date:
    return day - timedelta(days=day.weekday())
