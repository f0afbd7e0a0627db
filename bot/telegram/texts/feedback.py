"""The texts of the 👍/👎 buttons under answers and of `/feedback`, in Russian and English.

Kept apart from the main `Texts` because only this feature uses them. Pop-ups are plain text;
the rest is HTML, and every question, comment and path in it is the users' own, so escaped.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from bot.storage.feedback import Reason


@dataclass(frozen=True, slots=True)
class FeedbackTexts:
    """One language's feedback texts."""

    thanks_up: str
    """Plain: the pop-up after a 👍."""
    thanks_down: str
    """Plain: the pop-up after a 👎."""
    not_yours: str
    """Plain: a tap by someone other than the asker."""
    expired: str
    """Plain: a tap on an answer the bot no longer keeps."""
    why: str
    """The "what was wrong?" question; `{limit}` is the longest comment."""
    reasons: Mapping[Reason, str]
    """Each reason's button."""
    reason_saved: str
    """Plain: the pop-up after a reason; `{reason}`."""
    comment_saved: str
    comment_too_long: str
    """`{length}` and `{limit}`."""
    comment_not_down: str
    title: str
    by_day: str
    by_week: str
    count_line: str
    """`{label}`, `{up}`, `{down}`."""
    week_label: str
    """`{monday}`."""
    disliked_title: str
    disliked_none: str
    disliked_line: str
    """`{when}`, `{question}`, `{why}`."""
    no_reason: str
    files_title: str
    files_none: str
    file_line: str
    """`{path}`, `{n}`."""
    more_cut: str
    """How many disliked answers were left out to fit the message: `{n}`."""


ENGLISH_FEEDBACK = FeedbackTexts(
    thanks_up="Thanks!",
    thanks_down="Thanks, noted.",
    not_yours="Only the person who asked can rate this answer.",
    expired="This answer can no longer be rated: it is too old or was deleted.",
    why="What was wrong? Tap below, or reply to this message in your own words "
    "(up to {limit} characters). Both are optional.",
    reasons={
        "not_in_documents": "not in the documents",
        "wrong_answer": "wrong answer",
        "wrong_file": "wrong file",
    },
    reason_saved="Noted: {reason}.",
    comment_saved="✅ Thanks, your comment is saved with the answer.",
    comment_too_long="❌ That is {length} characters; a comment takes up to {limit}. "
    "Nothing was saved: shorten it and reply again.",
    comment_not_down="This answer is no longer marked 👎, so the comment was not saved.",
    title="<b>Feedback on answers</b>",
    by_day="<b>By day (UTC)</b>",
    by_week="<b>By week (from Monday)</b>",
    count_line="{label}: 👍 {up} · 👎 {down}",
    week_label="from {monday}",
    disliked_title="<b>Latest 👎</b>",
    disliked_none="No 👎 yet.",
    disliked_line="• {when}: <i>{question}</i>\n  {why}",
    no_reason="no reason given",
    files_title="<b>Read most often in answers marked 👎</b>",
    files_none="No documents were read in them.",
    file_line="• <code>{path}</code>: {n}",
    more_cut="…and {n} more left out to fit the message.",
)

RUSSIAN_FEEDBACK = FeedbackTexts(
    thanks_up="Спасибо!",
    thanks_down="Спасибо, учтём.",
    not_yours="Оценить ответ может только тот, кто задал вопрос.",
    expired="Этот ответ больше нельзя оценить: он слишком старый или удалён.",
    why="Что было не так? Нажмите кнопку ниже или ответьте на это сообщение своими словами "
    "(до {limit} символов). И то и другое — по желанию.",
    reasons={
        "not_in_documents": "нет в документах",
        "wrong_answer": "неверный ответ",
        "wrong_file": "не тот файл",
    },
    reason_saved="Записано: {reason}.",
    comment_saved="✅ Спасибо, комментарий сохранён вместе с ответом.",
    comment_too_long="❌ Здесь {length} символов, а в комментарий помещается до {limit}. "
    "Ничего не записано: сократите и ответьте ещё раз.",
    comment_not_down="У этого ответа больше нет 👎, поэтому комментарий не записан.",
    title="<b>Оценки ответов</b>",
    by_day="<b>По дням (UTC)</b>",
    by_week="<b>По неделям (с понедельника)</b>",
    count_line="{label}: 👍 {up} · 👎 {down}",
    week_label="с {monday}",
    disliked_title="<b>Последние 👎</b>",
    disliked_none="Пока ни одного 👎.",
    disliked_line="• {when}: <i>{question}</i>\n  {why}",
    no_reason="причина не указана",
    files_title="<b>Чаще всего читали в ответах с 👎</b>",
    files_none="В них не читали ни одного документа.",
    file_line="• <code>{path}</code>: {n}",
    more_cut="…и ещё {n}: не поместились в сообщение.",
)


def feedback_texts(lang: str) -> FeedbackTexts:
    """The feedback texts for a language code the main texts use (`ru` or `en`)."""
    return RUSSIAN_FEEDBACK if lang == "ru" else ENGLISH_FEEDBACK
