"""Text around the model: the question with its quoted context, the answer with its notes.

Both directions need care: what the user replied to or quoted is context the model cannot see
otherwise, and the notes that follow the model's Markdown must stay outside anything it left
open, so they travel next to it rather than appended to it.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from aiogram.types import Message, User

from bot.agent import AgentEvent, Answer, AnswerDraft, EventHandler, Handover
from bot.agent.quotes.marks import marked, pages_named, sections_named
from bot.telegram.texts import Texts

MAX_QUOTE_CHARS = 1500
CUT_MARK = "✂️ …"
_MARKDOWN_PUNCTUATION = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~&])")


def quoted_context(message: Message, me: User, *, in_group: bool) -> str | None:
    """The text the question quotes or replies to, when the model has not seen it already.

    A selected quote wins over the whole replied-to message. The bot's own messages in a
    private chat are already in the conversation history; in a group they may belong to
    someone else's conversation, so they are quoted too.
    """
    if message.quote is not None and message.quote.text.strip():
        return message.quote.text.strip()
    replied = message.reply_to_message
    if replied is None:
        return None
    own = replied.from_user is not None and replied.from_user.id == me.id
    if own and not in_group:
        return None
    text = (replied.text or replied.caption or "").strip()
    return text or None


def with_quote(question: str, quoted: str | None) -> str:
    """The question preceded by the quoted text, bounded and marked as a quotation."""
    if not quoted:
        return question
    if len(quoted) > MAX_QUOTE_CHARS:
        quoted = quoted[: MAX_QUOTE_CHARS - 1].rstrip() + "…"
    block = "\n".join(f"> {line}" if line else ">" for line in quoted.splitlines())
    return f"The user is replying to this message (quoted for context):\n{block}\n\n{question}"


@dataclass(frozen=True, slots=True)
class AnswerMarkdown:
    """The model's Markdown and the paragraphs that follow it, kept apart for the renderer.

    The renderer ends whatever the body leaves open (a code fence cut off by the token limit)
    before the tail, so the notes and the sources line never land inside a code block.
    """

    body: str
    tail: tuple[str, ...] = ()


def answer_markdown(result: Answer, texts: Texts) -> AnswerMarkdown:
    """The model's answer with its quotes marked, then its notes and the sources line (with the
    sections quoted and the pages read or quoted); all empty for a blank answer."""
    if not result.text.strip():
        return AnswerMarkdown("")
    handover = result.handover
    if handover is None:
        body = marked(result.text, result.quotes, texts.quote_words).strip()
    else:
        before, after = _marked_apart(result, handover.at, texts)
        joined = with_handover(before + after, Handover(len(before), handover.model), texts)
        body = joined.strip()
    tail = []
    if result.fallback_model is not None and handover is None:
        tail.append(texts.note_fallback.format(model=_escaped(result.fallback_model)))
    if result.not_from_documents:
        tail.append(texts.note_not_from_documents)
    if result.cut_short:
        tail.append(texts.note_cut_short)
    if result.truncated:
        tail.append(texts.note_truncated)
    if result.pictures_as_text:
        tail.append(texts.note_pictures_as_text)
    if result.sources:
        sections = sections_named(result.sources, result.quotes)
        tail.append(texts.sources_line(result.sources, pages=pages_of(result), sections=sections))
    return AnswerMarkdown(body, tuple(tail))


def pages_of(result: Answer) -> dict[str, tuple[int, ...]]:
    """Per source, the pages quoted first, then the other pages read."""
    return pages_named(result.sources, result.quotes, result.pages)


def with_handover(text: str, handover: Handover | None, texts: Texts) -> str:
    """An answer's Markdown with the line that says where a fallback model took it over (a
    paragraph of its own between the part shown before the break and the rest). The part
    shown is kept exactly, so the text on screen while it streamed stays a beginning of it."""
    if handover is None:
        return text
    line = texts.note_handover.format(model=_escaped(handover.model))
    return f"{text[: handover.at]}\n\n{line}\n\n{text[handover.at :].lstrip()}"


def drafts_marked(on_event: EventHandler, texts: Texts) -> EventHandler:
    """`on_event` hearing the streamed text of an answer a fallback took over with the line
    that says so in place, as the finished answer will show it."""

    async def handler(event: AgentEvent) -> None:
        if isinstance(event, AnswerDraft) and event.handover is not None:
            event = AnswerDraft(with_handover(event.text, event.handover, texts))
        await on_event(event)

    return handler


def _marked_apart(result: Answer, at: int, texts: Texts) -> tuple[str, str]:
    """The answer's two parts, before and after a handover, each with its own quotes marked
    (a quote would straddle the break only if the model repeated itself: it stays unmarked)."""
    text, words = result.text, texts.quote_words
    before = [check for check in result.quotes if check.end <= at]
    after = [
        dataclasses.replace(check, start=check.start - at, end=check.end - at)
        for check in result.quotes
        if check.start >= at
    ]
    return marked(text[:at], before, words), marked(text[at:], after, words)


def _escaped(text: str) -> str:
    """Plain text (a model's name) safe inside Markdown."""
    return _MARKDOWN_PUNCTUATION.sub(r"\\\1", text)


def cut_markdown(partial: str, notice: str) -> AnswerMarkdown:
    """An answer whose stream broke off: what arrived, the cut mark, then `notice` (plain
    text), so the part shown can never pass for a complete answer."""
    return AnswerMarkdown(partial.strip(), (CUT_MARK, _escaped(notice)))
