"""Telegram's reading of `parse_mode=HTML`: the text a user sees and its formatting entities.

The fake Bot API refuses what Telegram's parser refuses, with the description Telegram gives
after "can't parse entities: ". Only tags are judged: unknown, unclosed, misnested or malformed
ones. A `&` that starts no known character reference is plain text to Telegram, as is `>`.
Offsets and lengths of entities are in UTF-16 code units, as in the Bot API.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import urlsplit

ENTITY_TYPES = {
    "a": "text_link",
    "b": "bold",
    "strong": "bold",
    "i": "italic",
    "em": "italic",
    "u": "underline",
    "ins": "underline",
    "s": "strikethrough",
    "strike": "strikethrough",
    "del": "strikethrough",
    "tg-spoiler": "spoiler",
    "span": "spoiler",
    "tg-emoji": "custom_emoji",
    "code": "code",
    "pre": "pre",
    "blockquote": "blockquote",
}
LINK_SCHEMES = {"http", "https", "ftp", "tg", "ton", "mailto"}
_SPECIAL = re.compile(r"[<&]")
_CHARACTER_REFERENCE = re.compile(r"&(?:(lt|gt|amp|quot)|#([0-9]{1,7})|#[xX]([0-9a-fA-F]{1,6}));")
_NAMED = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}
_TOKEN = re.compile(r"[A-Za-z0-9.-]+")
_ATTRIBUTE_NAME_END = re.compile(r"[\s=>/\"']")
_TAG_NAME_END = re.compile(r"[\s>]")


class HtmlError(ValueError):
    """Telegram's description of why it cannot parse the text (after "can't parse entities: ")."""


@dataclass(frozen=True, slots=True)
class Entity:
    """One formatting entity of a message."""

    type: str
    offset: int
    length: int
    url: str | None = None
    language: str | None = None
    custom_emoji_id: str | None = None

    def as_json(self) -> dict[str, Any]:
        """The `MessageEntity` object as the Bot API sends it."""
        body: dict[str, Any] = {"type": self.type, "offset": self.offset, "length": self.length}
        for name in ("url", "language", "custom_emoji_id"):
            value = getattr(self, name)
            if value is not None:
                body[name] = value
        return body


@dataclass(frozen=True, slots=True)
class Formatted:
    """Text as Telegram stores it: the characters a user sees, and the entities over them."""

    text: str
    entities: tuple[Entity, ...] = ()


@dataclass(slots=True)
class _Open:
    """A start tag still waiting for its end tag."""

    tag: str
    offset: int  # where its text begins, in UTF-16 units of the visible text
    start: int  # index of its `<` in the HTML
    attributes: dict[str, str] = field(default_factory=dict)


def utf16_length(text: str) -> int:
    """Length of `text` in UTF-16 code units, the unit of Telegram's limits and offsets."""
    return len(text.encode("utf-16-le")) // 2


def _byte_offset(html: str, index: int) -> int:
    return len(html[:index].encode("utf-8"))


def _decode_reference(match: re.Match[str]) -> str | None:
    named, decimal, hexadecimal = match.groups()
    if named:
        return _NAMED[named]
    code = int(decimal) if decimal else int(hexadecimal, 16)
    if code == 0 or code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
        return None
    return chr(code)


def _unescape(value: str) -> str:
    def one(match: re.Match[str]) -> str:
        return _decode_reference(match) or match.group(0)

    return _CHARACTER_REFERENCE.sub(one, value)


class _Reader:
    """One pass over the HTML, the way Telegram's parser walks it."""

    def __init__(self, html: str) -> None:
        self.html = html
        self.pieces: list[str] = []
        self.offset = 0  # UTF-16 length of the text so far
        self.open: list[_Open] = []
        self.entities: list[Entity] = []

    def fail(self, message: str, index: int | None = None) -> HtmlError:
        if index is not None:
            message += f" at byte offset {_byte_offset(self.html, index)}"
        return HtmlError(message)

    def add_text(self, text: str) -> None:
        if text:
            self.pieces.append(text)
            self.offset += utf16_length(text)

    def read(self) -> Formatted:
        html, i = self.html, 0
        while True:
            special = _SPECIAL.search(html, i)
            if special is None:
                self.add_text(html[i:])
                break
            start = special.start()
            self.add_text(html[i:start])
            if html[start] == "&":
                i = self.reference(start)
            elif html.startswith("</", start):
                i = self.end_tag(start)
            else:
                i = self.start_tag(start)
        if self.open:
            tag = self.open[-1].tag
            raise self.fail(f'Can\'t find end tag corresponding to start tag "{tag}"')
        # A language belongs to a <pre><code class="language-…"> block, never to inline code.
        entities = [replace(e, language=None) if e.type == "code" else e for e in self.entities]
        entities.sort(key=lambda e: (e.offset, -e.length))
        return Formatted("".join(self.pieces), tuple(entities))

    def reference(self, start: int) -> int:
        match = _CHARACTER_REFERENCE.match(self.html, start)
        decoded = _decode_reference(match) if match else None
        if match is None or decoded is None:
            self.add_text("&")
            return start + 1
        self.add_text(decoded)
        return match.end()

    def start_tag(self, start: int) -> int:
        html = self.html
        name_end = _TAG_NAME_END.search(html, start + 1)
        if name_end is None:
            raise self.fail("Unclosed start tag", start)
        tag = html[start + 1 : name_end.start()].lower()
        if tag not in ENTITY_TYPES:
            raise self.fail(f'Unsupported start tag "{tag}"', start)
        attributes, after = self.attributes(tag, start, name_end.start())
        if tag == "span" and attributes.get("class") != "tg-spoiler":
            raise self.fail('Tag "span" must have class "tg-spoiler"', start)
        self.open.append(_Open(tag, self.offset, start, attributes))
        return after

    def attributes(self, tag: str, start: int, i: int) -> tuple[dict[str, str], int]:
        """The attributes of the start tag at `start`, and the index after its `>`."""
        html, size = self.html, len(self.html)
        found: dict[str, str] = {}
        while True:
            while i < size and html[i].isspace():
                i += 1
            if i >= size:
                raise self.fail(f'Unclosed start tag "{tag}"', start)
            if html[i] == ">":
                return found, i + 1
            end = _ATTRIBUTE_NAME_END.search(html, i)
            name_end = end.start() if end else size
            name = html[i:name_end].lower()
            if not name:
                raise self.fail(f'Empty attribute name in the tag "{tag}"', start)
            i = name_end
            while i < size and html[i].isspace():
                i += 1
            if i >= size:
                raise self.fail(f'Unclosed start tag "{tag}"', start)
            if html[i] != "=":
                found[name] = ""
                continue
            i += 1
            while i < size and html[i].isspace():
                i += 1
            if i >= size:
                raise self.fail(f'Unclosed start tag "{tag}"', start)
            if html[i] in "\"'":
                close = html.find(html[i], i + 1)
                if close < 0:
                    raise self.fail("Unclosed start tag", start)
                found[name] = _unescape(html[i + 1 : close])
                i = close + 1
                continue
            token = _TOKEN.match(html, i)
            i = token.end() if token else i
            if i >= size or not (html[i].isspace() or html[i] == ">"):
                raise self.fail("Unexpected end of name token", token.start() if token else i)
            found[name] = token.group(0).lower() if token else ""

    def end_tag(self, start: int) -> int:
        html, size = self.html, len(self.html)
        if not self.open:
            raise self.fail("Unexpected end tag", start)
        end = _TAG_NAME_END.search(html, start + 2)
        i = end.start() if end else size
        name = html[start + 2 : i].lower()
        while i < size and html[i].isspace():
            i += 1
        if i >= size or html[i] != ">":
            raise self.fail("Unclosed end tag", start)
        opened = self.open[-1]
        if name and name != opened.tag:
            raise self.fail(
                f"Unmatched end tag at byte offset {_byte_offset(html, start)}, "
                f'expected "</{opened.tag}>", found "</{name}>"'
            )
        self.open.pop()
        self.close(opened, html[opened.start : start])
        return i + 1

    def close(self, opened: _Open, source: str) -> None:
        """Turn a closed tag into its entity, if it covers any text."""
        offset, length = opened.offset, self.offset - opened.offset
        if length <= 0:
            return
        tag, attributes = opened.tag, opened.attributes
        if tag == "pre" and self.entities:
            inner = self.entities[-1]
            if inner.type == "code" and (inner.offset, inner.length) == (offset, length):
                self.entities[-1] = replace(inner, type="pre")  # with the code's language
                return
        if tag == "a":
            url = _link(attributes.get("href") or _unescape(source[source.index(">") + 1 :]))
            if url is not None:
                self.entities.append(Entity("text_link", offset, length, url=url))
        elif tag == "tg-emoji":
            emoji_id = attributes.get("emoji-id", "")
            if not emoji_id.isdigit():
                raise self.fail("Invalid custom emoji identifier specified")
            self.entities.append(Entity("custom_emoji", offset, length, custom_emoji_id=emoji_id))
        elif tag == "code":
            css = attributes.get("class", "")
            language = css.removeprefix("language-") if css.startswith("language-") else None
            self.entities.append(Entity("code", offset, length, language=language))
        elif tag == "blockquote" and "expandable" in attributes:
            self.entities.append(Entity("expandable_blockquote", offset, length))
        else:
            self.entities.append(Entity(ENTITY_TYPES[tag], offset, length))


def _link(url: str) -> str | None:
    """The URL Telegram keeps for a text link, or None when it drops the link."""
    url = url.strip()
    if not url:
        return None
    scheme = urlsplit(url).scheme.lower()
    if not scheme:
        return f"http://{url}"
    return url if scheme in LINK_SCHEMES else None


def read_html(html: str) -> Formatted:
    """The text and entities Telegram reads from `html`; raises `HtmlError` as Telegram would."""
    return _Reader(html).read()
