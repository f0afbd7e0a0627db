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

A message's attachments are items of their own beside it (`imap_structure` finds them in the
BODYSTRUCTURE the listing fetches with the rest; `imap_names` names them), with the id
`<UIDVALIDITY>:<UID>/<part>` and the message's version. Where the server decodes parts itself
(RFC 3516 BINARY, as dovecot does), an attachment's size is its decoded size (`BINARY.SIZE`,
asked once per batch for each set of part numbers) and its fetch is `BINARY.PEEK[<part>]`, so
the bytes written are the size listed. Elsewhere, or for an encoding the server cannot decode,
the size is unknown (-1, which the mirror does not compare; a message never changes, so there is
nothing to catch) and the fetch takes the part's MIME header and body and decodes them here.
A BODYSTRUCTURE that cannot be read lists the message alone, with one warning per message: the
message itself is still whole, and failing the listing would stop every deletion in the folder.
"""

from __future__ import annotations

import asyncio
import logging
import re
import ssl
from collections.abc import Awaitable
from dataclasses import dataclass
from datetime import datetime
from email import policy
from email.parser import BytesParser
from pathlib import Path
from typing import Any, TypeVar

import aioimaplib
from pydantic import SecretStr

from bot.documents.sources.config import Credentials, ImapConfig, SourceSecretError
from bot.documents.sources.kinds.imap_names import (
    attachment_names,
    internal_date,
    message_folder,
    message_path,
    quoted,
    wire_mailbox,
)
from bot.documents.sources.kinds.imap_structure import Attachment, StructureError, attachments
from bot.documents.sources.kinds.imap_wire import Value, WireError, fetched
from bot.documents.sources.remote import RemoteItem, SourceError

logger = logging.getLogger(__name__)

_LISTED = "(UID RFC822.SIZE INTERNALDATE BODYSTRUCTURE BODY.PEEK[HEADER.FIELDS (SUBJECT)])"
_SERVER_DECODES = frozenset({"base64", "quoted-printable", "7bit", "8bit", "binary"})
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
        self.binary = False
        """Whether the server decodes parts itself (RFC 3516 BINARY)."""


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
        self._warned: set[str] = set()
        """Messages whose unreadable BODYSTRUCTURE was logged already."""

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
        """The message's raw bytes, or one attachment's decoded bytes, read with a PEEK so the
        message stays unread."""
        validity, _, number = item.item_id.partition(":")
        uid, _, part = number.partition("/")
        query = _query(part, decoded_by_server=item.size >= 0)
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
                    session, session.client.uid("fetch", uid, query), "a fetch"
                )
            except SourceError:
                self._drop()
                raise
        if response.result != "OK":
            msg = f"{self._where}: message {item.path} is no longer in the folder"
            if part and response.result == "NO":
                msg = f"{self._where}: the server cannot decode attachment {item.path}"
            raise SourceError("missing" if not part else "refused", msg)
        try:
            body = _content(fetched(response.lines[:-1]), part, decoded_by_server=item.size >= 0)
        except WireError:
            msg = f"{self._where} answered something unreadable for {item.path}"
            raise SourceError("broken", msg) from None
        if body is None:
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
            if not any(bytes(line).startswith(b"CAPABILITY ") for line in login.lines):
                # a server that does not say what it can do after the login is asked
                await self._call(
                    session, client.protocol.capability(), "asking what the server can do"
                )
            session.binary = client.has_capability("BINARY")
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
            found = self._messages(response.lines[:-1], session.uidvalidity)
            missing = set(batch) - {message.uid for message in found}
            if missing:
                msg = f"{self._where}: {len(missing)} messages left the folder during the listing"
                raise SourceError("broken", msg)
            sizes = await self._decoded_sizes(session, found) if session.binary else {}
            for message in found:
                items += message.items(session.uidvalidity, sizes.get(message.uid, {}))
        return items

    def _messages(self, lines: list[Any], uidvalidity: int) -> list[_Listed]:
        """The messages of one FETCH reply; updates without a size are skipped."""
        try:
            records = fetched(lines)
        except WireError:
            raise SourceError("broken", f"{self._where} answered an unreadable listing") from None
        found: dict[int, _Listed] = {}
        for record in records:
            uid, size = _number(record.get("UID")), _number(record.get("RFC822.SIZE"))
            if uid is None or size is None:
                continue
            arrived = record.get("INTERNALDATE")
            if not isinstance(arrived, bytes | str):
                raise SourceError("broken", f"{self._where}: a message has no arrival date")
            try:
                date = internal_date(_ascii(arrived))
            except ValueError:
                msg = f"{self._where}: a message's date cannot be read"
                raise SourceError("broken", msg) from None
            header = next(
                (v for k, v in record.items() if k.startswith("BODY[HEADER.FIELDS")), None
            )
            header = header if isinstance(header, bytes) else b""
            try:
                attached = attachments(record.get("BODYSTRUCTURE"))
            except StructureError as exc:
                attached = []
                if f"{uidvalidity}:{uid}" not in self._warned:
                    self._warned.add(f"{uidvalidity}:{uid}")
                    logger.warning(
                        "imap source %s: message %d: its attachments are not listed: %s",
                        self.name,
                        uid,
                        exc,
                    )
            found[uid] = _Listed(uid, size, date, header, attached)
        return list(found.values())

    async def _decoded_sizes(
        self, session: _Session, messages: list[_Listed]
    ) -> dict[int, dict[str, int]]:
        """Each attachment's decoded size by UID and part, asked of the server once for each
        set of part numbers in the batch; a set it will not decode stays unknown."""
        wanted: dict[tuple[str, ...], list[int]] = {}
        for message in messages:
            parts = tuple(a.part for a in message.attached if a.encoding in _SERVER_DECODES)
            if parts:
                wanted.setdefault(parts, []).append(message.uid)
        sizes: dict[int, dict[str, int]] = {}
        for parts, uids in wanted.items():
            query = "(" + " ".join(f"BINARY.SIZE[{part}]" for part in parts) + ")"
            response = await self._call(
                session, session.client.uid("fetch", uid_set(sorted(uids)), query), "the listing"
            )
            if response.result == "NO":
                logger.info(
                    "imap source %s: the server does not decode parts %s of %d messages",
                    self.name,
                    ",".join(parts),
                    len(uids),
                )
                continue
            self._check(response.result)
            try:
                records = fetched(response.lines[:-1])
            except WireError:
                msg = f"{self._where} answered an unreadable listing"
                raise SourceError("broken", msg) from None
            for record in records:
                uid = _number(record.get("UID"))
                if uid is None:
                    continue
                for part in parts:
                    size = _number(record.get(f"BINARY.SIZE[{part}]"))
                    if size is not None:
                        sizes.setdefault(uid, {})[part] = size
        return sizes

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


@dataclass(frozen=True, slots=True)
class _Listed:
    """One message as the listing read it."""

    uid: int
    size: int
    arrived: datetime
    header: bytes
    attached: list[Attachment]

    def items(self, uidvalidity: int, sizes: dict[str, int]) -> list[RemoteItem]:
        """The message's item, then one per attachment (of a size in `sizes`, or unknown)."""
        version = f"{self.uid}:{self.size}"
        modified = self.arrived.timestamp()
        found = [
            RemoteItem(
                item_id=f"{uidvalidity}:{self.uid}",
                path=message_path(self.uid, self.arrived, self.header),
                size=self.size,
                version=version,
                modified=modified,
            )
        ]
        folder = message_folder(self.uid, self.arrived, self.header)
        names = attachment_names([(a.name, a.mime_type) for a in self.attached])
        for attachment, name in zip(self.attached, names, strict=True):
            found.append(
                RemoteItem(
                    item_id=f"{uidvalidity}:{self.uid}/{attachment.part}",
                    path=f"{folder}/{name}",
                    size=sizes.get(attachment.part, -1),
                    version=version,
                    modified=modified,
                )
            )
        return found


def _query(part: str, *, decoded_by_server: bool) -> str:
    """What a fetch asks for: the whole message, an attachment decoded by the server, or an
    attachment's MIME header and body to decode here."""
    if not part:
        return "BODY.PEEK[]"
    if decoded_by_server:
        return f"BINARY.PEEK[{part}]"
    return f"(BODY.PEEK[{part}.MIME] BODY.PEEK[{part}])"


def _content(
    records: list[dict[str, Value]], part: str, *, decoded_by_server: bool
) -> bytes | None:
    """The bytes to write from a fetch's reply (see `_query`); None when the reply has none."""
    keys: tuple[str, ...]
    if not part:
        keys = ("BODY[]",)
    elif decoded_by_server:
        keys = (f"BINARY[{part}]",)
    else:
        keys = (f"BODY[{part}.MIME]", f"BODY[{part}]")
    for record in records:
        values = [record.get(key) for key in keys]
        if all(isinstance(value, bytes) for value in values):
            found = [value for value in values if isinstance(value, bytes)]
            return found[0] if len(found) == 1 else decoded_part(*found)
    return None


def decoded_part(header: bytes, body: bytes) -> bytes:
    """A MIME part's content with its transfer encoding undone; a forwarded message (which
    has no encoding of its own to undo) as it is."""
    part = BytesParser(policy=policy.compat32).parsebytes(header + body)
    if part.is_multipart():
        return body
    payload = part.get_payload(decode=True)
    return payload if isinstance(payload, bytes) else body


def _number(value: Value) -> int | None:
    return int(value) if isinstance(value, str) and value.isdigit() else None


def _ascii(value: bytes | str) -> str:
    return value if isinstance(value, str) else value.decode("ascii", errors="replace")


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
