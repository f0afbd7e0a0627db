""" "Ask an expert": the experts' side. A reply in EXPERTS_CHAT_ID to the bot's message with a
question goes back to the person who asked, as "Ответ эксперта" / "Expert's answer", in their
language and in their chat (in the topic and under the answer it was about). Under the reply the
bot then offers "Save as a document": one tap writes the question and the answer as a Markdown
file in EXPERTS_FOLDER, the way an upload lands (the jail, the tapping admin's scope in the
experts' chat, a safe unused name, the index refreshed so the next search finds it) and is
written to the audit log. Experts who are not admins, or whose scope leaves the folder out, are
told why nothing was saved.

Only replies to the bot's own question messages are taken: with privacy mode on, these are
what a bot in a group receives anyway.
"""

from __future__ import annotations

import logging
import sqlite3
from html import escape

from aiogram import Bot, F, Router
from aiogram.exceptions import TelegramAPIError
from aiogram.types import CallbackQuery, Message

from bot.documents.faq import ExpertAnswer, faq_file_name, faq_markdown
from bot.settings.model import Settings
from bot.storage.audit import AuditLog
from bot.storage.errors import StorageError
from bot.storage.experts import ExpertReply, ExpertRequest, ExpertRequests
from bot.telegram.context import ChatContext
from bot.telegram.handlers.experts import asker_name
from bot.telegram.handlers.filters import Matches
from bot.telegram.handlers.replies import pop_up
from bot.telegram.output.delivery import Chunk, Delivery
from bot.telegram.output.expert_buttons import SaveReply, save_markup
from bot.telegram.output.pacing import ChatPlace
from bot.telegram.texts.experts import ExpertTexts, expert_texts
from bot.telegram.tuning import Tuning
from bot.telegram.uploads import UploadError, save_text
from tools import Toolbox

log = logging.getLogger(__name__)

QUESTION_SHOWN = 300
"""Characters of the question quoted above the expert's answer: a reminder, not the whole."""
MESSAGE_CHARS = 4000
"""Above this the quoted question and the answer go as two messages (Telegram takes 4096)."""


def make_router() -> Router:
    """Replies in the experts' chat and the taps on "Save as a document"."""
    router = Router(name="expert_replies")
    router.message.register(on_expert_reply, Matches(F.text & F.reply_to_message), expert_replying)
    router.callback_query.register(on_save, SaveReply.filter())
    return router


async def expert_replying(
    message: Message, bot: Bot, settings: Settings, experts: ExpertRequests
) -> dict[str, ExpertRequest] | bool:
    """A reply in the experts' chat to the bot's message with a question: its request."""
    where = settings.experts_chat
    replied = message.reply_to_message
    if where is None or message.chat.id != where.chat_id or replied is None:
        return False
    if replied.from_user is None or replied.from_user.id != bot.id:
        return False
    try:
        request = await experts.by_message(message.chat.id, replied.message_id)
    except (sqlite3.Error, OSError, StorageError) as exc:
        log.warning("a reply in the experts' chat could not be matched to a question: %s", exc)
        return False
    return False if request is None else {"expert_request": request}


async def on_expert_reply(
    message: Message,
    *,
    bot: Bot,
    expert_request: ExpertRequest,
    experts: ExpertRequests,
    tuning: Tuning,
    chat_context: ChatContext,
) -> None:
    """Keep the reply, deliver it to the asker, and offer to save it."""
    expert = message.from_user
    text = (message.text or "").strip()
    if expert is None or not text:
        return
    reply = ExpertReply(
        request_id=expert_request.id,
        message_id=message.message_id,
        expert_id=expert.id,
        expert_name=asker_name(expert),
        text=text,
        replied_at=tuning.wall_clock(),
    )
    await experts.add_reply(reply)
    delivered = await _deliver(bot, expert_request, text, tuning)
    log.info(
        "an expert's reply to answer %s %s",
        expert_request.id,
        "reached the asker" if delivered else "could not be delivered",
    )
    texts = expert_texts(chat_context.language)
    place = ChatPlace(message.chat.id, chat_context.place.thread_id, reply_to=message.message_id)
    delivery = Delivery(bot, place, retry_wait_cap_s=tuning.retry_wait_cap_s, sleep=tuning.sleep)
    note = texts.delivered if delivered else texts.not_delivered
    await delivery.send(
        [Chunk.from_html(escape(note))],
        reply_markup=save_markup(expert_request.id, message.message_id, texts),
    )


async def on_save(
    query: CallbackQuery,
    callback_data: SaveReply,
    *,
    bot: Bot,
    is_admin: bool,
    settings: Settings,
    experts: ExpertRequests,
    toolbox: Toolbox,
    audit: AuditLog,
    chat_context: ChatContext,
) -> None:
    """Save the reply as a Markdown document, once, for an admin whose scope has the folder."""
    texts = expert_texts(chat_context.language)
    who = query.from_user
    if not is_admin:
        log.info("user %d may not save an expert's answer: not an admin", who.id)
        await pop_up(query, texts.save_admins_only)
        return
    request = await experts.find(callback_data.answer_id)
    reply = await experts.reply(callback_data.answer_id, callback_data.message_id)
    if request is None or reply is None:
        await pop_up(query, texts.reply_expired)
        return
    if not await experts.claim_saving(request.id, reply.message_id):
        again = await experts.reply(request.id, reply.message_id)
        path = again.saved_as if again is not None and again.saved_as else "…"
        await pop_up(query, texts.already_saved.format(path=path))
        return
    document = faq_markdown(
        ExpertAnswer(
            question=request.asked.question,
            answer=reply.text,
            expert=reply.expert_name,
            answered_at=reply.replied_at,
            asker=request.asker_name,
            asked_at=request.created_at,
            language=request.asked.language,
        )
    )
    folder = settings.experts_folder
    try:
        saved = await save_text(
            toolbox,
            folder,
            faq_file_name(request.asked.question),
            document,
            scope=await chat_context.scope(),
        )
    except UploadError as exc:
        await experts.saved(request.id, reply.message_id, None)
        log.warning("an expert's answer to %s was not saved: %s", request.id, exc)
        refused = exc.kind in {"outside_scope", "no_folder"}
        await pop_up(
            query, texts.save_outside_scope.format(folder=folder) if refused else texts.save_failed
        )
        return
    await experts.saved(request.id, reply.message_id, saved.path)
    await audit.record(
        "upload", saved.path, actor_id=who.id, actor_name=who.full_name, detail="expert's answer"
    )
    await _show_saved(bot, query, texts, saved.path)
    await pop_up(query, None)


async def _deliver(bot: Bot, request: ExpertRequest, text: str, tuning: Tuning) -> bool:
    """The expert's answer in the asker's chat and language, under the answer it is about;
    whether it arrived."""
    texts = expert_texts(request.asked.language)
    asked = request.asked
    question = asked.question
    if len(question) > QUESTION_SHOWN:
        question = question[: QUESTION_SHOWN - 1] + "…"
    whole = texts.expert_answer.format(question=escape(question), answer=escape(text))
    if len(whole) <= MESSAGE_CHARS:
        parts = [Chunk.from_html(whole)]
    else:
        heading = texts.expert_answer.format(question=escape(question), answer="")
        parts = [Chunk.from_html(heading.rstrip()), Chunk.from_html(escape(text))]
    place = ChatPlace(asked.chat_id, asked.thread_id, reply_to=asked.reply_to)
    delivery = Delivery(bot, place, retry_wait_cap_s=tuning.retry_wait_cap_s, sleep=tuning.sleep)
    sent = await delivery.send(parts)
    return sent.complete and len(sent.message_ids) == len(parts)


async def _show_saved(bot: Bot, query: CallbackQuery, texts: ExpertTexts, path: str) -> None:
    """The note under the reply says where the answer was saved, and loses its button."""
    note = query.message
    if not isinstance(note, Message):
        return
    shown = texts.saved.format(path=escape(path))
    try:
        await bot.edit_message_text(
            chat_id=note.chat.id,
            message_id=note.message_id,
            text=f"{note.html_text}\n{shown}" if note.text else shown,
            parse_mode="HTML",
        )
    except TelegramAPIError as exc:
        log.info("the note under an expert's reply was not edited: %s", exc)
