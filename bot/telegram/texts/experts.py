"""The texts of "Ask an expert", in Russian and English: the button under an answer, the
question about the asker's name, the message in the experts' chat, the expert's answer as the
asker reads it, and saving it as a document.

Kept apart from the main `Texts` because only this feature uses them. Pop-ups and button labels
are plain text; the rest is HTML, and every question, answer, name and path in it is the users'
own, so the handlers escape them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ExpertTexts:
    """One language's texts of "Ask an expert"."""

    ask_button: str
    """Plain: the button under an unanswered or disliked answer."""
    show_name: str
    """Whether the experts may see who asked."""
    with_name: str
    anonymously: str
    """Plain: the two answers to `show_name`."""
    choose_above: str
    """Plain: a second tap on the button while `show_name` waits."""
    already_sent: str
    """Plain: a tap after the question went to the experts."""
    not_yours: str
    """Plain: a tap by someone other than the asker."""
    expired: str
    """Plain: a tap on an answer the bot no longer keeps."""
    off: str
    """Plain: a tap on an old button after EXPERTS_CHAT_ID was emptied."""
    sent: str
    """The question is with the experts."""
    not_sent: str
    """The experts' chat could not be reached."""
    forwarded: str
    """The message in the experts' chat: `{question}`, `{asker}`, `{found}`, `{beginning}`."""
    asker_named: str
    """`{who}`."""
    asker_anonymous: str
    found_files: str
    """`{files}`."""
    found_nothing: str
    no_beginning: str
    expert_answer: str
    """What the asker gets: `{question}`, `{answer}`."""
    delivered: str
    """In the experts' chat, under the reply: it reached the asker."""
    not_delivered: str
    """The asker's chat refused the reply."""
    save_button: str
    """Plain: the button under `delivered`."""
    saved: str
    """`{path}`: the document the answer became."""
    already_saved: str
    """Plain: `{path}`."""
    save_admins_only: str
    """Plain: a tap by an expert who is not an admin."""
    save_outside_scope: str
    """Plain: the answers' folder lies outside the expert's scope; `{folder}`."""
    save_failed: str
    """Plain: the file could not be written."""
    reply_expired: str
    """Plain: a tap on a reply the bot no longer keeps."""


ENGLISH_EXPERTS = ExpertTexts(
    ask_button="🧑‍🏫 Ask an expert",
    show_name="May the experts see who asked? They will see your question either way.",
    with_name="With my name",
    anonymously="Anonymously",
    choose_above="Choose above whether to show your name; then it is sent.",
    already_sent="This question was already sent to the experts.",
    not_yours="Only the person who asked can send this question to the experts.",
    expired="This answer is no longer kept: too old or deleted. Ask the question again.",
    off="Asking experts is turned off.",
    sent="✅ Your question was sent to the experts. Their answer will come here.",
    not_sent="❌ The experts' chat could not be reached, so nothing was sent. Try again later.",
    forwarded="❓ <b>A question the documents did not answer</b>\n"
    "<blockquote>{question}</blockquote>\n"
    "From: {asker}\n{found}\n{beginning}\n\n"
    "<i>Reply to this message: the answer goes to the person who asked.</i>",
    asker_named="{who}",
    asker_anonymous="anonymous",
    found_files="Files read: {files}",
    found_nothing="Files read: none",
    no_beginning="The bot's answer: none.",
    expert_answer="🧑‍🏫 <b>Expert's answer</b>\n<blockquote>{question}</blockquote>\n{answer}",
    delivered="✅ Sent to the person who asked.",
    not_delivered="❌ The person who asked could not be reached (they may have blocked the "
    "bot); the answer can still be saved.",
    save_button="💾 Save as a document",
    saved="💾 Saved as <code>{path}</code>: the bot finds it from now on.",
    already_saved="Already saved as {path}.",
    save_admins_only="Only an admin of the bot can save answers as documents.",
    save_outside_scope="The folder {folder} is outside the folders you may see, so the answer "
    "was not saved.",
    save_failed="The document could not be written; nothing was saved. Try again later.",
    reply_expired="This answer is no longer kept: too old or deleted.",
)

RUSSIAN_EXPERTS = ExpertTexts(
    ask_button="🧑‍🏫 Спросить эксперта",
    show_name="Показать экспертам, кто спрашивает? Вопрос они увидят в любом случае.",
    with_name="С моим именем",
    anonymously="Анонимно",
    choose_above="Выберите выше, показывать ли ваше имя, — тогда вопрос уйдёт.",
    already_sent="Этот вопрос уже отправлен экспертам.",
    not_yours="Отправить вопрос экспертам может только тот, кто его задал.",
    expired="Этот ответ больше не хранится: он старый или удалён. Задайте вопрос заново.",
    off="Вопросы экспертам отключены.",
    sent="✅ Вопрос отправлен экспертам. Их ответ придёт сюда.",
    not_sent="❌ Не удалось связаться с чатом экспертов, ничего не отправлено. Попробуйте позже.",
    forwarded="❓ <b>Вопрос, на который в документах нет ответа</b>\n"
    "<blockquote>{question}</blockquote>\n"
    "Спрашивает: {asker}\n{found}\n{beginning}\n\n"
    "<i>Ответьте на это сообщение (reply) — ответ уйдёт спросившему.</i>",
    asker_named="{who}",
    asker_anonymous="анонимно",
    found_files="Прочитаны файлы: {files}",
    found_nothing="Прочитаны файлы: ни одного",
    no_beginning="Ответ бота: нет.",
    expert_answer="🧑‍🏫 <b>Ответ эксперта</b>\n<blockquote>{question}</blockquote>\n{answer}",
    delivered="✅ Отправлено спросившему.",
    not_delivered="❌ Спросившему не удалось доставить ответ (возможно, он заблокировал бота); "
    "сохранить ответ всё равно можно.",
    save_button="💾 Сохранить как документ",
    saved="💾 Сохранено как <code>{path}</code>: теперь бот его найдёт.",
    already_saved="Уже сохранено как {path}.",
    save_admins_only="Сохранять ответы как документы может только администратор бота.",
    save_outside_scope="Папка {folder} вне папок, которые вам доступны, поэтому ответ не "
    "сохранён.",
    save_failed="Не удалось записать документ, ничего не сохранено. Попробуйте позже.",
    reply_expired="Этот ответ больше не хранится: он старый или удалён.",
)


def expert_texts(lang: str) -> ExpertTexts:
    """The texts for a language code the main texts use (`ru` or `en`)."""
    return RUSSIAN_EXPERTS if lang == "ru" else ENGLISH_EXPERTS
