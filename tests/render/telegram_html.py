"""A strict reader of the HTML subset the renderer promises, used to check rendered parts.

The subset is narrower than what Telegram accepts (`tests.fakes.telegram_html`): every part
must first be accepted by Telegram, with the same visible text, and then keep to the subset.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from urllib.parse import urlsplit

from tests.fakes.telegram_html import HtmlError, read_html

ALLOWED_ATTRS: dict[str, set[str]] = {
    "b": set(),
    "i": set(),
    "u": set(),
    "s": set(),
    "code": {"class"},
    "pre": set(),
    "a": {"href"},
    "blockquote": set(),
}
SAFE_SCHEMES = {"http", "https", "tg", "mailto"}
MAX_ENTITIES = 100  # Telegram ignores formatting after the hundredth entity of a message
_TAG = re.compile(r"<[^>]*>")
_TAG_SHAPE = re.compile(r'</?(b|i|u|s|code|pre|a|blockquote)( (href|class)="[^"<>]*")?>')
_BARE_AMPERSAND = re.compile(r"&(?!(amp|lt|gt|quot);)")


class _Checker(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.text: list[str] = []
        self.errors: list[str] = []
        self.entities = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in ALLOWED_ATTRS:
            self.errors.append(f"tag <{tag}> is not allowed")
        for key, value in attrs:
            if key not in ALLOWED_ATTRS.get(tag, set()):
                self.errors.append(f"attribute {key} on <{tag}>")
            if key == "href" and urlsplit(value or "").scheme.lower() not in SAFE_SCHEMES:
                self.errors.append(f"unsafe href {value!r}")
            if key == "class" and self.stack[-1:] != ["pre"]:
                self.errors.append("a language outside <pre>")
        if (
            self.stack
            and self.stack[-1] in ("code", "pre")
            and (tag, self.stack[-1])
            != (
                "code",
                "pre",
            )
        ):
            self.errors.append(f"<{tag}> inside <{self.stack[-1]}>")
        if (tag, self.stack[-1:]) != ("code", ["pre"]):
            self.entities += 1
        if tag == "blockquote" and "blockquote" in self.stack:
            self.errors.append("nested blockquote")
        self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> does not close {self.stack[-1:]}")
            return
        self.stack.pop()

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.errors.append(f"self-closing <{tag}/>")

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def check_html(html: str) -> str:
    """Assert `html` is well-formed Telegram HTML; return its visible text."""
    try:
        telegram = read_html(html)
    except HtmlError as exc:
        msg = f"Telegram refuses {html!r}: {exc}"
        raise AssertionError(msg) from exc
    for tag in _TAG.findall(html):
        assert _TAG_SHAPE.fullmatch(tag), f"malformed tag {tag!r} in {html!r}"
    outside = _TAG.sub("", html)
    assert "<" not in outside, html
    assert ">" not in outside, html
    assert not _BARE_AMPERSAND.search(html), html
    checker = _Checker()
    checker.feed(html)
    checker.close()
    assert not checker.errors, (checker.errors, html)
    assert not checker.stack, (f"unclosed {checker.stack}", html)
    assert checker.entities <= MAX_ENTITIES, (checker.entities, html)
    visible = "".join(checker.text)
    assert visible == telegram.text, (visible, telegram.text)
    return visible


def squash(text: str) -> str:
    """Text without any whitespace: what must survive splitting unchanged."""
    return "".join(text.split())
