"""An expert's answer as a document: a Markdown file the next search finds.

The file holds the question (as its title, and whole), the answer, who answered and when, and
who asked only when the asker agreed to show their name to the experts. The question is the
asker's own text, so it is written as a quotation (each line behind `> `): a line of it that
looks like a heading or a rule stays inside the question and cannot start a forged answer
section. `read_faq` reads a file back into exactly the question and answer written. Its name
comes from the question's first words, so a search by name finds it too; the upload's own
sanitising makes it safe on any disk and a number keeps it unique
(`bot.telegram.uploads.save_text`). The labels are in the language the question was asked in.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime

NAME_CHARS = 60
"""Characters of the question a file is named after."""
TITLE_CHARS = 120


@dataclass(frozen=True, slots=True)
class ExpertAnswer:
    """What is written: the question, the answer, and the people and times around them."""

    question: str
    answer: str
    expert: str
    answered_at: float
    """Unix time of the expert's reply."""
    asker: str | None = None
    """The asker's name, only when they agreed to show it."""
    asked_at: float | None = None
    language: str = "en"


class FaqFormatError(ValueError):
    """A text that is not an expert's answer as `faq_markdown` writes it."""


@dataclass(frozen=True, slots=True)
class FaqEntry:
    """The question and the answer a file holds, as read back."""

    question: str
    answer: str


_LABELS = {
    "ru": ("Вопрос", "Ответ", "Ответил(а) {who}, {when}.", "Спросил(а) {who}, {when}."),
    "en": ("Question", "Answer", "Answered by {who}, {when}.", "Asked by {who}, {when}."),
}


def faq_markdown(answer: ExpertAnswer) -> str:
    """The document's text."""
    question_label, answer_label, answered, asked = _LABELS.get(answer.language, _LABELS["en"])
    lines = [
        f"# {_one_line(answer.question, TITLE_CHARS)}",
        "",
        f"## {question_label}",
        "",
        *(f"> {line}" if line else ">" for line in _lines(answer.question)),
        "",
        f"## {answer_label}",
        "",
        answer.answer.strip(),
        "",
        "---",
        "",
        answered.format(who=_one_line(answer.expert, 80), when=_moment(answer.answered_at)),
    ]
    if answer.asker is not None and answer.asked_at is not None:
        lines.append("")
        lines.append(asked.format(who=_one_line(answer.asker, 80), when=_moment(answer.asked_at)))
    return "\n".join(lines) + "\n"


def read_faq(text: str) -> FaqEntry:
    """The question and answer of a file `faq_markdown` wrote.

    Raises:
        FaqFormatError: the text does not have that shape.
    """
    lines = text.split("\n")
    headings = {f"## {labels[0]}" for labels in _LABELS.values()}
    answers = {f"## {labels[1]}" for labels in _LABELS.values()}
    try:
        at = next(n for n, line in enumerate(lines) if line in headings) + 2
    except StopIteration:
        raise FaqFormatError("no question section") from None
    question = []
    while at < len(lines) and lines[at].startswith(">"):
        question.append(lines[at].removeprefix(">").removeprefix(" "))
        at += 1
    between = lines[at : at + 3]
    if not question or len(between) < 3 or between[::2] != ["", ""] or between[1] not in answers:
        raise FaqFormatError("the question is not followed by the answer section")
    rule = max((n for n, line in enumerate(lines) if line == "---"), default=-1)
    if rule < at:
        raise FaqFormatError("no rule after the answer")
    answer = "\n".join(lines[at + 3 : rule]).strip()
    return FaqEntry("\n".join(question), answer)


def faq_file_name(question: str) -> str:
    """`Как оформить отпуск.md`: the question's first words, without its closing marks."""
    words = _one_line(question, NAME_CHARS).rstrip("?!.…;: ")
    return f"{words or 'answer'}.md"


def _lines(text: str) -> list[str]:
    """The lines of a text people wrote, whichever line breaks it used."""
    return re.sub(r"\r\n?", "\n", text).strip().split("\n")


def _one_line(text: str, limit: int) -> str:
    """`text` on one line, cut to `limit` characters (an ellipsis shows the cut)."""
    flat = re.sub(r"\s+", " ", text).strip()
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _moment(unix_time: float) -> str:
    return datetime.fromtimestamp(unix_time, tz=UTC).strftime("%Y-%m-%d %H:%M UTC")
