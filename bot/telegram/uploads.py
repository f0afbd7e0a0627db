"""Saving a document an admin sends into the sandbox, safely and without overwriting.

The bytes stream from Telegram (or from a local Bot API server's disk, both through
`bot.telegram.downloads`) into a hidden `.upload-<random>.part` file in the target folder
through aiofiles, so the event loop never waits on the disk, and the download stops as soon as
it passes the size limit. The file then gets a final, sanitised, unused name in one atomic
step. A failure at any point leaves no partial file behind.

The folder a caption names goes through the jail narrowed to the admin's scope, the one the
read tools use: in a scoped chat a caption that leads out of the scope, by its words (`a/../b`)
or by a link, is refused, and a scope without folders has nowhere to upload to. A file of a
kind the bot cannot read is refused before it is fetched (or, when only its bytes tell, before
it gets a name), so nothing of it is kept.

`save_text` lands a text the bot wrote (an expert's answer) the same way: the same jail and
scope, the same safe unused name, the same refresh of the index.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import mimetypes
import os
import re
import unicodedata
from collections.abc import AsyncGenerator
from contextlib import suppress
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING

import aiofiles
import aiohttp
from aiogram import Bot
from aiogram.exceptions import TelegramBadRequest
from aiogram.types import Document

from bot.telegram.downloads import DOWNLOAD_TIMEOUT_S, download_problem, file_chunks
from bot.telegram.texts import Texts
from bot.telegram.upload_kinds import (
    needs_text_check,
    readable_by_name,
    readable_suffixes,
    reads_as_text,
)
from bot.telegram.upload_parts import part_path
from tools.errors import PathNotFoundError, SandboxError
from tools.jsontext import BIDI_CONTROLS

if TYPE_CHECKING:
    from tools import Toolbox
    from tools.jail.sandbox import Sandbox
    from tools.jail.scope import Scope

log = logging.getLogger(__name__)

_FORBIDDEN = re.compile(f'[\\x00-\\x1f\\x7f/\\\\:*?"<>|{BIDI_CONTROLS}]')
_MAX_NAME_BYTES = 200
_MAX_COPIES = 10_000
_MB = 1024 * 1024


class UploadError(Exception):
    """The upload was refused or failed; `kind` picks the user's message, `detail` the log's.

    Kinds: `too_big`, `too_big_for_server`, `bad_folder`, `folder_is_file`, `disk_full`,
    `download_failed`, `download_timeout`, `failed`; `outside_scope` (the folder lies outside
    the admin's scope), `no_folder` (the scope has no folder), `unreadable` (a kind the bot
    cannot read).
    """

    def __init__(self, kind: str, detail: str = "", *, size: int = 0) -> None:
        super().__init__(detail or kind)
        self.kind = kind
        self.detail = detail
        self.size = size


@dataclass(frozen=True, slots=True)
class SavedUpload:
    """Where the document landed (relative to the sandbox) and how much text it gave."""

    path: str
    chars: int
    error: str | None


def safe_file_name(name: str | None, mime_type: str | None = None) -> str:
    """A file name that is safe on any disk: no folders, control or reserved characters,
    not hidden, at most ~200 bytes with its extension kept."""
    raw = unicodedata.normalize("NFC", name or "")
    raw = raw.replace("\\", "/").rsplit("/", 1)[-1]
    clean = re.sub(r"\s+", " ", _FORBIDDEN.sub("_", raw)).strip(" .")
    stem, dot, ext = clean.rpartition(".")
    if not dot:
        stem, ext = clean, ""
    if not stem:
        stem = "document"
    if not ext and mime_type:
        guessed = mimetypes.guess_extension(mime_type) or ""
        ext = guessed.lstrip(".")
    ext = ext[:16]
    suffix = f".{ext}" if ext else ""
    budget = _MAX_NAME_BYTES - len(suffix.encode())
    stem = stem.encode()[:budget].decode(errors="ignore").rstrip(". ") or "document"
    return stem + suffix


def upload_problem(
    texts: Texts,
    exc: UploadError,
    max_upload_mb: float,
    folder: str | None,
    *,
    scope: Scope | None,
    name: str,
) -> str:
    """The admin's sentence for each kind of failure; the detail is only in the log."""
    if exc.kind == "outside_scope":
        return texts.upload_outside(folder or "", scope.folders if scope is not None else ())
    if exc.kind == "no_folder":
        return texts.upload_no_folder
    if exc.kind == "unreadable":
        return texts.upload_unreadable_reply(name, readable_suffixes())
    if exc.kind == "too_big":
        size_mb = exc.size / 1024 / 1024 if exc.size else None
        return texts.upload_too_big_reply(size_mb, max_upload_mb)
    if exc.kind in {"bad_folder", "folder_is_file"}:
        template = texts.upload_bad_folder if exc.kind == "bad_folder" else texts.folder_is_file
        return template.format(folder=escape(folder or ""))
    simple = {
        "too_big_for_server": texts.upload_too_big_for_server,
        "disk_full": texts.upload_disk_full,
        "download_failed": texts.upload_download_failed,
        "download_timeout": texts.upload_download_timeout,
    }
    return simple.get(exc.kind, texts.upload_failed)


def _numbered(name: str, copy: int) -> str:
    stem, dot, ext = name.rpartition(".")
    if not dot or not stem:
        return f"{name} ({copy})"
    return f"{stem} ({copy}).{ext}"


def _place_without_overwrite(temp: Path, folder: Path, name: str) -> Path:
    """Give `temp` the first free name among `name`, `name (2)`, … atomically."""
    for copy in range(1, _MAX_COPIES):
        target = folder / (name if copy == 1 else _numbered(name, copy))
        try:
            os.link(temp, target)
        except FileExistsError:
            continue
        except OSError as exc:
            if exc.errno not in {errno.EPERM, errno.ENOTSUP, errno.EXDEV, errno.EMLINK}:
                raise
            if target.exists():  # no hard links on this disk: check, then rename
                continue
            temp.rename(target)
            return target
        temp.unlink()
        return target
    msg = f"no free name for {name}"
    raise UploadError("failed", msg)


def names_a_folder(sandbox: Sandbox, caption: str | None, scope: Scope | None = None) -> bool:
    """Whether a caption reads as a folder path rather than a remark about the file.

    `docs/hr`, `Договоры/` or the name of an existing folder (one the scope sees) are paths;
    "Новый регламент, посмотри" is a sentence, so the file goes to the top folder instead.
    """
    wanted = (caption or "").strip()
    if not wanted:
        return False
    if wanted.endswith("/") or not any(ch.isspace() for ch in wanted):
        return True
    try:
        return sandbox.within(scope).resolve(wanted.strip("/")).is_dir()
    except SandboxError:
        return False


def target_folder(sandbox: Sandbox, folder: str | None, scope: Scope | None = None) -> Path:
    """The folder named `folder`, found by the jail narrowed to `scope` (blocking).

    Without a folder: the sandbox root, or in a scope its first folder.

    Raises:
        UploadError: `no_folder`, `outside_scope`, `bad_folder` or `folder_is_file`.
    """
    wanted = (folder or "").strip().strip("/")
    if scope is not None and scope.first is None:
        raise UploadError("no_folder", "the scope has no folder")
    if not wanted:
        if scope is None or scope.first is None:
            return sandbox.root
        wanted = scope.first
    jail = sandbox.within(scope)
    try:
        path = jail.resolve(wanted, must_exist=False)
    except PathNotFoundError:  # within a scope: what lies outside it
        raise UploadError("outside_scope", f"'{wanted}' is outside the scope") from None
    except SandboxError as exc:
        raise UploadError("bad_folder", exc.message) from exc
    if jail.scope is not None and not jail.scope.covers(sandbox.relative(path)):
        # a folder on the way to the scope's folders, or the documents folder itself
        raise UploadError("outside_scope", f"'{wanted}' is above the scope's folders")
    if path.exists() and not path.is_dir():
        raise UploadError("folder_is_file", f"'{wanted}' is a file")
    return path


async def save_upload(
    bot: Bot,
    document: Document,
    folder_name: str | None,
    toolbox: Toolbox,
    max_mb: float,
    *,
    scope: Scope | None = None,
) -> SavedUpload:
    """Download `document` into the folder `folder_name` of the sandbox (within `scope`, the
    admin's in this chat) and index it.

    Raises:
        UploadError: see its kinds.
    """
    limit = int(max_mb * _MB)
    if document.file_size is not None and document.file_size > limit:
        raise UploadError("too_big", f"{document.file_size} bytes", size=document.file_size)
    folder = await asyncio.to_thread(target_folder, toolbox.sandbox, folder_name, scope)
    name = safe_file_name(document.file_name, document.mime_type)
    if not readable_by_name(name):
        raise UploadError("unreadable", f"{name}: a kind the reader does not read")
    try:
        file = await bot.get_file(document.file_id)
    except TelegramBadRequest as exc:
        if "too big" in exc.message.lower():
            raise UploadError("too_big_for_server", exc.message) from exc
        raise
    if file.file_path is None:
        raise UploadError("failed", "Telegram gave no file path")
    return await _save(file_chunks(bot, file.file_path), folder, name, toolbox, limit)


async def save_stream(
    chunks: AsyncGenerator[bytes, None],
    file_name: str | None,
    folder_name: str | None,
    toolbox: Toolbox,
    max_mb: float,
    *,
    scope: Scope | None = None,
) -> SavedUpload:
    """Save bytes that come from elsewhere than Telegram's servers (the admins' Mini App's
    form) exactly as `save_upload` saves a sent document: the same jail, scope, names, size
    limit and kinds, then indexed.

    Raises:
        UploadError: see its kinds.
    """
    limit = int(max_mb * _MB)
    try:
        folder = await asyncio.to_thread(target_folder, toolbox.sandbox, folder_name, scope)
        name = safe_file_name(file_name, None)
        if not readable_by_name(name):
            raise UploadError("unreadable", f"{name}: a kind the reader does not read")
    except BaseException:
        await chunks.aclose()
        raise
    return await _save(chunks, folder, name, toolbox, limit)


async def _save(
    chunks: AsyncGenerator[bytes, None], folder: Path, name: str, toolbox: Toolbox, limit: int
) -> SavedUpload:
    """Write the bytes under a free name in `folder`, then index the file."""
    final, size = await _download(chunks, folder, name, limit, check_text=needs_text_check(name))
    rel = toolbox.sandbox.relative(final)
    log.info("saved upload %s (%d bytes)", rel, size)
    try:
        report = await toolbox.refresh(rel)
    except Exception as exc:  # the file is saved; the watcher indexes it on its next pass
        log.exception("indexing the upload %s failed", rel)
        return SavedUpload(path=rel, chars=0, error=type(exc).__name__)
    return SavedUpload(path=rel, chars=report.chars, error=report.error)


async def save_text(
    toolbox: Toolbox,
    folder_name: str,
    name: str,
    text: str,
    *,
    scope: Scope | None = None,
) -> SavedUpload:
    """Write `text` as a new document `name` in the folder `folder_name` (within `scope`, the
    writer's in this chat) and index it, as an upload lands: through the jail, under a safe name
    that overwrites nothing, and searchable before this returns.

    Raises:
        UploadError: `no_folder`, `outside_scope`, `bad_folder`, `folder_is_file`, `disk_full`
            or `failed`.
    """
    folder = await asyncio.to_thread(target_folder, toolbox.sandbox, folder_name, scope)
    data = text.encode()
    final = await asyncio.to_thread(_write_new, folder, safe_file_name(name), data)
    rel = toolbox.sandbox.relative(final)
    log.info("saved %s (%d bytes)", rel, len(data))
    try:
        report = await toolbox.refresh(rel)
    except Exception as exc:  # the file is saved; the watcher indexes it on its next pass
        log.exception("indexing %s failed", rel)
        return SavedUpload(path=rel, chars=0, error=type(exc).__name__)
    return SavedUpload(path=rel, chars=report.chars, error=report.error)


def _write_new(folder: Path, name: str, data: bytes) -> Path:
    """`data` under the first free name like `name` in `folder` (made if missing); nothing is
    left behind on failure."""
    temp = part_path(folder)
    created: list[Path] = []
    final: Path | None = None
    try:
        created = _make_folder(folder)
        temp.write_bytes(data)
        final = _place_without_overwrite(temp, folder, name)
    except OSError as exc:
        kind = "disk_full" if exc.errno in {errno.ENOSPC, errno.EDQUOT} else "failed"
        raise UploadError(kind, exc.strerror or "could not write the file") from exc
    finally:
        _clean_up(temp, created if final is None else [])
    return final


async def _download(
    chunks: AsyncGenerator[bytes, None],
    folder: Path,
    name: str,
    limit: int,
    *,
    check_text: bool,
) -> tuple[Path, int]:
    """Write into a hidden temp file, then give it its final name; nothing is left on failure.

    `check_text`: the name says plain text, so bytes that are not are refused before they
    get a name. Returns the final path and the size in bytes.
    """
    temp = part_path(folder)
    created: list[Path] = []
    final: Path | None = None
    try:
        created = await asyncio.to_thread(_make_folder, folder)
        size = await _fetch(chunks, temp, limit)
        if check_text and not await asyncio.to_thread(reads_as_text, temp):
            raise UploadError("unreadable", f"{name}: not text")
        final = await asyncio.to_thread(_place_without_overwrite, temp, folder, name)
    except aiohttp.ClientError as exc:
        # Its text quotes the download URL, which carries the bot token: keep only the status.
        raise UploadError("download_failed", download_problem(exc)) from None
    except TimeoutError:  # before OSError: TimeoutError is one of them
        msg = f"no complete download within {DOWNLOAD_TIMEOUT_S} s"
        raise UploadError("download_timeout", msg) from None
    except OSError as exc:
        kind = "disk_full" if exc.errno in {errno.ENOSPC, errno.EDQUOT} else "failed"
        raise UploadError(kind, exc.strerror or "could not write the file") from exc
    finally:
        await chunks.aclose()
        await asyncio.to_thread(_clean_up, temp, created if final is None else [])
    return final, size


async def _fetch(chunks: AsyncGenerator[bytes, None], temp: Path, limit: int) -> int:
    """Stream the bytes into `temp`; stop with "too_big" once more than `limit` came."""
    written = 0
    async with aiofiles.open(temp, "wb") as out:
        async for chunk in chunks:
            written += len(chunk)
            if written > limit:
                raise UploadError("too_big", f"over {limit} bytes, the upload stopped")
            await out.write(chunk)
    return written


def _make_folder(folder: Path) -> list[Path]:
    """Create the target folder; returns the folders that did not exist before, deepest first."""
    created = [p for p in (folder, *folder.parents) if not p.exists()]
    folder.mkdir(parents=True, exist_ok=True)
    return created


def _clean_up(temp: Path, folders: list[Path]) -> None:
    """Remove the temp file, and the folders made for a failed upload (only when empty)."""
    with suppress(OSError):
        temp.unlink(missing_ok=True)
    for path in folders:
        with suppress(OSError):
            path.rmdir()
