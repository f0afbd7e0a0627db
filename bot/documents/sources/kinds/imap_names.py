"""How a mail message is named in the mirror, and how a mailbox is named on the wire.

A message's file is `<YYYY-MM>/<uid> <subject>.eml`: the month of its arrival (INTERNALDATE)
groups a large mailbox into folders, the UID makes the name unique and stable, and the subject
makes it readable. Nothing of the name changes while the message exists, since a message's
UID, arrival date and headers never change.
"""

from __future__ import annotations

import base64
import re
from datetime import datetime, timedelta, timezone
from email import policy
from email.parser import BytesParser

MAX_SUBJECT_CHARS = 80
NO_SUBJECT = "no subject"
_UNSAFE = re.compile(r'[\x00-\x1f\x7f/\\:*?"<>|]')
_SPACES = re.compile(r"\s+")
_DATE = re.compile(r"\s*(\d{1,2})-([A-Za-z]{3})-(\d{4}) (\d\d):(\d\d):(\d\d) ([+-])(\d\d)(\d\d)")
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


def message_path(uid: int, arrived: datetime, header: bytes) -> str:
    """`2026-03/412 Quarterly report.eml` for message `uid` with these header lines."""
    return f"{arrived:%Y-%m}/{uid} {safe_subject(header)}.eml"


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
