"""A mailbox, or one folder of it, over IMAP: every message becomes an `.eml` file.

The folder is opened read-only (EXAMINE) and read with `BODY.PEEK`, so mirroring never marks a
message as read. A message is named `<YYYY-MM>/<uid> <subject>.eml` (`imap_names`), its id is
`<UIDVALIDITY>:<UID>`, and its version is its UID and size: a message never changes, it is only
added or expunged. When the server gives the folder a new UIDVALIDITY (the folder was recreated,
or the server rebuilt its index), every UID may now name another message, so every id changes
and the mirror replaces the whole folder's files — that is how UIDVALIDITY is respected.

A listing is a UID SEARCH of the folder, then UID FETCHes of each message's UID, size, arrival
date and Subject, `BATCH` at a time; it is taken whole or raises `SourceError`: a reply cut
short, a NO or BAD, fewer UIDs than the folder holds or a UID the fetch leaves out is an error,
never a shorter list.
"""

from __future__ import annotations

import asyncio
import logging
import re
import ssl
from collections.abc import Awaitable
from pathlib import Path
from typing import Any, TypeVar

import aioimaplib
from pydantic import SecretStr

from bot.documents.sources.config import Credentials, ImapConfig, SourceSecretError
from bot.documents.sources.kinds.imap_names import (
    internal_date,
    message_path,
    quoted,
    wire_mailbox,
)
from bot.documents.sources.remote import RemoteItem, SourceError

logger = logging.getLogger(__name__)

_LISTED = "(UID RFC822.SIZE INTERNALDATE BODY.PEEK[HEADER.FIELDS (SUBJECT)])"
_FETCH_START = re.compile(rb"(\d+) FETCH \(")
_UID = re.compile(rb"\bUID (\d+)")
_SIZE = re.compile(rb"\bRFC822\.SIZE (\d+)")
_ARRIVED = re.compile(rb'\bINTERNALDATE "([^"]+)"')
_UIDVALIDITY = re.compile(rb"\[UIDVALIDITY (\d+)\]")
_EXISTS = re.compile(rb"(\d+) EXISTS")
_T = TypeVar("_T")

BATCH = 100
"""Messages listed per FETCH: aioimaplib parses one reply recursively, a frame per line, so a
whole large folder in one reply would exceed Python's recursion limit."""


def open_imap(config: ImapConfig, credentials: Credentials) -> ImapSource:
    """The mailbox folder `config` names, with its password read now.

    Raises:
        SourceSecretError: the password's variable or file is missing, or none is named.
    """
    password = credentials.read(config.name, "password", config.password_env, config.password_file)
    if password is None:
        msg = f"source {config.name!r}: password: name password_env or password_file"
        raise SourceSecretError(msg)
    return ImapSource(config, password)


class _Session:
    """One logged-in connection with the folder examined; losing it ends every wait at once.

    aioimaplib leaves a command waiting for its timeout when the connection drops, so every
    call races the connection's loss.
    """

    def __init__(self, client: Any, lost: asyncio.Future[None]) -> None:
        self.client = client
        self.lost = lost
        self.uidvalidity = 0
        self.exists: int | None = None
        """How many messages the folder held when it was opened."""


class ImapSource:
    """One IMAP folder, listed and fetched over one connection kept between the two."""

    def __init__(self, config: ImapConfig, password: SecretStr) -> None:
        self.name = config.name
        self._config = config
        self._password = password
        self._port = config.port or (993 if config.tls else 143)
        self._where = f"{config.host}:{self._port}"
        self._session: _Session | None = None
        self._lock = asyncio.Lock()

    def __repr__(self) -> str:
        return f"ImapSource({self.name!r}, {self._where}, {self._config.mailbox!r})"

    async def listing(self) -> list[RemoteItem]:
        """Every message of the folder, from a fresh connection (so a new UIDVALIDITY shows)."""
        async with self._lock:
            self._drop()
            session = await self._open()
            try:
                items = await self._listed(session)
            except SourceError:
                self._drop()
                raise
            self._session = session
            return items

    async def fetch(self, item: RemoteItem, target: Path) -> None:
        """The message's raw bytes, read with BODY.PEEK so it stays unread."""
        validity, _, uid = item.item_id.partition(":")
        async with self._lock:
            session = self._session
            if session is None or session.lost.done():
                self._drop()
                session = self._session = await self._open()
            if str(session.uidvalidity) != validity or not uid.isdigit():
                msg = f"{self._where}: message {item.path} is gone: the folder was recreated"
                raise SourceError("missing", msg)
            try:
                response = await self._call(
                    session, session.client.uid("fetch", uid, "BODY.PEEK[]"), "a fetch"
                )
            except SourceError:
                self._drop()
                raise
        body = next((bytes(line) for line in response.lines if isinstance(line, bytearray)), None)
        if response.result != "OK" or body is None:
            msg = f"{self._where}: message {item.path} is no longer in the folder"
            raise SourceError("missing", msg)
        await asyncio.to_thread(target.write_bytes, body)

    async def close(self) -> None:
        """Log out, briefly; a server that does not answer is simply left."""
        async with self._lock:
            session, self._session = self._session, None
            if session is None or session.lost.done():
                return
            try:
                await asyncio.wait_for(session.client.logout(), timeout=2)
            # Leaving is best effort: whatever the server says, the connection is closed below.
            except Exception:
                logger.debug("imap source %s: no clean logout", self.name)
            _hang_up(session.client)

    async def _open(self) -> _Session:
        """Connect, log in, examine the folder; every failure worded for the admin."""
        loop = asyncio.get_running_loop()
        lost: asyncio.Future[None] = loop.create_future()

        def on_lost(_: Exception | None) -> None:
            if not lost.done():
                lost.set_result(None)

        context = ssl.create_default_context() if self._config.tls else None
        client = aioimaplib.IMAP4(
            host=self._config.host,
            port=self._port,
            timeout=self._config.timeout_s,
            conn_lost_cb=on_lost,
            ssl_context=context,
        )
        session = _Session(client, lost)
        try:
            await self._call(session, client.wait_hello_from_server(), "the greeting")
            login = await self._call(
                session,
                client.login(quoted(self._config.username), self._password.get_secret_value()),
                "the login",
            )
            if login.result != "OK":
                msg = f"{self._where} refused the login of {self._config.username!r}"
                raise SourceError("auth", msg)
            examined = await self._call(
                session, client.examine(wire_mailbox(self._config.mailbox)), "opening the folder"
            )
            if examined.result != "OK":
                msg = f"{self._where}: there is no folder {self._config.mailbox!r} to read"
                raise SourceError("missing", msg)
        except SourceError:
            _hang_up(client)
            raise
        # aioimaplib's EXAMINE leaves its state machine before SELECTED, where UID FETCH is
        # allowed: the server has opened the folder, so say so.
        client.protocol.state = aioimaplib.SELECTED
        found = _first(_UIDVALIDITY, examined.lines)
        if found is None:
            _hang_up(client)
            msg = f"{self._where}: the folder {self._config.mailbox!r} gave no UIDVALIDITY"
            raise SourceError("broken", msg)
        session.uidvalidity = found
        session.exists = _first(_EXISTS, examined.lines)
        return session

    async def _listed(self, session: _Session) -> list[RemoteItem]:
        """The folder's UIDs, then their details a batch at a time; every UID accounted for."""
        if session.exists == 0:
            return []
        searched = await self._call(
            session, session.client.uid_search("ALL", charset=None), "the listing"
        )
        self._check(searched.result)
        # aioimaplib hands over the words after "* SEARCH"
        words = [word for line in searched.lines[:-1] for word in bytes(line).split()]
        uids = sorted({int(word) for word in words if word.isdigit()})
        if session.exists is not None and len(uids) < session.exists:
            msg = f"{self._where}: the search found {len(uids)} of {session.exists} messages"
            raise SourceError("broken", msg)
        items: list[RemoteItem] = []
        for start in range(0, len(uids), BATCH):
            batch = uids[start : start + BATCH]
            response = await self._call(
                session, session.client.uid("fetch", uid_set(batch), _LISTED), "the listing"
            )
            self._check(response.result)
            found = _items(response.lines[:-1], session.uidvalidity, self._where)
            missing = set(batch) - {int(i.item_id.partition(":")[2]) for i in found}
            if missing:
                msg = f"{self._where}: {len(missing)} messages left the folder during the listing"
                raise SourceError("broken", msg)
            items += found
        return items

    def _check(self, result: str) -> None:
        if result != "OK":
            msg = f"{self._where}: the server would not list {self._config.mailbox!r}"
            raise SourceError("refused" if result == "NO" else "broken", msg)

    async def _call(
        self,
        session: _Session,
        step: Awaitable[_T],
        doing: str,
    ) -> _T:
        """`step`'s result, or a `SourceError` if it fails, times out or the connection drops."""
        task = asyncio.ensure_future(step)
        racing: set[asyncio.Future[Any]] = {task, session.lost}
        try:
            await asyncio.wait(racing, return_when=asyncio.FIRST_COMPLETED)
        finally:
            if not task.done():
                task.cancel()
        if not task.done() or task.cancelled():
            msg = f"{self._where} closed the connection during {doing}"
            raise SourceError("unreachable", msg)
        error = task.exception()
        if error is None:
            return task.result()
        raise _worded(error, self._where, doing) from None

    def _drop(self) -> None:
        if self._session is not None:
            _hang_up(self._session.client)
            self._session = None


def _items(lines: list[Any], uidvalidity: int, where: str) -> list[RemoteItem]:
    """One item per message of a UID FETCH reply; updates without a size are skipped."""
    records: list[tuple[bytes, bytes]] = []
    text: bytes | None = None
    header = b""
    for line in lines:
        if isinstance(line, bytearray):
            header = bytes(line)
        elif _FETCH_START.match(line):
            if text is not None:
                records.append((text, header))
            text, header = bytes(line), b""
        elif text is not None:
            text += b" " + bytes(line)
    if text is not None:
        records.append((text, header))
    found: dict[int, RemoteItem] = {}
    for text, header in records:
        uid, size, arrived = _UID.search(text), _SIZE.search(text), _ARRIVED.search(text)
        if uid is None or size is None:
            continue
        if arrived is None:
            raise SourceError("broken", f"{where}: a message has no arrival date")
        try:
            date = internal_date(arrived.group(1).decode("ascii"))
        except ValueError:
            raise SourceError("broken", f"{where}: a message's date cannot be read") from None
        number = int(uid.group(1))
        found[number] = RemoteItem(
            item_id=f"{uidvalidity}:{number}",
            path=message_path(number, date, header),
            size=int(size.group(1)),
            version=f"{number}:{size.group(1).decode()}",
            modified=date.timestamp(),
        )
    return list(found.values())


def uid_set(uids: list[int]) -> str:
    """Sorted UIDs as an IMAP set, runs folded: `1:3,7,9:10`."""
    runs: list[str] = []
    first = last = uids[0]
    for uid in [*uids[1:], -1]:
        if uid == last + 1:
            last = uid
            continue
        runs.append(str(first) if first == last else f"{first}:{last}")
        first = last = uid
    return ",".join(runs)


def _first(pattern: re.Pattern[bytes], lines: list[Any]) -> int | None:
    """The number the first line matching `pattern` holds."""
    for line in lines:
        match = pattern.search(bytes(line))
        if match is not None:
            return int(match.group(1))
    return None


def _worded(error: BaseException, where: str, doing: str) -> SourceError:
    """A client's failure as one line for the admin, without the client's own text."""
    if isinstance(error, SourceError):
        return error
    if isinstance(error, TimeoutError | aioimaplib.CommandTimeout):
        return SourceError("timeout", f"{where} did not answer in time during {doing}")
    if isinstance(error, ssl.SSLError):
        return SourceError("unreachable", f"{where}: the TLS handshake failed ({error.reason})")
    if isinstance(error, OSError):
        reason = error.strerror or type(error).__name__
        return SourceError("unreachable", f"cannot connect to {where}: {reason}")
    return SourceError("broken", f"{where} answered something unreadable during {doing}")


def _hang_up(client: Any) -> None:
    transport = getattr(client.protocol, "transport", None)
    if transport is not None:
        transport.close()
