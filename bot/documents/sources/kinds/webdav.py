"""A WebDAV folder as a source: Nextcloud, ownCloud, SharePoint's WebDAV, any RFC 4918 server.

The listing walks the folder tree with one `PROPFIND Depth: 1` per folder (servers such as
Nextcloud refuse `Depth: infinity`), asking for Nextcloud's and ownCloud's `oc:fileid` and
`oc:checksums` beside the standard properties: the file id survives a rename or move, so the
mirror moves its copy instead of fetching it again. Every folder's reply must arrive whole and
parse, or the listing raises — a folder that failed is never read as an empty one.

webdav4's HTTP client (httpx with the WebDAV verbs) sends the requests and its multistatus
parser reads the replies; the paths are percent-encoded here, so a name holding `%`, `#` or
`?` reaches the server as itself. The client is synchronous, so each listing and fetch runs in
a worker thread.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any
from urllib.parse import quote
from xml.etree.ElementTree import ParseError

import httpx
from webdav4.http import Client as DavClient
from webdav4.multistatus import MultiStatusResponse

from bot.documents.sources.config import Credentials, WebdavConfig
from bot.documents.sources.remote import Problem, RemoteItem, Source, SourceError

log = logging.getLogger(__name__)

OC = "{http://owncloud.org/ns}"
PROPFIND_BODY = (
    '<?xml version="1.0" encoding="utf-8"?>'
    '<d:propfind xmlns:d="DAV:" xmlns:oc="http://owncloud.org/ns"><d:prop>'
    "<d:resourcetype/><d:getcontentlength/><d:getetag/><d:getlastmodified/>"
    "<oc:fileid/><oc:checksums/>"
    "</d:prop></d:propfind>"
)
_CHUNK = 1 << 20
_STATUSES: dict[int, tuple[Problem, str]] = {
    401: ("auth", "the username or password was refused"),
    403: ("refused", "access forbidden"),
    405: ("refused", "not a WebDAV folder"),
    507: ("refused", "the server is out of space"),
}


def open_webdav(config: WebdavConfig, credentials: Credentials) -> Source:
    """The WebDAV folder `config.url`, logged in as `config.username`.

    Credentials in the URL itself (`https://alice:secret@host/…`) are taken out of it and used
    as the login when the file names none, so they never travel in a message.

    Raises:
        SourceSecretError: the password's variable or file is missing.
        SourceError: the URL is not an http(s) URL.
    """
    password = credentials.read(config.name, "password", config.password_env, config.password_file)
    try:
        url = httpx.URL(config.url)
    except (httpx.InvalidURL, TypeError):
        raise SourceError("broken", f"source {config.name!r}: url is not a valid URL") from None
    if url.scheme not in ("http", "https") or not url.host:
        msg = f"source {config.name!r}: url must be an http:// or https:// URL"
        raise SourceError("broken", msg)
    username, secret = config.username, password.get_secret_value() if password else None
    if username is None and url.username:
        username, secret = url.username, secret or url.password
    auth = (username, secret or "") if username is not None else None
    base = url.copy_with(username=None, password=None, query=None, fragment=None)
    return WebdavSource(config.name, base, auth, config.timeout_s)


class WebdavSource:
    """One WebDAV folder: its tree walked per folder, its files fetched with GET."""

    def __init__(
        self,
        name: str,
        base: httpx.URL,
        auth: tuple[str, str] | None,
        timeout_s: float,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.name = name
        self._base = base
        self._host = base.host
        self._root = base.path.rstrip("/")
        self._http = DavClient(auth=auth, timeout=httpx.Timeout(timeout_s), transport=transport)

    def __repr__(self) -> str:
        return f"WebdavSource(name={self.name!r}, host={self._host!r})"

    async def listing(self) -> list[RemoteItem]:
        """Every file under the folder, or `SourceError` if any folder could not be read."""
        return await asyncio.to_thread(self._walk)

    async def fetch(self, item: RemoteItem, target: Path) -> None:
        """GET the file into `target`; a reply cut short raises rather than writing less."""
        await asyncio.to_thread(self._download, item.path, target)

    async def close(self) -> None:
        """Close the connection pool."""
        await asyncio.to_thread(self._http.close)

    def _walk(self) -> list[RemoteItem]:
        items: list[RemoteItem] = []
        folders, seen = [""], {""}
        while folders:
            folder = folders.pop()
            for path, response in self._propfind(folder):
                if path == folder:
                    continue
                if response.properties.collection:
                    if path not in seen:
                        seen.add(path)
                        folders.append(path)
                else:
                    items.append(remote_item(path, response))
        log.debug("source %s: %d files in %d folders", self.name, len(items), len(seen))
        return items

    def _propfind(self, folder: str) -> list[tuple[str, Any]]:
        """The folder's own entry and its members, as (path relative to the root, response)."""
        where = f"folder {folder!r}" if folder else "the folder"
        headers = {"Depth": "1", "Content-Type": "application/xml; charset=utf-8"}
        try:
            reply = self._http.request(
                "PROPFIND",
                self._url(folder, collection=True),
                content=PROPFIND_BODY,
                headers=headers,
            )
        except httpx.HTTPError as exc:
            raise self._failed(exc, where) from None
        if reply.status_code != 207:
            raise self._refused(reply.status_code, where, root=not folder)
        try:
            responses = MultiStatusResponse(reply.text).responses.values()
        except (ParseError, AssertionError, ValueError):
            raise self._error("broken", f"{where}: the server's listing cannot be read") from None
        found: list[tuple[str, Any]] = []
        for response in responses:
            path = self._relative(response.path_norm)
            if path is None:
                msg = f"{where}: the server listed an item outside the folder"
                raise self._error("broken", msg)
            if response.status_code is not None and response.status_code >= 400:
                status = response.status_code
                msg = f"{where}: could not read {path or 'the folder'!r} (HTTP {status})"
                raise self._error("broken", msg)
            found.append((path, response))
        if folder and not any(path == folder for path, _ in found):
            raise self._error("broken", f"{where}: the server's listing lacks the folder itself")
        return found

    def _download(self, path: str, target: Path) -> None:
        where = f"file {path!r}"
        try:
            with self._http.stream("GET", self._url(path)) as reply:
                if reply.status_code != 200:
                    raise self._refused(reply.status_code, where, root=False)
                with target.open("wb") as out:
                    for chunk in reply.iter_bytes(_CHUNK):
                        out.write(chunk)
        except httpx.HTTPError as exc:
            raise self._failed(exc, where) from None

    def _url(self, path: str, *, collection: bool = False) -> httpx.URL:
        raw = self._base.raw_path.decode("ascii").split("?")[0].rstrip("/")
        if path:
            raw += "/" + quote(path, safe="/")
        if collection or not path:
            raw += "/"
        return self._base.copy_with(raw_path=raw.encode("ascii"))

    def _relative(self, absolute: str) -> str | None:
        """`absolute` (a decoded href path) relative to the root; None when outside it."""
        absolute = absolute.rstrip("/")
        if absolute == self._root:
            return ""
        if not absolute.startswith(self._root + "/"):
            return None
        return absolute[len(self._root) + 1 :]

    def _error(self, problem: Problem, what: str) -> SourceError:
        return SourceError(problem, f"WebDAV {self._host}: {what}")

    def _refused(self, status: int, where: str, *, root: bool) -> SourceError:
        """An HTTP status other than the expected one, worded with the status."""
        problem: Problem
        if status == 404 and root:
            problem, what = "missing", "the folder is not there"
        elif status == 404:
            problem, what = "broken", f"{where} is gone since the listing began"
        elif status in _STATUSES:
            problem, what = _STATUSES[status]
            what = what if problem == "auth" else f"{where}: {what}"
        elif status < 500:
            problem, what = "refused", f"{where}: refused"
        else:
            problem, what = "broken", f"{where}: the server failed"
        return self._error(problem, f"{what} (HTTP {status})")

    def _failed(self, exc: httpx.HTTPError, where: str) -> SourceError:
        """An httpx error, worded from its type alone: its text may quote the URL."""
        if isinstance(exc, httpx.TimeoutException):
            return self._error("timeout", f"{where}: no answer in time")
        if isinstance(exc, httpx.ConnectError):
            return self._error("unreachable", "cannot connect to the server")
        if isinstance(exc, httpx.NetworkError | httpx.RemoteProtocolError):
            return self._error("unreachable", f"{where}: the server dropped the connection")
        return self._error("broken", f"{where}: the server's answer cannot be read")


def remote_item(path: str, response: Any) -> RemoteItem:
    """A file of a PROPFIND reply (a webdav4 `Response`) as the mirror sees it."""
    props = response.properties
    node = response.response_xml
    size = int(props.content_length or 0)
    modified = props.modified.timestamp() if props.modified is not None else 0.0
    file_id = (node.findtext(f".//{OC}fileid") or "").strip()
    etag = (props.etag or "").strip()
    return RemoteItem(
        item_id=file_id or path,
        path=path,
        size=size,
        version=etag or f"{size}-{modified:.0f}",
        modified=modified,
        content_hash=content_hash(node.findtext(f".//{OC}checksums/{OC}checksum") or ""),
    )


def content_hash(checksums: str) -> str | None:
    """`sha1:…` or `md5:…` from Nextcloud's `oc:checksum` (`SHA1:… MD5:… ADLER32:…`)."""
    found: dict[str, str] = {}
    for part in checksums.split():
        kind, _, value = part.partition(":")
        if value:
            found[kind.lower()] = value.lower()
    for kind in ("sha1", "md5"):
        if kind in found:
            return f"{kind}:{found[kind]}"
    return None
