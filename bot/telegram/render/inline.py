"""Inline Markdown (emphasis, code, links, images) to styled spans.

Telegram does not let code entities nest with other entities, so inline code inside bold
drops the bold, and code inside a link keeps the link and shows the code as ordinary text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from bot.telegram.render.markup import BOLD, CODE, ITALIC, STRIKE, Span, Tag, link_tag
from bot.telegram.render.text import escape_attr

if TYPE_CHECKING:
    from markdown_it.tree import SyntaxTreeNode

SAFE_SCHEMES = frozenset({"http", "https", "tg", "mailto"})
_STYLE_BY_NODE = {"strong": BOLD, "em": ITALIC, "s": STRIKE}


def is_safe_href(href: str) -> bool:
    """Only schemes Telegram opens safely; relative paths and `javascript:` are not links."""
    try:
        parts = urlsplit(href)
    except ValueError:
        return False
    scheme = parts.scheme.lower()
    if scheme not in SAFE_SCHEMES:
        return False
    if scheme in ("http", "https"):
        return bool(parts.hostname)
    return bool(parts.netloc or parts.path)


class InlineRenderer:
    """Turns an `inline` syntax-tree node into spans carrying inline tags only.

    `max_href` bounds the escaped length of a link address: a longer one is shown as text, so
    that a single link can never make a message part exceed the length limit.
    """

    def __init__(self, *, max_href: int) -> None:
        self._max_href = max_href

    def render(self, node: SyntaxTreeNode | None, tags: tuple[Tag, ...] = ()) -> list[Span]:
        out: list[Span] = []
        if node is not None:
            self._walk(node.children, tags, out)
        return out

    def _walk(
        self, nodes: Sequence[SyntaxTreeNode], tags: tuple[Tag, ...], out: list[Span]
    ) -> None:
        for node in nodes:
            self._node(node, tags, out)

    def _node(self, node: SyntaxTreeNode, tags: tuple[Tag, ...], out: list[Span]) -> None:
        kind = node.type
        if kind in ("softbreak", "hardbreak"):
            out.append(Span("\n", tags))
        elif kind in _STYLE_BY_NODE:
            style = _STYLE_BY_NODE[kind]
            self._walk(node.children, tags if style in tags else (*tags, style), out)
        elif kind == "code_inline":
            out.append(_code_span(node.content, tags))
        elif kind == "link":
            href = str(node.attrs.get("href", ""))
            inner: list[Span] = []
            linked = (*tags, link_tag(href)) if self._linkable(href) else tags
            self._walk(node.children, linked, inner)
            self._link(href, inner, tags, out)
        elif kind == "image":
            src = str(node.attrs.get("src", ""))
            alt = "".join(span.text for span in self.render(node))
            linked = (*tags, link_tag(src)) if self._linkable(src) else tags
            self._link(src, [Span(alt, linked)] if alt.strip() else [], tags, out)
        elif node.children:
            self._walk(node.children, tags, out)
        else:
            out.append(Span(node.content, tags))

    def _linkable(self, href: str) -> bool:
        return is_safe_href(href) and len(escape_attr(href)) <= self._max_href

    def _link(self, href: str, inner: list[Span], tags: tuple[Tag, ...], out: list[Span]) -> None:
        from markdown_it.common.normalize_url import normalizeLinkText  # noqa: PLC0415

        shown = normalizeLinkText(href)
        linked = self._linkable(href)
        text = "".join(span.text for span in inner)
        if not text.strip():
            if shown:
                out.append(Span(shown, (*tags, link_tag(href)) if linked else tags))
            return
        out.extend(inner)
        if not shown or _names_address(text, shown):
            return
        if linked:
            out[-1] = replace(out[-1], note=f" ({shown})")
        else:
            out.append(Span(f" ({shown})", tags))


def _code_span(content: str, tags: tuple[Tag, ...]) -> Span:
    if any(tag.name == "a" for tag in tags):
        return Span(content, tags)
    return Span(content, (CODE,))


def _names_address(text: str, address: str) -> bool:
    """Whether the link text already shows the address (autolinks, bare e-mail links)."""
    text = text.strip().rstrip("/")
    bare = address.split(":", 1)[-1].lstrip("/").rstrip("/")
    return text in (address.rstrip("/"), bare)
