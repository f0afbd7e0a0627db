"""The model's Markdown answer as Telegram HTML, cut into parts that fit one message each.

`render_answer` is the entry point the Telegram layer needs: every part carries the HTML for
`parse_mode="HTML"` and the same text without markup, sent when Telegram rejects the HTML.
While an answer is still being written, `settled` picks the beginning of it that is safe to
render and show now.

Inside: `blocks` parses Markdown with markdown-it and walks its blocks, `inline` styles the
text within them, `tables` lays tables out for a phone, `emitter` writes the styled spans with
their spacing, `split` cuts them into message-sized parts, `partial` finds the settled part of
a growing answer, `markup` and `text` turn spans into HTML and plain text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.telegram.render.blocks import markdown_to_spans
from bot.telegram.render.markup import Span
from bot.telegram.render.partial import settled
from bot.telegram.render.split import split_spans
from bot.telegram.render.text import escape, utf16_len

__all__ = ["MIN_LIMIT", "Part", "escape", "render_answer", "settled", "utf16_len"]

MIN_LIMIT = 64


@dataclass(frozen=True, slots=True)
class Part:
    """One message: `html` for parse_mode HTML, `plain` as the fallback without markup."""

    html: str
    plain: str


def render_answer(markdown: str, *, tail: Sequence[str] = (), limit: int = 4096) -> list[Part]:
    """Render Markdown to Telegram HTML parts, each under `limit` UTF-16 units.

    `tail` holds Markdown paragraphs that follow the body (notes, the sources line), each
    rendered on its own after it: a code block the body leaves open ends with the body.
    Returns an empty list only for blank input. Concatenating the parts' text gives back the
    whole rendered text, except the whitespace at the points where it was cut.
    """
    if limit < MIN_LIMIT:
        raise ValueError(f"limit must be at least {MIN_LIMIT} UTF-16 units, got {limit}")
    texts = [text for text in (markdown, *tail) if text.strip()]
    if not texts:
        return []
    spans = markdown_to_spans(markdown, max_href=limit // 4, tail=tail)
    if not any(span.text.strip() for span in spans):
        spans = [Span("\n\n".join(texts).strip())]
    return [Part(html, plain) for html, plain in split_spans(spans, limit)]
