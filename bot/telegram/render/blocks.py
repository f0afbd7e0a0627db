"""Markdown to styled spans: parses with markdown-it and walks the block syntax tree.

Raw HTML is parsed as text (the `html` option is off), so anything that looks like a tag in
the model's answer reaches the user escaped, never as markup. markdown-it is imported with the
first answer rendered, not at start-up.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from bot.telegram.render.emitter import Emitter
from bot.telegram.render.inline import InlineRenderer
from bot.telegram.render.markup import BOLD, PRE, QUOTE, Span, code_language_tag
from bot.telegram.render.tables import render_table

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.tree import SyntaxTreeNode

HORIZONTAL_RULE = "──────────"
BULLETS = ("•", "◦", "▪")
MAX_GRID_WIDTH = 38
_TASK_BOXES = {"[ ] ": "☐", "[x] ": "☑", "[X] ": "☑"}
_SAFE_LANGUAGE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_+#.-]{0,31}")


@functools.cache
def make_parser() -> MarkdownIt:
    """The parser, built once: building one costs more than parsing a typical answer, and
    parsing leaves the parser as it was."""
    from markdown_it import MarkdownIt  # noqa: PLC0415 - loaded with the first answer

    return MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])


def markdown_to_spans(markdown: str, *, max_href: int, tail: Sequence[str] = ()) -> list[Span]:
    """Render Markdown to spans; `max_href` caps the length of a link address kept as a link.

    Each `tail` text is parsed on its own and follows as its own blocks, so a construct the
    body leaves open (a code fence, a list) ends where the body ends instead of taking in
    the tail.
    """
    from markdown_it.tree import SyntaxTreeNode  # noqa: PLC0415 - loaded with the first answer

    parser = make_parser()
    renderer = _BlockRenderer(InlineRenderer(max_href=max_href))
    for text in (markdown, *tail):
        renderer.blocks(SyntaxTreeNode(parser.parse(text)).children)
    return renderer.out.spans()


def safe_language(info: str) -> str | None:
    """The first word of a fence's info string, if it is a plausible language name."""
    words = info.split()
    if words and _SAFE_LANGUAGE.fullmatch(words[0]):
        return words[0]
    return None


class _BlockRenderer:
    def __init__(self, inline: InlineRenderer) -> None:
        self.out = Emitter()
        self._inline = inline
        self._item_depth = 0
        self._list_depth = 0

    def blocks(self, nodes: list[SyntaxTreeNode]) -> None:
        for node in nodes:
            self._block(node)

    def _end_block(self) -> None:
        self.out.request_break(1 if self._item_depth else 2)

    def _block(self, node: SyntaxTreeNode) -> None:
        kind = node.type
        if kind in ("paragraph", "heading"):
            tags = (BOLD,) if kind == "heading" else ()
            self.out.write(self._inline.render(_inline_child(node), tags))
        elif kind in ("fence", "code_block"):
            self._code(node.content, safe_language(node.info) if kind == "fence" else None)
        elif kind == "hr":
            self.out.write([Span(HORIZONTAL_RULE)])
        elif kind in ("bullet_list", "ordered_list"):
            self._list(node)
        elif kind == "blockquote":
            self._quote(node)
        elif kind == "table":
            render_table(node, self._inline, self.out, max_grid_width=MAX_GRID_WIDTH)
        elif node.children:
            self.blocks(node.children)
            return
        else:
            self.out.write([Span(node.content.rstrip("\n"))])
        self._end_block()

    def _code(self, content: str, language: str | None) -> None:
        self.out.push_tag(PRE)
        if language:
            self.out.push_tag(code_language_tag(language))
        self.out.write([Span(content.removesuffix("\n"))])
        if language:
            self.out.pop_tag()
        self.out.pop_tag()

    def _list(self, node: SyntaxTreeNode) -> None:
        ordered = node.type == "ordered_list"
        number = _start_number(node) if ordered else 0
        bullet = BULLETS[self._list_depth % len(BULLETS)]
        self._list_depth += 1
        self._item_depth += 1
        for item in node.children:
            box = None if ordered else _take_task_box(item)
            self.out.push_prefix(f"{number}. " if ordered else f"{box or bullet} ")
            self.blocks(item.children)
            self.out.pop_prefix()
            self.out.request_break(1)
            number += 1
        self._item_depth -= 1
        self._list_depth -= 1

    def _quote(self, node: SyntaxTreeNode) -> None:
        """Telegram cannot nest quotes: an inner quote gets a bar prefix inside the outer one."""
        nested = QUOTE in self.out.block_tags
        if nested:
            self.out.push_prefix(indent="│ ")
        else:
            self.out.push_tag(QUOTE)
        self.blocks(node.children)
        if nested:
            self.out.pop_prefix()
        else:
            self.out.pop_tag()


def _inline_child(node: SyntaxTreeNode) -> SyntaxTreeNode | None:
    return next((child for child in node.children if child.type == "inline"), None)


def _take_task_box(item: SyntaxTreeNode) -> str | None:
    """A GitHub-style task item (`- [ ] x`, `- [x] x`): remove the box text, return its symbol."""
    first = item.children[0] if item.children else None
    inline = _inline_child(first) if first is not None and first.type == "paragraph" else None
    text = inline.children[0] if inline is not None and inline.children else None
    if text is None or text.type != "text" or text.token is None:
        return None
    box = _TASK_BOXES.get(text.token.content[:4])
    if box is not None:
        text.token.content = text.token.content[4:]
    return box


def _start_number(node: SyntaxTreeNode) -> int:
    try:
        return int(node.attrs.get("start", 1))
    except (TypeError, ValueError):
        return 1
