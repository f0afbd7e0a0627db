"""E-mail messages (.eml), through the standard library's parser with its modern policy.

The text is the headers people look for (subject, from, to, cc, date), the body, and the names
of attachments with their type and size: attachments are listed, never read. A message may carry
its body twice, as plain text and as HTML, and the two need not say the same: a short plain part
("the meeting moves") can stand beside an HTML part that adds the room and the time. The body is
the part whose words hold the other's, or both, plain first, when each says something the
other does not.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from email import policy
from email.message import EmailMessage, Message
from email.parser import BytesParser

from tools.extract.formats.base import Budget, FormatError, Lines, plain
from tools.extract.htmltext import html_text

_HEADERS = (("Subject", "subject"), ("From", "from"), ("To", "to"), ("Cc", "cc"), ("Date", "date"))
_WORD = re.compile(r"\w+")
_HTML_PART = "--- the HTML part ---"


def eml_text(data: bytes, budget: Budget) -> str:
    """Headers, body and the list of attachments of one message."""
    message = BytesParser(policy=policy.default).parsebytes(data)
    if not isinstance(message, EmailMessage) or not message.keys():
        raise FormatError("the eml file is damaged (no message headers)")
    lines = Lines(budget.max_chars)
    for label, name in _HEADERS:
        value = message.get(name)
        if value is not None and plain(str(value)):
            lines.add(f"{label}: {plain(str(value))}")
    bodies = [
        part
        for part in (message.get_body(("plain",)), message.get_body(("html",)))
        if part is not None
    ]
    lines.add("")
    for line in _body(bodies, budget.max_chars).split("\n"):
        lines.add(line.rstrip())
        if lines.full:
            return lines.text()
    attached = list(_attachments(message, bodies))
    if attached:
        lines.add("")
        lines.add(f"Attachments ({len(attached)}, not read):")
        for line in attached:
            lines.add(f"- {line}")
    return lines.text()


def _body(parts: Sequence[Message], max_chars: int) -> str:
    """The body's text: the plain and the HTML part, or the one whose words hold the other's."""
    texts = [_body_text(part, max_chars) for part in parts]
    if len(texts) < 2:
        return texts[0] if texts else ""
    plain_text, html = texts
    plain_words, html_words = _words(plain_text), _words(html)
    if html_words <= plain_words:
        return plain_text
    if plain_words <= html_words:
        return html
    return f"{plain_text.rstrip()}\n\n{_HTML_PART}\n{html}"


def _words(text: str) -> set[str]:
    return {word.casefold() for word in _WORD.findall(text)}


def _body_text(part: Message, max_chars: int) -> str:
    text = _decoded(part)[: max_chars + 1]
    if part.get_content_subtype() == "html":
        return html_text(text)
    return text


def _decoded(part: Message) -> str:
    """A text part's content; a charset Python does not know is read as UTF-8."""
    try:
        content = part.get_content() if isinstance(part, EmailMessage) else None
    except (LookupError, UnicodeError, ValueError):
        content = None
    if isinstance(content, str):
        return content
    payload = part.get_payload(decode=True)
    return payload.decode("utf-8", errors="replace") if isinstance(payload, bytes) else ""


def _attachments(message: EmailMessage, bodies: Sequence[Message]) -> Iterator[str]:
    """`name (type, size)` of every attached file, nested parts included."""
    for part in message.walk():
        if any(part is body for body in bodies) or part.is_multipart():
            continue
        name = part.get_filename()
        if name is None and part.get_content_disposition() != "attachment":
            continue
        payload = part.get_payload(decode=True)
        size = len(payload) if isinstance(payload, bytes) else 0
        yield f"{plain(name or 'unnamed')} ({part.get_content_type()}, {_size(size)})"


def _size(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.0f} KB"
    return f"{size / 1024 / 1024:.1f} MB"
