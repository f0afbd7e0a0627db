"""The texts of `/gaps` and of the digest of unanswered questions, in Russian and English.

Kept apart from the main `Texts` because only this feature uses them. The questions are users'
own words: each is cut short and escaped, and the whole listing stays within one message.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from bot.digests.gaps.grouping import Gap
from bot.telegram.texts.numbers import count
from bot.telegram.texts.people import when

MAX_CHARS = 3500
"""The listing's length at most, well inside Telegram's 4096 for one message."""
MAX_GROUPS = 15
MAX_EXAMPLE = 160


@dataclass(frozen=True, slots=True)
class GapsTexts:
    """One language's texts for unanswered questions (HTML)."""

    lang: str
    title: str
    recent: str
    since: str
    empty: str
    advice: str
    group: str
    example: str
    more: str
    question_forms: tuple[str, ...]
    times_forms: tuple[str, ...]
    group_forms: tuple[str, ...]

    def listing(self, gaps: Sequence[Gap], *, days: int = 0, start: float = 0.0) -> str:
        """The groups, most asked first, under a title that says which questions these are:
        those of the last `days` days (`/gaps`), or those since `start` (the digest)."""
        total = sum(gap.count for gap in gaps)
        questions = count(self.lang, total, self.question_forms)
        period = self.since.format(when=when(start)) if start else self.recent.format(days=days)
        if not gaps:
            return "\n".join([self.title, self.empty.format(period=period)])
        lines = [self.title, f"{period}: {questions}.", self.advice, ""]
        size = sum(len(line) + 1 for line in lines)
        shown = 0
        for number, gap in enumerate(gaps[:MAX_GROUPS], start=1):
            block = self._block(number, gap)
            if size + len(block) + 1 > MAX_CHARS - 100:
                break
            lines.append(block)
            size += len(block) + 1
            shown += 1
        if shown < len(gaps):
            lines.append(
                self.more.format(groups=count(self.lang, len(gaps) - shown, self.group_forms))
            )
        return "\n".join(lines)

    def _block(self, number: int, gap: Gap) -> str:
        head = self.group.format(
            n=number,
            word=escape(gap.word or "…"),
            times=count(self.lang, gap.count, self.times_forms),
            when=when(gap.last_asked),
        )
        examples = [self.example.format(question=escape(_short(q))) for q in gap.examples]
        return "\n".join([head, *examples])


def _short(question: str) -> str:
    flat = " ".join(question.split())
    return flat if len(flat) <= MAX_EXAMPLE else flat[: MAX_EXAMPLE - 1] + "…"


ENGLISH_GAPS = GapsTexts(
    lang="en",
    title="<b>❓ Questions the documents could not answer</b>",
    recent="Last {days} days",
    since="Since {when}",
    empty="{period}: none. Every question found its documents.",
    advice="Add a document about these:",
    group="{n}. <b>{word}</b>: {times}, last {when}",
    example="   • «{question}»",
    more="…and {groups} more.",
    question_forms=("question", "questions"),
    times_forms=("time", "times"),
    group_forms=("group", "groups"),
)

RUSSIAN_GAPS = GapsTexts(
    lang="ru",
    title="<b>❓ Вопросы, на которые не нашлось ответа в документах</b>",
    recent="За последние {days} дней",
    since="С {when}",
    empty="{period}: таких нет. На каждый вопрос нашлись документы.",
    advice="Добавьте документ об этом:",
    group="{n}. <b>{word}</b>: {times}, последний раз {when}",
    example="   • «{question}»",
    more="…и ещё {groups}.",
    question_forms=("вопрос", "вопроса", "вопросов"),
    times_forms=("раз", "раза", "раз"),
    group_forms=("группа", "группы", "групп"),
)


def gaps_texts(lang: str) -> GapsTexts:
    """The texts for a language code the main texts use (`ru` or `en`)."""
    return RUSSIAN_GAPS if lang == "ru" else ENGLISH_GAPS
