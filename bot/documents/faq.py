"""An expert's answer as a document: a Markdown file the next search finds.

The file holds the question (as its title, and whole), the answer, who answered and when, and
who asked only when the asker agreed to show their name to the experts. Its name comes from the
question's first words, so a search by name finds it too; the upload's own sanitising makes it
safe on any disk and a number keeps it unique (`bot.telegram.uploads.save_text`). The labels
are in the language the question was asked in.
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
        answer.question.strip(),
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


def faq_file_name(question: str) -> str:
    """`Как оформить отпуск.md`: the question's first words, without its closing marks."""
    words = _one_line(question, NAME_CHARS).rstrip("?!.…;: ")
    return f"{words or 'answer'}.md"


def _one_line(text: str, limit: int) -> str:
    """`text` on one line, cut to `limit` characters (an ellipsis shows the cut)."""
    flat = re.sub(r"\s+", " ", text).strip()
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _moment(unix_time: float) -> str:
    return datetime.fromtimestamp(unix_time, tz=UTC).strftime("%Y-%m-%d %H:%M UTC")
