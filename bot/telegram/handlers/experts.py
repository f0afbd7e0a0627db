""" "Ask an expert": the asker's side. A tap under an unanswered or disliked answer asks, once,
whether the experts may see who asked; the choice sends the question to EXPERTS_CHAT_ID (in its
forum topic, when one is given) with what the bot found, and the asker is told.

Only the person who asked, in the chat the answer went to, may send it; one answer is sent at
most once (the request is claimed before it is sent, and given back only when the experts'
chat could not be reached). The answer's record (`bot.storage.feedback`) gives the question,
the files read and the answer's first lines; the request (`bot.storage.experts`) remembers
where the expert's reply goes. Replies and saving them are `expert_replies`.
"""

from __future__ import annotations

import logging
import sqlite3
from html import escape

from aiogram import Bot, Router
from aiogram.exceptions import TelegramAPIError
from aiogram.types import CallbackQuery, Message, User

from bot.settings.model import ChatTopic, Settings
from bot.storage.errors import StorageError
from bot.storage.experts import Asked, ExpertRequest, ExpertRequests
from bot.storage.feedback import FeedbackRecord, FeedbackStore
from bot.telegram.context import ChatContext
from bot.telegram.handlers.replies import pop_up, say
from bot.telegram.output.delivery import Chunk, Delivery
from bot.telegram.output.expert_buttons import AskExpert, ShowName, name_markup
from bot.telegram.output.pacing import ChatPlace
from bot.telegram.texts.experts import ExpertTexts, expert_texts
from bot.telegram.texts.names import visible
from bot.telegram.tuning import Tuning

log = logging.getLogger(__name__)

BEGINNING_LINES = 3
BEGINNING_CHARS = 400
"""How much of the bot's answer the experts see: enough to tell what it said."""


def make_router() -> Router:
    """The taps on "Ask an expert" and on the choice of showing one's name."""
    router = Router(name="experts")
    router.callback_query.register(on_ask, AskExpert.filter())
    router.callback_query.register(on_show_name, ShowName.filter())
    return router


async def on_ask(
    query: CallbackQuery,
    callback_data: AskExpert,
    *,
    bot: Bot,
    settings: Settings,
    feedback: FeedbackStore,
    experts: ExpertRequests,
    tuning: Tuning,
    chat_context: ChatContext,
) -> None:
    """Ask the asker, once, whether the experts may see their name."""
    texts = expert_texts(chat_context.language)
    pressed = query.message
    if settings.experts_chat is None:
        await pop_up(query, texts.off)
        return
    record = await _answer(feedback, callback_data.answer_id)
    if record is None or not isinstance(pressed, Message):
        await pop_up(query, texts.expired)
        return
    asked = record.answered
    if asked.chat_id != pressed.chat.id or asked.user_id != query.from_user.id:
        log.info("user %d may not send answer %s to the experts", query.from_user.id, record.id)
        await pop_up(query, texts.not_yours)
        return
    before = await experts.find(record.id)
    if before is not None:
        await pop_up(query, texts.choose_above if before.state == "asking" else texts.already_sent)
        return
    await experts.start(
        record.id,
        Asked(
            chat_id=asked.chat_id,
            user_id=asked.user_id,
            question=asked.question,
            language=chat_context.language,
            thread_id=chat_context.place.thread_id,
            reply_to=pressed.message_id,
        ),
    )
    place = ChatPlace(pressed.chat.id, chat_context.place.thread_id, reply_to=pressed.message_id)
    delivery = Delivery(bot, place, retry_wait_cap_s=tuning.retry_wait_cap_s, sleep=tuning.sleep)
    await delivery.send(
        [Chunk.from_html(escape(texts.show_name))], reply_markup=name_markup(record.id, texts)
    )
    await pop_up(query, None)


async def on_show_name(
    query: CallbackQuery,
    callback_data: ShowName,
    *,
    bot: Bot,
    settings: Settings,
    feedback: FeedbackStore,
    experts: ExpertRequests,
    tuning: Tuning,
    chat_context: ChatContext,
) -> None:
    """Send the question to the experts, with the asker's name when they chose so."""
    texts = expert_texts(chat_context.language)
    where = settings.experts_chat
    if where is None:
        await pop_up(query, texts.off)
        return
    request = await experts.find(callback_data.answer_id)
    record = await _answer(feedback, callback_data.answer_id)
    if request is None or record is None:
        await pop_up(query, texts.expired)
        return
    if request.asked.user_id != query.from_user.id:
        await pop_up(query, texts.not_yours)
        return
    name = asker_name(query.from_user) if callback_data.show == "y" else None
    if not await experts.claim(request.id, name):
        await pop_up(query, texts.already_sent)
        return
    forwarded = forward_text(request, record, name, expert_texts(request.asked.language))
    message_id = await _send_to_experts(bot, where, forwarded, tuning)
    if message_id is None:
        await experts.release(request.id)
        await say(bot, chat_context, escape(texts.not_sent), tuning)
        await pop_up(query, None)
        return
    await experts.sent(request.id, where.chat_id, message_id)
    log.info(
        "the question of answer %s went to the experts' chat %d as message %d (%s)",
        request.id,
        where.chat_id,
        message_id,
        "named" if name is not None else "anonymous",
    )
    await _tell_sent(bot, query, texts, chat_context, tuning)
    await pop_up(query, None)


def asker_name(user: User) -> str:
    """`Ann Lee (@ann)`: how the experts see an asker who agreed to be named."""
    name = user.full_name.strip() or str(user.id)
    return f"{name} (@{user.username})" if user.username else name


def forward_text(
    request: ExpertRequest, record: FeedbackRecord, name: str | None, texts: ExpertTexts
) -> str:
    """The message in the experts' chat: the question, who asked (if agreed), the files the
    bot read and the first lines of its answer. Everything users wrote is escaped."""
    files = record.answered.files
    found = (
        texts.found_files.format(
            files=", ".join(f"<code>{escape(visible(f))}</code>" for f in files)
        )
        if files
        else texts.found_nothing
    )
    beginning = first_lines(record.answered.answer)
    return texts.forwarded.format(
        question=escape(request.asked.question),
        asker=texts.asker_anonymous if name is None else escape(visible(name)),
        found=found,
        beginning=f"<blockquote>{escape(beginning)}</blockquote>"
        if beginning
        else texts.no_beginning,
    )


def first_lines(answer: str) -> str:
    """The answer's first few non-empty lines, cut to `BEGINNING_CHARS`."""
    lines = [line.strip() for line in answer.splitlines() if line.strip()][:BEGINNING_LINES]
    text = "\n".join(lines)
    return text if len(text) <= BEGINNING_CHARS else text[: BEGINNING_CHARS - 1] + "…"


async def _answer(feedback: FeedbackStore, answer_id: str) -> FeedbackRecord | None:
    """The answer behind a button; None when the store has it no more (or cannot be read)."""
    try:
        return await feedback.find(answer_id)
    except (sqlite3.Error, OSError, StorageError) as exc:
        log.warning("answer %s could not be read for the experts: %s", answer_id, exc)
        return None


async def _send_to_experts(bot: Bot, where: ChatTopic, html: str, tuning: Tuning) -> int | None:
    """Post the question in the experts' chat (and topic); its message id, or None when the
    chat refused it (the bot is not in the group, the topic is gone)."""
    place = ChatPlace(where.chat_id, where.thread_id)
    delivery = Delivery(bot, place, retry_wait_cap_s=tuning.retry_wait_cap_s, sleep=tuning.sleep)
    sent = await delivery.send([Chunk.from_html(html)])
    if not sent.message_ids:
        log.warning(
            "the experts' chat %d (EXPERTS_CHAT_ID) refused a question: is the bot a member, "
            "and the topic still there?",
            where.chat_id,
        )
        return None
    return sent.message_ids[0]


async def _tell_sent(
    bot: Bot, query: CallbackQuery, texts: ExpertTexts, chat_context: ChatContext, tuning: Tuning
) -> None:
    """The question about the name becomes "sent" (its buttons go); when it cannot be edited,
    a new message says it."""
    asked = query.message
    if isinstance(asked, Message):
        try:
            await bot.edit_message_text(
                chat_id=asked.chat.id, message_id=asked.message_id, text=texts.sent
            )
        except TelegramAPIError as exc:
            log.info("the question about the name was not edited: %s", exc)
        else:
            return
    await say(bot, chat_context, escape(texts.sent), tuning)
