"""The upload's multipart form, read within bounds: what a client sends is read a piece at a
time, and a form that breaks multipart's syntax (or a folder field that is too long, or not
UTF-8) is a `FormError` the endpoint turns into a 400, never a 500.

The folder field is a path, so it is read whole only up to `MAX_FOLDER_BYTES`; the file is
streamed, its size bounded where it is saved (`bot.telegram.uploads.save_stream`).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Literal

from aiohttp import BodyPartReader, MultipartReader
from aiohttp.http_exceptions import HttpProcessingError

MAX_FOLDER_BYTES = 4096
"""The longest folder field taken, in bytes: Linux's longest path (PATH_MAX)."""

_CHUNK = 64 * 1024

Problem = Literal["syntax", "folder_long", "folder_text"]


class FormError(Exception):
    """The form cannot be taken; `problem` says why."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem)
        self.problem = problem


async def next_part(reader: MultipartReader) -> BodyPartReader | None:
    """The form's next field, None after the last one."""
    try:
        part = await reader.next()
    except (ValueError, HttpProcessingError):  # a boundary or a part's headers malformed
        raise FormError("syntax") from None
    if part is not None and not isinstance(part, BodyPartReader):  # a nested multipart
        raise FormError("syntax")
    return part


async def folder_field(part: BodyPartReader) -> str | None:
    """The folder field's text (UTF-8, as browsers send it), None when empty."""
    data = bytearray()
    while chunk := await _read(part, MAX_FOLDER_BYTES + 1):
        data += chunk
        if len(data) > MAX_FOLDER_BYTES:
            raise FormError("folder_long")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise FormError("folder_text") from None
    return text.strip() or None


async def file_chunks(part: BodyPartReader) -> AsyncGenerator[bytes, None]:
    """The file field's bytes, a chunk at a time."""
    while chunk := await _read(part, _CHUNK):
        yield chunk


async def _read(part: BodyPartReader, size: int) -> bytes:
    try:
        return await part.read_chunk(size)
    except (ValueError, HttpProcessingError):  # the part's end is missing or malformed
        raise FormError("syntax") from None
