"""Text around the model: the question with its quoted context, the answer with its notes.

Both directions need care: what the user replied to or quoted is context the model cannot see
otherwise, and the model's Markdown must stay well-formed after the notes are appended.
"""

from __future__ import annotations

from aiogram.types import Message, User

from bot.agent import Answer
from bot.telegram.render.blocks import make_parser
from bot.telegram.texts import Texts

MAX_QUOTE_CHARS = 1500


def quoted_context(message: Message, me: User) -> str | None:
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
    if own and message.chat.type == "private":
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


def unclosed_fence(markdown: str) -> str | None:
    """The fence (e.g. "```") of a code block left open at the end, or None.

    Uses the renderer's own parser, so indented code, longer fences and fences inside lists
    are judged exactly as they will be rendered.
    """
    lines = markdown.splitlines()
    for token in make_parser().parse(markdown):
        if token.type != "fence" or token.map is None or token.map[1] != len(lines):
            continue
        start, end = token.map
        last = lines[end - 1].strip()
        fence = token.markup
        closed = end - start >= 2 and len(last) >= len(fence) and set(last) == {fence[0]}
        if not closed:
            return fence
    return None


def answer_markdown(result: Answer, texts: Texts) -> str:
    """The model's answer with the notes and the sources line appended as Markdown."""
    body = result.text.strip()
    if not body:
        return ""
    fence = unclosed_fence(body)
    if fence is not None:
        body += "\n" + fence
    tail = []
    if result.cut_short:
        tail.append(texts.note_cut_short)
    if result.truncated:
        tail.append(texts.note_truncated)
    if result.sources:
        tail.append(texts.sources_line(result.sources))
    return "\n\n".join([body, *tail])
