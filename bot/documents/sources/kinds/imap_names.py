"""How a mail message is named in the mirror, and how a mailbox is named on the wire.

A message's file is `<YYYY-MM>/<uid> <subject>.eml`: the month of its arrival (INTERNALDATE)
groups a large mailbox into folders, the UID makes the name unique and stable, and the subject
makes it readable. Nothing of the name changes while the message exists, since a message's
UID, arrival date and headers never change. Its attachments sit in a folder beside it,
`<YYYY-MM>/<uid> <subject>/<file name>`, named as the sender named them, made safe and unique
within the message; one without a name is `attachment-<n>.<extension of its type>`.
"""

from __future__ import annotations

import base64
import mimetypes
import re
from collections.abc import Sequence
from datetime import datetime, timedelta, timezone
from email import policy
from email.parser import BytesParser

MAX_SUBJECT_CHARS = 80
MAX_NAME_CHARS = 100
MAX_NAME_BYTES = 200
"""Room left in a file system's 255 bytes for a copy's ` (12)`."""
_MAX_EXTENSION_CHARS = 12
_TYPES = mimetypes.MimeTypes()
"""Python's own table of types, not the system's, so a name does not depend on the machine."""
NO_SUBJECT = "no subject"
_UNSAFE = re.compile(r'[\x00-\x1f\x7f/\\:*?"<>|]')
_SPACES = re.compile(r"\s+")
_DATE = re.compile(r"\s*(\d{1,2})-([A-Za-z]{3})-(\d{4}) (\d\d):(\d\d):(\d\d) ([+-])(\d\d)(\d\d)")
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


def message_path(uid: int, arrived: datetime, header: bytes) -> str:
    """`2026-03/412 Quarterly report.eml` for message `uid` with these header lines."""
    return f"{arrived:%Y-%m}/{uid} {safe_subject(header)}.eml"


def message_folder(uid: int, arrived: datetime, header: bytes) -> str:
    """`2026-03/412 Quarterly report`: where the attachments of message `uid` are placed."""
    return message_path(uid, arrived, header).removesuffix(".eml")


def attachment_names(named: Sequence[tuple[str | None, str]]) -> list[str]:
    """File names for a message's attachments, given as (name or None, MIME type), in order:
    safe, never hidden, and unique within the message whatever the letter case."""
    names: list[str] = []
    taken: set[str] = set()
    for number, (name, mime_type) in enumerate(named, 1):
        wanted = _safe_name(name or "")
        if not wanted:
            extension = _TYPES.guess_extension(mime_type.lower()) or ".bin"
            wanted = f"attachment-{number}{extension}"
        stem, dot, extension = wanted.rpartition(".")
        if not dot or not stem or len(extension) > _MAX_EXTENSION_CHARS:
            stem, dot, extension = wanted, "", ""
        unique, copy = wanted, 1
        while unique.casefold() in taken:
            copy += 1
            unique = f"{stem} ({copy}){dot}{extension}"
        taken.add(unique.casefold())
        names.append(unique)
    return names


def _safe_name(name: str) -> str:
    """A sender's file name fit for the folder: no separators or control characters, no
    leading dot, at most `MAX_NAME_CHARS` with its extension kept."""
    text = _SPACES.sub(" ", _UNSAFE.sub(" ", name)).strip().lstrip(". ").rstrip(". ")
    stem, dot, extension = text.rpartition(".")
    if not dot or len(extension) > _MAX_EXTENSION_CHARS:
        stem, dot, extension = text, "", ""
    while stem and (
        len(stem) + len(dot + extension) > MAX_NAME_CHARS
        or len(f"{stem}{dot}{extension}".encode()) > MAX_NAME_BYTES
    ):
        stem = stem[:-1].rstrip(". ")
    return f"{stem}{dot}{extension}" if stem else ""


def safe_subject(header: bytes) -> str:
    """The Subject of a header block, decoded from MIME encoded-words, fit for a file name."""
    try:
        subject = BytesParser(policy=policy.default).parsebytes(header, headersonly=True)[
            "subject"
        ]
        text = "" if subject is None else str(subject)
    # A header the parser chokes on must not fail the whole listing: the name falls back.
    except Exception:
        text = ""
    text = _SPACES.sub(" ", _UNSAFE.sub(" ", text)).strip()
    if len(text) > MAX_SUBJECT_CHARS:
        text = text[:MAX_SUBJECT_CHARS].rstrip()
    text = text.rstrip(". ")
    return text or NO_SUBJECT


def internal_date(text: str) -> datetime:
    """An IMAP INTERNALDATE (`07-Dec-2026 16:35:31 +0100`), in the offset the server wrote.

    Raises:
        ValueError: the text is not such a date.
    """
    match = _DATE.fullmatch(text)
    if match is None or match.group(2).lower() not in _MONTHS:
        raise ValueError(f"not an IMAP date: {text!r}")
    day, month, year, hour, minute, second, sign, off_h, off_m = match.groups()
    offset = timedelta(hours=int(off_h), minutes=int(off_m))
    return datetime(
        int(year),
        _MONTHS.index(month.lower()) + 1,
        int(day),
        int(hour),
        int(minute),
        int(second),
        tzinfo=timezone(-offset if sign == "-" else offset),
    )


def wire_mailbox(name: str) -> str:
    """A mailbox name as IMAP sends it: modified UTF-7 (RFC 3501 5.1.3), quoted."""
    out: list[str] = []
    run: list[str] = []

    def flush() -> None:
        if run:
            packed = base64.b64encode("".join(run).encode("utf-16-be")).decode("ascii")
            out.append("&" + packed.rstrip("=").replace("/", ",") + "-")
            run.clear()

    for char in name:
        if 0x20 <= ord(char) <= 0x7E:
            flush()
            out.append("&-" if char == "&" else char)
        else:
            run.append(char)
    flush()
    return quoted("".join(out))


def quoted(text: str) -> str:
    """An IMAP quoted string."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
