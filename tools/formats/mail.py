"""E-mail messages (.eml), through the standard library's parser with its modern policy.

The text is the headers people look for (subject, from, to, cc, date), the body (the plain
text part where there is one, else the HTML part as text), and the names of attachments with
their type and size: attachments are listed, never read.
"""

from __future__ import annotations

from collections.abc import Iterator
from email import policy
from email.message import EmailMessage, Message
from email.parser import BytesParser

from tools.formats.base import Budget, FormatError, Lines, plain
from tools.htmltext import html_text

_HEADERS = (("Subject", "subject"), ("From", "from"), ("To", "to"), ("Cc", "cc"), ("Date", "date"))


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
    body = message.get_body(preferencelist=("plain", "html"))
    lines.add("")
    if body is not None:
        for line in _body_text(body, budget.max_chars).split("\n"):
            lines.add(line.rstrip())
            if lines.full:
                return lines.text()
    attached = list(_attachments(message, body))
    if attached:
        lines.add("")
        lines.add(f"Attachments ({len(attached)}, not read):")
        for line in attached:
            lines.add(f"- {line}")
    return lines.text()


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


def _attachments(message: EmailMessage, body: Message | None) -> Iterator[str]:
    """`name (type, size)` of every attached file, nested parts included."""
    for part in message.walk():
        if part is body or part.is_multipart():
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
