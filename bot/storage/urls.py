"""What a database URL may show: the password never reaches a log or a message.

A password can sit in a URL's user part (`user:pw@host`, where libpq and asyncpg differ on an
unencoded `@` and `:`, so everything up to the last `@` that hosts follow counts), in its query
(`?password=...`, and `sslpassword` for the client key) or, in libpq's `key=value` form, in
`password=...` (asyncpg refuses that form, but an admin may still write it). Each is found as a
span of the text, so what is shown and what the logs hide come from one reading. A `passfile`
holds the password elsewhere; its path is shown.

Kept apart from the PostgreSQL driver, so the entrance can register the URL's secrets with the
logs without importing it.
"""

from __future__ import annotations

import re
from urllib.parse import unquote, unquote_plus

MASK = "***"
_SCHEME = re.compile(r"\s*[A-Za-z][A-Za-z0-9+.-]*://")
_QUERY_FIELD_VALUE = re.compile(r"[?&]([^&=]*)=((?:[^&]|&(?![^&=]*=))*)")
"""A query field; its value runs to the next `&key=`: an `&` left unencoded in a password
(which no driver reads, but an admin may write) does not end it."""
_PASSWORD_NAMES = {"password", "sslpassword"}
"""Query names holding a password, compared after decoding (asyncpg decodes `pass%77ord`)."""
_HOST = r"(?:\[[^\]]*\]|[^:,\[\]@]*)(?::\d*)?"
_HOSTS = re.compile(rf"{_HOST}(?:,{_HOST})*")
"""What stands between the user part and the path: hosts and ports, as libpq lists them."""
_QUERY_FIELD = re.compile(r"\?[^=/?&]*=")
_URL_SPLITS = re.compile(r"[/:@?&#=,;\\s]+")
_KEYWORD_PASSWORD = re.compile(
    r"(?:^|\s)(?:ssl)?password\s*=\s*('(?:[^'\\]|\\.)*'?|\S*)", re.IGNORECASE
)


def redact_url(url: str) -> str:
    """The URL (or libpq key=value string) with every password replaced by `***`."""
    shown = url
    for start, end in reversed(_password_spans(url)):
        shown = shown[:start] + MASK + shown[end:]
    return shown


def database_secrets(url: str) -> list[str]:
    """What of `url` a log must never show: the URL itself and each password as written and
    as decoded (percent- and plus-decoded, unquoted)."""
    found = {url}
    for start, end in _password_spans(url):
        raw = url[start:end]
        found |= {raw, unquote(raw), unquote_plus(raw), _unquoted(raw)}
    found.discard("")
    return [url, *sorted(found - {url})]


def scrub(text: str, url: str) -> str:
    """`text` (a driver's error message about `url`) with every password of `url` masked.

    A driver that misreads a URL quotes the piece it stumbled on, which can be part of a
    password (`user:pa/ss@host` reads `pa` as a port), so each piece of a password between
    the characters URLs split on is masked as well, down to three characters.
    """
    whole, *passwords = database_secrets(url)
    hidden = {whole, *passwords}
    for password in passwords:
        hidden |= {piece for piece in _URL_SPLITS.split(password) if len(piece) >= 3}
    for secret in sorted(hidden, key=len, reverse=True):
        text = text.replace(secret, MASK)
    return text


def _password_spans(url: str) -> list[tuple[int, int]]:
    """Where the passwords are in `url`, in order, never overlapping."""
    scheme = _SCHEME.match(url)
    if scheme is None:
        return [m.span(1) for m in _KEYWORD_PASSWORD.finditer(url) if m.group(1)]
    spans: list[tuple[int, int]] = []
    after = scheme.end()
    at = _end_of_user_part(url, after)
    query_from = after
    if at is not None:
        colon = url.find(":", after, at)
        if colon >= 0:
            spans.append((colon + 1, at))
            query_from = at
    spans += [
        m.span(2)
        for m in _QUERY_FIELD_VALUE.finditer(url, query_from)
        if m.group(2) and unquote_plus(m.group(1)).strip().lower() in _PASSWORD_NAMES
    ]
    return spans


def _end_of_user_part(url: str, after: int) -> int | None:
    """The `@` that ends the user part: the last one followed by hosts and ports (up to the
    path, the query or the end) and not inside a query, so that whatever the password holds
    unencoded (`@`, `:`, `/`, `?`) stays in it. Without such an `@` (a port written as a
    word), the last one outside a query: showing too little beats showing the password."""
    outside_query = [
        at for at in _positions(url, "@", after) if _QUERY_FIELD.search(url, after, at) is None
    ]
    for at in reversed(outside_query):
        ends = [i for i in (url.find("/", at), url.find("?", at)) if i >= 0]
        if _HOSTS.fullmatch(url, at + 1, min(ends, default=len(url))) is not None:
            return at
    # no hosts a driver reads (`db:PORT`): the last `@` still ends what may be a password
    return outside_query[-1] if outside_query else None


def _positions(text: str, char: str, start: int) -> list[int]:
    return [i for i in range(start, len(text)) if text[i] == char]


def _unquoted(raw: str) -> str:
    """A libpq keyword value without its single quotes and backslash escapes."""
    if len(raw) >= 2 and raw[0] == "'" and raw[-1] == "'":
        return re.sub(r"\\(.)", r"\1", raw[1:-1])
    return raw
