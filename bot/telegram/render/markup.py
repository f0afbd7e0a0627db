"""Styled text spans and their serialisation to Telegram HTML and plain text.

The renderer produces a flat list of spans, each carrying the full stack of tags around it.
Because every span knows its whole context, any slice of the list can be serialised to
well-formed HTML on its own: this is what lets a long answer be cut anywhere and each part
reopen the bold, the quote or the code block (with its language) it started inside.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from bot.telegram.render.text import escape, escape_attr


@dataclass(frozen=True, slots=True)
class Tag:
    """One Telegram HTML tag, with at most one attribute (`href` or `class`)."""

    name: str
    attr: tuple[str, str] | None = None

    def opening(self) -> str:
        if self.attr is None:
            return f"<{self.name}>"
        key, value = self.attr
        return f'<{self.name} {key}="{escape_attr(value)}">'

    def closing(self) -> str:
        return f"</{self.name}>"


BOLD = Tag("b")
ITALIC = Tag("i")
STRIKE = Tag("s")
CODE = Tag("code")
PRE = Tag("pre")
QUOTE = Tag("blockquote")
STYLE_NAMES = frozenset({"b", "i", "s", "u"})


def link_tag(href: str) -> Tag:
    return Tag("a", ("href", href))


def code_language_tag(language: str) -> Tag:
    return Tag("code", ("class", f"language-{language}"))


@dataclass(frozen=True, slots=True)
class Span:
    """A run of visible text inside `tags` (outermost first).

    `note` is shown only in the plain-text version, right after the span: it keeps a link's
    address readable when the message has to be sent without markup.
    """

    text: str
    tags: tuple[Tag, ...] = ()
    note: str = ""


def to_html(spans: Iterable[Span]) -> str:
    """Serialise spans, opening and closing only the tags that change between neighbours."""
    out: list[str] = []
    stack: tuple[Tag, ...] = ()
    for span in spans:
        if not span.text:
            continue
        common = _common_prefix(stack, span.tags)
        out.extend(tag.closing() for tag in reversed(stack[common:]))
        out.extend(tag.opening() for tag in span.tags[common:])
        out.append(escape(span.text))
        stack = span.tags
    out.extend(tag.closing() for tag in reversed(stack))
    return "".join(out)


def count_entities(spans: Iterable[Span]) -> int:
    """How many message entities the HTML of `spans` makes (pre with its language is one)."""
    count = 0
    stack: tuple[Tag, ...] = ()
    for span in spans:
        if not span.text:
            continue
        common = _common_prefix(stack, span.tags)
        count += sum(1 for tag in span.tags[common:] if tag.attr is None or tag.name != "code")
        stack = span.tags
    return count


def to_plain(spans: Iterable[Span]) -> str:
    return "".join(span.text + span.note for span in spans)


def merge_neighbours(spans: Sequence[Span]) -> list[Span]:
    """Join adjacent spans with the same tags so the HTML stays short; drop empty ones."""
    merged: list[Span] = []
    for span in spans:
        if not span.text:
            continue
        if merged and merged[-1].tags == span.tags and not merged[-1].note:
            merged[-1] = Span(merged[-1].text + span.text, span.tags, span.note)
        else:
            merged.append(span)
    return merged


def _common_prefix(left: tuple[Tag, ...], right: tuple[Tag, ...]) -> int:
    count = 0
    for a, b in zip(left, right, strict=False):
        if a != b:
            break
        count += 1
    return count
