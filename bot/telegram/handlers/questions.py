"""Questions: text (and, from non-admins, document captions) answered from the documents.

Pictures (`handlers.pictures`) and voice questions (`handlers.voice`) are asked through the
same `Asker.answer`.

One status message shows progress; the answer appears as the model writes it (a draft in
private chats, that message edited elsewhere) and is then delivered whole, as it would have been
without streaming. It ends with the files it came from, and its last message carries a button
per file that sends it, then (with EXPERTS_CHAT_ID, when the documents had nothing for the
question) "Ask an expert", then 👍/👎. Agent failures become one short message in the user's
language, with the detail in the log; an answer cut off midway keeps what arrived, marked as cut.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from html import escape

from aiogram import Bot, F, Router
from aiogram.types import Message

from bot.agent import Agent, AgentError, Answer, EventHandler, ModelStreamCut
from bot.agent.pictures import Picture
from bot.agent.quotes.marks import pages_by_source
from bot.digests.gaps.rule import unanswered_reason
from bot.settings.budgets import Budgets
from bot.settings.model import Settings
from bot.settings.scopes import Scopes
from bot.storage.albums import AlbumMemory
from bot.storage.feedback import FeedbackStore, new_answer_id
from bot.storage.pending_status import PendingStatusStore
from bot.storage.source_links import SourceLinks
from bot.storage.unanswered import UnansweredLog
from bot.storage.usage import Tokens, Use, question_key
from bot.telegram.addressing import has_words, question_text
from bot.telegram.context import ChatContext
from bot.telegram.handlers.compose import (
    answer_markdown,
    cut_markdown,
    drafts_marked,
    quoted_context,
    with_quote,
)
from bot.telegram.handlers.feedback import answered_of, remember_answer
from bot.telegram.handlers.filters import Matches, addressed
from bot.telegram.handlers.replies import say
from bot.telegram.output.delivery import Chunk, Delivery, Renderable
from bot.telegram.output.drafts import Drafts
from bot.telegram.output.expert_buttons import with_ask_expert
from bot.telegram.output.feedback_buttons import with_votes
from bot.telegram.output.pacing import EditPacer
from bot.telegram.output.progress import Progress
from bot.telegram.output.source_buttons import source_buttons
from bot.telegram.output.streaming import AnswerStream, OnScreen
from bot.telegram.render import render_answer
from bot.telegram.texts import Texts
from bot.telegram.texts.experts import expert_texts
from bot.telegram.tuning import Tuning
from bot.telegram.unanswered import note_unanswered
from tools.jail.scope import Scope

log = logging.getLogger(__name__)

_FLAGS = {"question": True}


def make_router() -> Router:
    """Text questions and captions; in groups only what is addressed to the bot."""
    router = Router(name="questions")
    router.message.filter(addressed)
    router.message.register(on_text, Matches(F.text), flags=_FLAGS)
    router.message.register(on_captioned_document, Matches(F.document & F.caption), flags=_FLAGS)
    router.message.register(on_bare_document, Matches(F.document))
    return router


@dataclass(frozen=True, slots=True)
class Asker:
    """Everything answering a question needs, built once by the composition root."""

    agent: Agent
    settings: Settings
    pacer: EditPacer
    tuning: Tuning
    pending: PendingStatusStore | None = None
    source_links: SourceLinks | None = None
    scopes: Scopes | None = None
    drafts: Drafts = field(default_factory=Drafts)
    unanswered: UnansweredLog | None = None
    """Where questions the documents could not answer are kept; None keeps none."""
    feedback: FeedbackStore | None = None
    budgets: Budgets | None = None
    """Where each answer's tokens are recorded (for budgets and /usage); None records none."""

    async def answer(
        self,
        bot: Bot,
        message: Message,
        chat_context: ChatContext,
        *,
        text: str | None = None,
        pictures: Sequence[Picture] = (),
    ) -> None:
        """Ask the agent, showing progress, and deliver the answer (or a clear error).

        `text` replaces the message's own text (a paste joined from several messages, a
        transcript, a picture's caption); `pictures` go to the model with it.
        """
        texts = chat_context.texts
        me = await bot.me()
        question = text.strip() if text is not None else question_text(message, me)
        if not has_words(question):
            await say(bot, chat_context, texts.empty_question, self.tuning)
            return
        conversation = chat_context.conversation
        log.debug("question in %s: %r", conversation, question)
        noted = self._noter(question, chat_context, message, self._counter(message))
        quoted = quoted_context(message, me, in_group=chat_context.is_group)
        asked = question
        question = with_quote(question, quoted)
        place = chat_context.place
        scope = await self._scope(conversation, chat_context)
        progress = Progress(
            bot,
            place,
            texts,
            self.pacer,
            show_status=self.settings.show_progress,
            typing_interval_s=self.tuning.typing_interval_s,
            settle_s=self.tuning.progress_settle_s,
            pending=self.pending,
        )
        delivery = Delivery(
            bot,
            place,
            pacer=self.pacer,
            retry_wait_cap_s=self.tuning.retry_wait_cap_s,
            sleep=self.tuning.sleep,
        )
        started = self.tuning.clock()

        def slow() -> bool:
            return self.tuning.clock() - started > self.tuning.notify_after_s

        stream = AnswerStream(
            bot,
            place,
            progress,
            pacer=self.pacer,
            drafts=None if chat_context.is_group else self.drafts,
            fresh=slow,
            settle_s=self.tuning.progress_settle_s,
        )
        try:
            try:
                async with progress, stream:
                    parts, sources, pages, answer = await _ask(
                        self.agent,
                        conversation,
                        question,
                        texts,
                        drafts_marked(stream.on_event, texts),
                        scope=scope,
                        noted=noted,
                        pictures=pictures,
                    )
            except asyncio.CancelledError:
                await _tell_interrupted(
                    delivery, texts, progress.status_message_id, stream.on_screen
                )
                raise
            buttons = await source_buttons(
                self.source_links, place.chat_id, sources, pages, texts=texts
            )
            answer_id = new_answer_id() if answer is not None and self.feedback else None
            if answer_id is not None:
                buttons = with_votes(buttons, answer_id)
                if answer is not None and self._for_experts(asked, answer):
                    buttons = with_ask_expert(
                        buttons, answer_id, expert_texts(chat_context.language)
                    )
            shown = stream.on_screen
            await stream.conclude(parts[-1])
            delivered = await delivery.send(
                parts,
                status_message_id=progress.status_message_id,
                failure_notice=texts.delivery_partial,
                new_message=shown.drafted or slow(),
                reply_markup=buttons,
                reuse=shown.messages,
                replace_draft=shown.drafted,
            )
            if answer_id is not None and answer is not None and delivered.message_ids:
                await self._remember(answer_id, answer, message, chat_context, asked)
        finally:
            await self._forget_status(place.chat_id, progress.status_message_id)
        log.info(
            "conversation %s: delivered %d of %d part(s)",
            conversation,
            len(delivered.message_ids),
            len(parts),
        )

    def _for_experts(self, question: str, answer: Answer) -> bool:
        """Whether "Ask an expert" goes under the answer: experts are set, and the documents
        had nothing for the question."""
        return (
            self.settings.experts_chat is not None
            and unanswered_reason(question, answer) is not None
        )

    def _noter(
        self,
        question: str,
        chat_context: ChatContext,
        message: Message,
        counted: Callable[[Answer], Awaitable[None]] | None,
    ) -> Callable[[Answer], Awaitable[None]] | None:
        """What learns of every answer given: its tokens are `counted`, and the question is
        kept when the answer shows the documents had nothing for it."""
        store = self.unanswered
        if store is None:
            return counted
        user_id = message.from_user.id if message.from_user else None

        async def noted(answer: Answer) -> None:
            if counted is not None:
                await counted(answer)
            await note_unanswered(
                store, question, answer, chat_context=chat_context, user_id=user_id
            )

        return noted

    def heard(self, message: Message, model: str) -> Callable[[Tokens], Awaitable[None]] | None:
        """What records the tokens a voice question's transcription took, once."""
        budgets = self.budgets
        if budgets is None:
            return None
        user_id = message.from_user.id if message.from_user else None
        chat_id = message.chat.id
        key = question_key(chat_id, message.message_id, "transcription")

        async def counted(tokens: Tokens) -> None:
            await budgets.record(
                Use(model, "transcription", tokens, user_id, chat_id, key, _topic(message))
            )

        return counted

    def _counter(self, message: Message) -> Callable[[Answer], Awaitable[None]] | None:
        """What records an answer's tokens under its question's key, once."""
        budgets = self.budgets
        if budgets is None:
            return None
        main_model = self.settings.model
        user_id = message.from_user.id if message.from_user else None
        chat_id = message.chat.id
        key = question_key(chat_id, message.message_id)

        async def counted(answer: Answer) -> None:
            usage = answer.usage
            tokens = Tokens(
                usage.prompt_tokens,
                usage.cached_prompt_tokens,
                usage.completion_tokens,
                images=usage.image_tokens,
            )
            model = answer.fallback_model or main_model  # the model that wrote it is paid
            await budgets.record(
                Use(
                    model,
                    "answer",
                    tokens,
                    user_id,
                    chat_id,
                    key,
                    _topic(message),
                    estimated=usage.estimated,
                )
            )

        return counted

    async def _scope(self, conversation: str, chat_context: ChatContext) -> Scope | None:
        """The scope this question is answered within. A conversation whose scope narrowed
        since its last question starts afresh: its history may hold text from outside. One
        with no history yet (a scoped conversation's first question) has nothing to narrow."""
        scope = await chat_context.scope()
        if self.scopes is None:
            return scope
        narrowed = await self.scopes.narrowed_since_last(conversation, scope)
        if narrowed and await self.agent.has_past(conversation):
            log.info("the scope of %s narrowed: a new conversation starts", conversation)
            await self.agent.reset(conversation)
        return scope

    async def _remember(
        self,
        answer_id: str,
        answer: Answer,
        message: Message,
        chat_context: ChatContext,
        question: str,
    ) -> None:
        """The answer is out with its 👍/👎: keep what its votes will be about."""
        if self.feedback is None or message.from_user is None:
            return
        answered = answered_of(
            answer,
            chat_id=chat_context.place.chat_id,
            user_id=message.from_user.id,
            conversation=chat_context.conversation,
            question=question,
            model=answer.fallback_model or self.settings.model,
        )
        await remember_answer(self.feedback, answer_id, answered)

    async def _forget_status(self, chat_id: int, status_id: int | None) -> None:
        """The question is over: its status message needs no tidying after a restart."""
        if self.pending is None or status_id is None:
            return
        try:
            await asyncio.shield(self.pending.remove(chat_id, status_id))
        except (sqlite3.Error, OSError) as exc:
            log.warning("status message in chat %d not forgotten: %s", chat_id, exc)


async def on_text(
    message: Message,
    *,
    bot: Bot,
    asker: Asker,
    chat_context: ChatContext,
    joined_text: str | None = None,
) -> None:
    """A question typed (or forwarded) as text; a paste Telegram split arrives joined."""
    await asker.answer(bot, message, chat_context, text=joined_text)


async def on_captioned_document(
    message: Message,
    *,
    bot: Bot,
    asker: Asker,
    is_admin: bool,
    albums: AlbumMemory,
    chat_context: ChatContext,
) -> None:
    """A non-admin's document: uploads are for admins, so the caption is the question."""
    if message.media_group_id is not None:
        await albums.remember(message.media_group_id, "answered")
    if not is_admin:
        await say(bot, chat_context, chat_context.texts.caption_as_question, asker.tuning)
    await asker.answer(bot, message, chat_context)


async def on_bare_document(
    message: Message, *, bot: Bot, tuning: Tuning, albums: AlbumMemory, chat_context: ChatContext
) -> None:
    """A non-admin's document without a caption: nothing to answer, and no upload.

    The other items of an album were answered (or refused) with its first one.
    """
    if not await albums.first_item(message.media_group_id, "refused"):
        return
    await say(bot, chat_context, chat_context.texts.upload_refused, tuning)


async def _tell_interrupted(
    delivery: Delivery, texts: Texts, status_id: int | None, shown: OnScreen
) -> None:
    """The bot is stopping mid-question: say so instead of leaving "Thinking…" (or half an
    answer) forever."""
    notice = [Chunk.from_html(escape(texts.error_interrupted))]
    try:
        sent = delivery.send(
            notice,
            status_message_id=status_id,
            reuse=shown.messages,
            new_message=shown.drafted,
            replace_draft=shown.drafted,
        )
        await asyncio.wait_for(sent, 3)
    except Exception as exc:  # best effort while shutting down
        log.debug("could not send the interruption notice: %s", exc)


async def _ask(
    agent: Agent,
    conversation: str,
    question: str,
    texts: Texts,
    on_event: EventHandler,
    *,
    scope: Scope | None,
    noted: Callable[[Answer], Awaitable[None]] | None = None,
    pictures: Sequence[Picture] = (),
) -> tuple[list[Renderable], tuple[str, ...], Mapping[str, tuple[int, ...]], Answer | None]:
    """The answer's parts, the sources its buttons open (none for an error), per source the
    pages its quotes were found on, which its page buttons show, and the agent's answer (None
    for an error: nothing to vote on); `noted` learns of every answer given."""
    try:
        result = await agent.ask(
            conversation, question, on_event=on_event, scope=scope, pictures=pictures
        )
    except AgentError as exc:
        log.warning("question in %s not answered (%s): %s", conversation, exc.kind, exc)
        notice = texts.agent_error(exc.kind)
        if isinstance(exc, ModelStreamCut) and exc.partial.strip():
            cut = cut_markdown(exc.partial, notice)
            return list(render_answer(cut.body, tail=cut.tail)), (), {}, None
        return [Chunk.from_html(escape(notice))], (), {}, None
    except Exception:  # an unexpected failure still owes the user a reply; the trace is logged
        log.exception("question in %s failed unexpectedly", conversation)
        return [Chunk.from_html(escape(texts.error_generic))], (), {}, None
    if noted is not None:
        await noted(result)
    answer = answer_markdown(result, texts)
    parts: list[Renderable] = list(render_answer(answer.body, tail=answer.tail))
    if not parts:
        return [Chunk.from_html(escape(texts.error_bad_reply))], (), {}, None
    return parts, result.sources, pages_by_source(result.quotes), result


def _topic(message: Message) -> int | None:
    """The forum topic a message was sent in (a reply thread outside a forum is none)."""
    return message.message_thread_id if message.is_topic_message else None
