"""What a database URL may show: the password never reaches a log or a message.

Kept apart from the PostgreSQL driver, so the entrance can register the URL's secrets with the
logs without importing it.
"""

from __future__ import annotations

import re
from urllib.parse import unquote, urlsplit


def redact_url(url: str) -> str:
    """The URL with its password replaced by `***`, fit for logs and messages."""
    return re.sub(r"(://[^:/@\s]*:)[^@\s]*@", r"\1***@", url)


def database_secrets(url: str) -> list[str]:
    """What of `url` a log must never show: the URL itself and its password."""
    password = urlsplit(url).password
    return [url, *sorted({password, unquote(password)})] if password else [url]
