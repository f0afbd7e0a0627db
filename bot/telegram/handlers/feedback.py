"""👍 and 👎 under answers: a tap votes, a 👎 asks once what was wrong, a reply says it in words.

Every answer's record is written when it is delivered (`remember_answer`, called by the
questions' handler); its buttons carry only the record's id. A tap counts from the person who
asked only (in a group, the member whose question it was) and in the chat the answer went to;
anyone else, and an id the bot no longer keeps (HISTORY_DAYS, `/forget`), gets a pop-up. A
second tap changes the vote, and the buttons show the choice. The first 👎 sends "what was
wrong?" with a button per reason; a reply to that message from the asker is kept as the
comment, up to `COMMENT_CHARS` (a longer one is refused, so nothing is cut unseen).
"""

from __future__ import annotations

import logging
import sqlite3
from html import escape

from aiogram import Bot, F, Router
from aiogram.exceptions import TelegramAPIError
from aiogram.types import CallbackQuery, InaccessibleMessage, Message

from bot.agent import Answer
from bot.monitoring.metrics import Metrics
from bot.settings.model import Settings
from bot.storage.errors import StorageError
from bot.storage.feedback import (
    COMMENT_CHARS,
    Answered,
    FeedbackRecord,
    FeedbackStore,
)
from bot.storage.unanswered import UnansweredLog
from bot.telegram.context import ChatContext
from bot.telegram.handlers.filters import Matches
from bot.telegram.handlers.replies import say
from bot.telegram.output.delivery import Chunk, Delivery
from bot.telegram.output.expert_buttons import with_ask_expert
from bot.telegram.output.feedback_buttons import (
    ReasonButton,
    VoteButton,
    reason_markup,
    reason_of,
    vote_of,
    with_votes,
)
from bot.telegram.output.pacing import ChatPlace
from bot.telegram.texts.experts import expert_texts
from bot.telegram.texts.feedback import FeedbackTexts, feedback_texts
from bot.telegram.tuning import Tuning

log = logging.getLogger(__name__)


def make_router() -> Router:
    """Vote and reason taps, and replies to "what was wrong?"."""
    router = Router(name="feedback")
    router.callback_query.register(on_vote, VoteButton.filter())
    router.callback_query.register(on_reason, ReasonButton.filter())
    router.message.register(
        on_comment, Matches(F.text & ~F.text.startswith("/") & F.reply_to_message), commenting
    )
    return router


async def remember_answer(store: FeedbackStore, answer_id: str, answered: Answered) -> None:
    """Write a delivered answer's record; a store that cannot be written costs its votes (a tap
    then says the answer cannot be rated), never the answer."""
    try:
        await store.record(answer_id, answered)
    except Exception as exc:  # either backend's failure; the answer is out already
        log.warning("the answer in chat %d was not kept for feedback: %s", answered.chat_id, exc)


def answered_of(
    answer: Answer, *, chat_id: int, user_id: int, conversation: str, question: str, model: str
) -> Answered:
    """What is kept of one answer."""
    usage = answer.usage
    return Answered(
        chat_id=chat_id,
        user_id=user_id,
        conversation=conversation,
        question=question,
        answer=answer.text,
        files=answer.sources,
        model=model,
        prompt_tokens=usage.prompt_tokens,
        completion_tokens=usage.completion_tokens,
        seconds=usage.elapsed_s,
    )


async def on_vote(
    query: CallbackQuery,
    callback_data: VoteButton,
    *,
    bot: Bot,
    feedback: FeedbackStore,
    metrics: Metrics,
    tuning: Tuning,
    settings: Settings,
    chat_context: ChatContext,
) -> None:
    """Keep the vote, show it on the buttons (a 👎 adds "Ask an expert" when experts are set),
    and after a first 👎 ask what was wrong."""
    texts = feedback_texts(chat_context.language)
    vote = vote_of(callback_data.vote)
    record = await _tapped(query, callback_data.answer_id, feedback, texts)
    pressed = query.message
    if vote is None or record is None or not isinstance(pressed, Message):
        if record is not None:
            await _toast(query, texts.expired, alert=True)
        return
    updated = await feedback.vote(record.id, vote)
    if updated is None:
        await _toast(query, texts.expired, alert=True)
        return
    metrics.feedback_given(vote)
    log.info("answer %s in chat %d voted %s", record.id, pressed.chat.id, vote)
    await _toast(query, texts.thanks_up if vote == "up" else texts.thanks_down)
    if record.vote != vote:
        markup = with_votes(pressed.reply_markup, record.id, vote)
        if vote == "down" and settings.experts_chat is not None:
            markup = with_ask_expert(markup, record.id, expert_texts(chat_context.language))
        try:
            await bot.edit_message_reply_markup(
                chat_id=pressed.chat.id, message_id=pressed.message_id, reply_markup=markup
            )
        except TelegramAPIError as exc:  # deleted meanwhile: the vote is kept all the same
            log.info("the vote buttons of answer %s were not updated: %s", record.id, exc)
    if vote == "down" and updated.prompt_message_id is None:
        await _ask_why(
            bot,
            pressed,
            updated,
            texts=texts,
            chat_context=chat_context,
            tuning=tuning,
            feedback=feedback,
        )


async def on_reason(
    query: CallbackQuery,
    callback_data: ReasonButton,
    *,
    bot: Bot,
    feedback: FeedbackStore,
    metrics: Metrics,
    chat_context: ChatContext,
    unanswered: UnansweredLog | None = None,
) -> None:
    """Keep what was wrong, and mark the chosen reason; "not in the documents" also keeps the
    question for `/gaps`."""
    texts = feedback_texts(chat_context.language)
    reason = reason_of(callback_data.reason)
    record = await _tapped(query, callback_data.answer_id, feedback, texts)
    pressed = query.message
    if reason is None or record is None or not isinstance(pressed, Message):
        if record is not None:
            await _toast(query, texts.expired, alert=True)
        return
    if not await feedback.set_reason(record.id, reason):
        await _toast(query, texts.comment_not_down, alert=True)
        return
    metrics.feedback_given("down", reason)
    await _toast(query, texts.reason_saved.format(reason=texts.reasons[reason]))
    if record.reason == reason:
        return
    if reason == "not_in_documents" and unanswered is not None:
        await _keep_as_unanswered(unanswered, record, chat_context.language)
    try:
        await bot.edit_message_reply_markup(
            chat_id=pressed.chat.id,
            message_id=pressed.message_id,
            reply_markup=reason_markup(record.id, texts.reasons, reason),
        )
    except TelegramAPIError as exc:  # deleted meanwhile: the reason is kept all the same
        log.info("the reason buttons of answer %s were not updated: %s", record.id, exc)


async def commenting(
    message: Message, bot: Bot, feedback: FeedbackStore
) -> dict[str, FeedbackRecord] | bool:
    """A reply by the asker to the bot's "what was wrong?": its record, for the handler."""
    replied = message.reply_to_message
    user = message.from_user
    if replied is None or user is None or replied.from_user is None:
        return False
    if replied.from_user.id != bot.id:
        return False
    try:
        record = await feedback.by_prompt(message.chat.id, replied.message_id)
    except (sqlite3.Error, OSError) as exc:
        log.warning("a reply could not be matched to an answer's feedback: %s", exc)
        return False
    if record is None or record.answered.user_id != user.id:
        return False
    return {"commented": record}


async def on_comment(
    message: Message,
    *,
    bot: Bot,
    commented: FeedbackRecord,
    feedback: FeedbackStore,
    metrics: Metrics,
    tuning: Tuning,
    chat_context: ChatContext,
) -> None:
    """Keep the asker's words on what was wrong, or say why not."""
    texts = feedback_texts(chat_context.language)
    comment = (message.text or "").strip()
    if len(comment) > COMMENT_CHARS:
        reply = texts.comment_too_long.format(length=len(comment), limit=COMMENT_CHARS)
    elif await feedback.set_comment(commented.id, comment):
        metrics.feedback_given("down", "comment")
        log.info("answer %s got a comment of %d characters", commented.id, len(comment))
        reply = texts.comment_saved
    else:
        reply = escape(texts.comment_not_down)
    await say(bot, chat_context, reply, tuning)


async def _tapped(
    query: CallbackQuery, answer_id: str, feedback: FeedbackStore, texts: FeedbackTexts
) -> FeedbackRecord | None:
    """The record behind a tap that may vote on it; None once the tap is answered with why not
    (an unknown, deleted or malformed id, someone other than the asker, another chat)."""
    pressed = query.message
    if pressed is None or isinstance(pressed, InaccessibleMessage):
        await _toast(query, texts.expired, alert=True)
        return None
    try:
        record = await feedback.find(answer_id)
    except (sqlite3.Error, OSError) as exc:
        log.warning("the feedback of answer %s could not be read: %s", answer_id, exc)
        record = None
    if record is None:
        await _toast(query, texts.expired, alert=True)
        return None
    asked = record.answered
    if asked.chat_id != pressed.chat.id or asked.user_id != query.from_user.id:
        log.info("user %d may not rate answer %s", query.from_user.id, answer_id)
        await _toast(query, texts.not_yours, alert=True)
        return None
    return record


async def _ask_why(
    bot: Bot,
    answer: Message,
    record: FeedbackRecord,
    *,
    texts: FeedbackTexts,
    chat_context: ChatContext,
    tuning: Tuning,
    feedback: FeedbackStore,
) -> None:
    """Send "what was wrong?" under the answer, once: its id is kept so a reply finds it."""
    place = ChatPlace(answer.chat.id, chat_context.place.thread_id, reply_to=answer.message_id)
    delivery = Delivery(bot, place, retry_wait_cap_s=tuning.retry_wait_cap_s, sleep=tuning.sleep)
    sent = await delivery.send(
        [Chunk.from_html(escape(texts.why.format(limit=COMMENT_CHARS)))],
        reply_markup=reason_markup(record.id, texts.reasons),
    )
    if sent.message_ids:
        await feedback.mark_asked(record.id, sent.message_ids[-1])


async def _toast(query: CallbackQuery, text: str, *, alert: bool = False) -> None:
    """Answer the tap: a short note, or a pop-up to dismiss for a refusal; a stale query is
    only logged."""
    try:
        await query.answer(text, show_alert=alert)
    except TelegramAPIError as exc:
        log.info("could not answer a feedback tap: %s", exc)


async def _keep_as_unanswered(
    unanswered: UnansweredLog, record: FeedbackRecord, language: str
) -> None:
    """The asker says the documents lack the answer: the question joins `/gaps`. A store that
    cannot be written costs only that (the reason is kept already)."""
    asked = record.answered
    try:
        await unanswered.mark(
            asked.question,
            chat_id=asked.chat_id,
            user_id=asked.user_id,
            conversation=asked.conversation,
            language=language,
            reason="feedback",
            files=asked.files,
        )
    except (sqlite3.Error, OSError, StorageError) as exc:
        log.warning("a question said to be missing from the documents was not kept: %s", exc)
