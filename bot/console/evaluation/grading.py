"""Whether an answer passes its question: the facts it has, lacks or must not have, and the
files it read."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from bot.console.evaluation.questions import REGEX_PREFIX, Question


@dataclass(frozen=True, slots=True)
class Grade:
    """What the checks found in one answer.

    `missing`: facts of `must` not in the answer (with `must_mode = "any"`, all of them when
    none was found, else none). `forbidden`: facts of `must_not` that are in it.
    `cited_right`: every file of `cite` is among the files read; None when `cite` is empty.
    """

    missing: tuple[str, ...]
    forbidden: tuple[str, ...]
    cited_right: bool | None

    @property
    def passed(self) -> bool:
        """The facts are right; citing is counted on its own."""
        return not self.missing and not self.forbidden


def grade(question: Question, text: str, sources: tuple[str, ...]) -> Grade:
    """Check `text` (the answer) and `sources` (the files it read) against `question`."""
    found = [fact for fact in question.must if contains(text, fact)]
    if question.must_mode == "any":
        missing = () if found else tuple(question.must)
    else:
        missing = tuple(fact for fact in question.must if fact not in found)
    forbidden = tuple(fact for fact in question.must_not if contains(text, fact))
    cited_right = None
    if question.cite:
        read = {_path(source) for source in sources}
        cited_right = all(_path(path) in read for path in question.cite)
    return Grade(missing, forbidden, cited_right)


def contains(text: str, fact: str) -> bool:
    """Plain facts ignore case and runs of white space; `re:` facts are searched ignoring case."""
    if fact.startswith(REGEX_PREFIX):
        return re.search(fact[len(REGEX_PREFIX) :], text, re.IGNORECASE) is not None
    return _plain(fact) in _plain(text)


def _plain(text: str) -> str:
    return " ".join(unicodedata.normalize("NFC", text).casefold().split())


def _path(path: str) -> str:
    return unicodedata.normalize("NFC", path.strip()).removeprefix("./").strip("/")
