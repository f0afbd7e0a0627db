"""A message's attachments, read from its BODYSTRUCTURE (RFC 3501 section 7.4.2).

An attachment is what the bot's `.eml` reader lists as one: a part that is not a container
and has a file name (`Content-Disposition` `filename`, or `Content-Type` `name`) or is marked
`attachment`. So the text and HTML bodies and inline images without a name are not
attachments. A forwarded message marked as an attachment is one (an `.eml`); one shown inline
is opened and its own attachments are taken. Parts are numbered as IMAP numbers them (`2`,
`1.3`, and `1` for a message that is not multipart), which is what `BODY[<part>]` fetches.
"""

from __future__ import annotations

from dataclasses import dataclass
from email.header import decode_header, make_header
from email.utils import collapse_rfc2231_value, decode_params, quote, unquote

from bot.documents.sources.kinds.imap_wire import Value


class StructureError(ValueError):
    """The BODYSTRUCTURE is not shaped as RFC 3501 says."""


@dataclass(frozen=True, slots=True)
class Attachment:
    """One attached part: where it is, what the sender named it, how it is encoded."""

    part: str
    name: str | None
    mime_type: str
    encoding: str
    size: int
    """Its size as encoded in the message (base64 is a third larger than the file)."""


def attachments(structure: Value) -> list[Attachment]:
    """The attachments of a message with this BODYSTRUCTURE, in order.

    Raises:
        StructureError: the structure cannot be read.
    """
    found: list[Attachment] = []
    _enclosed(structure, "", found)
    return found


def _enclosed(body: Value, number: str, found: list[Attachment]) -> None:
    """The body of a message (the whole one when `number` is empty, else a forwarded one)."""
    if _is_multipart(body):
        _walk(body, number, found)
    else:
        _walk(body, f"{number}.1" if number else "1", found)


def _is_multipart(body: Value) -> bool:
    return isinstance(body, list) and bool(body) and isinstance(body[0], list)


def _walk(body: Value, number: str, found: list[Attachment]) -> None:
    if not isinstance(body, list) or not body:
        raise StructureError("a part is not a list")
    if _is_multipart(body):
        children: list[Value] = []
        for child in body:  # the parts, then the subtype and the extension data
            if not isinstance(child, list):
                break
            children.append(child)
        for index, child in enumerate(children, 1):
            _walk(child, f"{number}.{index}" if number else str(index), found)
        return
    if len(body) < 7:
        raise StructureError("a part has fewer than seven fields")
    kind, subtype, params, _id, _description, encoding, size = body[:7]
    mime_type = f"{_text(kind)}/{_text(subtype)}".lower()
    if not isinstance(size, str) or not size.isdigit():
        raise StructureError("a part's size is not a number")
    rest = body[7:]
    if mime_type == "message/rfc822":
        extension = rest[3:]
    elif mime_type.startswith("text/"):
        extension = rest[1:]
    else:
        extension = rest
    disposition, disposition_params = _disposition(extension[1] if len(extension) > 1 else None)
    name = _param(disposition_params, "filename") or _param(_pairs(params), "name")
    if name is None and disposition != "attachment":
        if mime_type == "message/rfc822" and len(rest) > 1:
            _enclosed(rest[1], number, found)
        return
    found.append(Attachment(number, name, mime_type, _text(encoding).lower() or "7bit", int(size)))


def _disposition(value: Value) -> tuple[str | None, list[tuple[str, str]]]:
    if not isinstance(value, list) or not value:
        return None, []
    return _text(value[0]).lower(), _pairs(value[1] if len(value) > 1 else None)


def _pairs(value: Value) -> list[tuple[str, str]]:
    """A parameter list `("name" "value" ...)` as pairs; NIL is none."""
    if value is None:
        return []
    if not isinstance(value, list) or len(value) % 2:
        raise StructureError("a parameter list is not name and value pairs")
    return [(_text(k).lower(), _text(v)) for k, v in zip(value[::2], value[1::2], strict=True)]


def _param(pairs: list[tuple[str, str]], wanted: str) -> str | None:
    """A parameter's value: RFC 2231 continuations and charsets joined and decoded, then any
    MIME encoded-words (which mailers put in names though the RFCs do not allow it)."""
    if not any(key.partition("*")[0] == wanted for key, _ in pairs):
        return None
    quoted = [(key, '"' + quote(value) + '"') for key, value in pairs]
    try:
        decoded = decode_params([("", ""), *quoted])[1:]
    # `filename*` beside `filename*0*` cannot be ordered: the parameter is taken as unnamed.
    except TypeError:
        return None
    for key, value in decoded:
        if key != wanted:
            continue
        if isinstance(value, tuple):
            charset, language, text = value
            text = collapse_rfc2231_value((charset, language, unquote(text)))
        else:
            text = unquote(value)
        return _words(text).strip() or None
    return None


def _words(text: str) -> str:
    if "=?" not in text:
        return text
    try:
        return str(make_header(decode_header(text)))
    # A malformed encoded-word is left as the sender wrote it.
    except (LookupError, UnicodeError, ValueError):
        return text


def _text(value: Value) -> str:
    """A string or an atom as text (8-bit names read as UTF-8); NIL is empty."""
    if value is None:
        return ""
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    if isinstance(value, str):
        return value
    raise StructureError("a list where a string belongs")
