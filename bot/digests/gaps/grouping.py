"""Unanswered questions grouped by the word most of them share, so an admin sees topics, not a
list.

The rule, chosen because an admin can check it by eye: questions are reduced to the stems of
their words (the search index's Snowball `Stemmer`, so "отпуск", "отпуска" and "отпуском" are
one word), leaving out stop words and question words. The stem the most questions share makes
the first group, named by the form of it they used most (the shortest on a tie); those
questions leave, and the next most shared stem among the rest makes the next group, down to
stems only one question has. A question that shares nothing stands alone, named by its first
meaningful word. Each question is in exactly one group, so the counts add up to the number of
questions. One shared word is enough: two phrasings of one need often share only that word
("сколько дней отпуска" and "как оформить отпуск"), where a rule asking for two would split
them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from bot.storage.unanswered import UnansweredQuestion
from tools.index.terms import STOP_WORDS, Stemmer, words

_QUESTION = (
    "сколько какой какая какое какие каких каком почему зачем откуда куда чем чего кому "
    "можно нужно надо ли мне меня мой моя мои мы нам нас ты вы вам вас я есть был была "
    "будет быть бы же там тут здесь этот эта эти этого так еще уже все при до после "
    "why which whom whose do does did can could should would will i me my we our you your "
    "there here this that these those it its have has had get about any some please"
)
_QUESTION_WORDS = frozenset(_QUESTION.split(" "))
_MIN_LETTERS = 3

EXAMPLES = 2
"""Example questions shown per group."""


@dataclass(frozen=True, slots=True)
class Gap:
    """Questions about one thing: the word they share, how many, when last, a few of them."""

    word: str
    count: int
    last_asked: float
    examples: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class _Question:
    text: str
    asked_at: float
    stems: frozenset[str]
    forms: tuple[tuple[str, str], ...]
    """(stem, word as written) for each meaningful word, in order."""


def group_gaps(questions: Iterable[UnansweredQuestion], stemmer: Stemmer) -> list[Gap]:
    """The groups, most asked first (then most recently asked)."""
    left = [_prepare(q, stemmer) for q in questions]
    gaps: list[Gap] = []
    while left:
        shared = Counter(stem for q in left for stem in q.stems)
        best = max(shared.items(), key=lambda item: (item[1], item[0]), default=None)
        if best is None or best[1] < 2:
            gaps.extend(_alone(q) for q in left)
            break
        stem = best[0]
        members = [q for q in left if stem in q.stems]
        left = [q for q in left if stem not in q.stems]
        gaps.append(_gap(_form(stem, members), members))
    return sorted(gaps, key=lambda g: (-g.count, -g.last_asked, g.word))


def _prepare(question: UnansweredQuestion, stemmer: Stemmer) -> _Question:
    forms = tuple(
        (stemmer.stem(word), word) for word in words(question.question) if _meaningful(word)
    )
    return _Question(question.question, question.asked_at, frozenset(s for s, _ in forms), forms)


def _meaningful(word: str) -> bool:
    return (
        len(word) >= _MIN_LETTERS
        and not word.isdigit()
        and word not in STOP_WORDS
        and word not in _QUESTION_WORDS
    )


def _form(stem: str, members: Sequence[_Question]) -> str:
    """The way the group's questions wrote the stem most often; on a tie the shortest, which
    is most often the word's plain form ("отпуск" before "отпуска")."""
    written = Counter(word for q in members for s, word in q.forms if s == stem)
    return min(written.items(), key=lambda item: (-item[1], len(item[0]), item[0]))[0]


def _alone(question: _Question) -> Gap:
    word = question.forms[0][1] if question.forms else ""
    return _gap(word, [question])


def _gap(word: str, members: Sequence[_Question]) -> Gap:
    newest = sorted(members, key=lambda q: q.asked_at, reverse=True)
    examples: list[str] = []
    for q in newest:
        if q.text not in examples:
            examples.append(q.text)
        if len(examples) == EXAMPLES:
            break
    return Gap(word, len(members), newest[0].asked_at, tuple(examples))
