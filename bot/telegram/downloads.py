"""Fetching files from Telegram: one stream of chunks, with a size limit, for every caller.

Admins' uploads stream to the disk and voice questions are read into memory for the speech
server, but both fetch the same way: from Telegram's file URL, or straight from a local Bot
API server's disk (TELEGRAM_API_LOCAL) without blocking the loop. A download stops as soon as
it passes its limit, and its errors never quote the download URL, which carries the bot token.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from pathlib import Path

import aiofiles
import aiohttp
from aiogram import Bot
from aiogram.exceptions import TelegramAPIError, TelegramBadRequest

__all__ = [
    "DOWNLOAD_TIMEOUT_S",
    "DownloadError",
    "download_problem",
    "file_chunks",
    "read_file_bytes",
]

DOWNLOAD_TIMEOUT_S = 600
_CHUNK_BYTES = 256 * 1024


class DownloadError(Exception):
    """A file could not be had; `kind` picks the user's message, the text is for the log.

    Kinds: `too_big` (over the caller's limit), `too_big_for_server` (Telegram hands bots no
    file this large), `download_failed`, `download_timeout`.
    """

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(detail)
        self.kind = kind


def file_chunks(
    bot: Bot, file_path: str, *, timeout_s: int = DOWNLOAD_TIMEOUT_S
) -> AsyncGenerator[bytes, None]:
    """The file `file_path` (from getFile) as it arrives; close it to stop early.

    Raises (while iterating): aiohttp.ClientError, TimeoutError or OSError.
    """
    api = bot.session.api
    if api.is_local:
        return _local_chunks(Path(api.wrap_local_file.to_local(file_path)))
    return bot.session.stream_content(
        url=api.file_url(bot.token, file_path),
        timeout=timeout_s,
        chunk_size=_CHUNK_BYTES,
        raise_for_status=True,
    )


async def _local_chunks(path: Path) -> AsyncGenerator[bytes, None]:
    """A file on a local Bot API server's disk (TELEGRAM_API_LOCAL), read without blocking."""
    async with aiofiles.open(path, "rb") as source:
        while chunk := await source.read(_CHUNK_BYTES):
            yield chunk


def download_problem(exc: aiohttp.ClientError) -> str:
    """What went wrong with a download, in words that hold no URL."""
    if isinstance(exc, aiohttp.ClientResponseError):
        return f"Telegram did not hand over the file (HTTP {exc.status})"
    return "the download from Telegram was interrupted"


async def read_file_bytes(bot: Bot, file_id: str, limit: int, *, timeout_s: int) -> bytes:
    """The whole file `file_id` in memory, for small files such as voice messages.

    Raises:
        DownloadError: see its kinds; nothing past `limit` bytes is ever kept.
    """
    try:
        file = await bot.get_file(file_id)
    except TelegramBadRequest as exc:
        if "too big" in exc.message.lower():
            raise DownloadError("too_big_for_server", exc.message) from exc
        raise DownloadError("download_failed", f"getFile refused: {exc.message}") from exc
    except TelegramAPIError as exc:
        raise DownloadError("download_failed", f"getFile failed: {exc.message}") from exc
    if file.file_path is None:
        raise DownloadError("download_failed", "Telegram gave no file path")
    if file.file_size is not None and file.file_size > limit:
        raise DownloadError("too_big", f"{file.file_size} bytes")
    return await _collect(file_chunks(bot, file.file_path, timeout_s=timeout_s), limit, timeout_s)


async def _collect(chunks: AsyncGenerator[bytes, None], limit: int, timeout_s: int) -> bytes:
    received = bytearray()
    try:
        async for chunk in chunks:
            received += chunk
            if len(received) > limit:
                msg = f"over {limit} bytes, download stopped"
                raise DownloadError("too_big", msg)
    except aiohttp.ClientError as exc:
        raise DownloadError("download_failed", download_problem(exc)) from None
    except TimeoutError:  # before OSError: TimeoutError is one of them
        msg = f"no complete download within {timeout_s} s"
        raise DownloadError("download_timeout", msg) from None
    except OSError as exc:
        raise DownloadError("download_failed", exc.strerror or "could not read the file") from exc
    finally:
        await chunks.aclose()
    return bytes(received)
