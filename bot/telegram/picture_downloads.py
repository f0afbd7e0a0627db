"""Pictures fetched from Telegram and made ready for the model, or one reason they cannot be.

Each picture is downloaded into memory within IMAGE_MAX_MB (a size Telegram announced over the
cap is refused before any download) and prepared by `prepare_picture` in a thread, since Pillow
blocks: turned upright, shrunk to IMAGE_MAX_SIDE and re-encoded without its metadata, so GPS
tags and the like never leave the machine. One bad picture stops the question: the user is told
which and why, and the model is not asked about half of what was sent.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Literal

from aiogram import Bot

from bot.agent.pictures import Picture, PictureError, prepare_picture
from bot.telegram.downloads import DownloadError, read_file_bytes
from bot.telegram.picture_files import PictureFile

log = logging.getLogger(__name__)

__all__ = ["PictureRefused", "RefusalKind", "cap_bytes", "fetch_pictures", "over_cap"]

RefusalKind = Literal[
    "too_big", "too_big_for_server", "download_failed", "unreadable", "too_many_pixels"
]
_DOWNLOAD_KINDS: dict[str, RefusalKind] = {
    "too_big": "too_big",
    "too_big_for_server": "too_big_for_server",
}
_DOWNLOAD_TIMEOUT_S = 120
_MB = 1024 * 1024


class PictureRefused(Exception):
    """A picture the question cannot use: `kind` picks the user's message, `number` says which
    of the pictures sent (from 1), the text is for the log."""

    def __init__(self, kind: RefusalKind, number: int, detail: str) -> None:
        super().__init__(detail)
        self.kind: RefusalKind = kind
        self.number = number


def cap_bytes(limit_mb: float) -> int:
    """IMAGE_MAX_MB in bytes."""
    return int(limit_mb * _MB)


def over_cap(files: Sequence[PictureFile], limit_mb: float) -> bool:
    """Whether Telegram announced a size over IMAGE_MAX_MB for any of the pictures."""
    limit = cap_bytes(limit_mb)
    return any(f.file_size is not None and f.file_size > limit for f in files)


async def fetch_pictures(
    bot: Bot, files: Sequence[PictureFile], *, limit_mb: float, max_side: int
) -> list[Picture]:
    """Every picture downloaded and prepared, in order.

    Raises:
        PictureRefused: for the first picture that could not be had or read.
    """
    limit = cap_bytes(limit_mb)
    pictures = []
    for number, file in enumerate(files, start=1):
        raw = await _download(bot, file, number, limit)
        pictures.append(await _prepared(raw, number, max_side))
    return pictures


async def _download(bot: Bot, file: PictureFile, number: int, limit: int) -> bytes:
    if file.file_size is not None and file.file_size > limit:
        raise PictureRefused("too_big", number, f"{file.file_size} bytes announced")
    try:
        return await read_file_bytes(bot, file.file_id, limit, timeout_s=_DOWNLOAD_TIMEOUT_S)
    except DownloadError as exc:
        kind = _DOWNLOAD_KINDS.get(exc.kind, "download_failed")
        raise PictureRefused(kind, number, f"{exc.kind}: {exc}") from None


async def _prepared(raw: bytes, number: int, max_side: int) -> Picture:
    try:
        return await asyncio.to_thread(prepare_picture, raw, max_side=max_side)
    except PictureError as exc:
        kind: RefusalKind = "too_many_pixels" if exc.reason == "too_big" else "unreadable"
        raise PictureRefused(kind, number, f"{exc.reason}: {exc}") from None
