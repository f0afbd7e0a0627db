"""Which file of a message is a picture to look at, before anything is downloaded.

A photo comes in several sizes (Telegram's own thumbnails up to the full picture): the largest
whose size fits the cap is taken. A document is a picture when its MIME type or its name says
it is one of the raster formats Pillow decodes (JPEG, PNG, WebP, HEIC, GIF's first frame, BMP,
TIFF); an SVG or a PDF is not, and stays a document.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath

from aiogram.types import Document, Message, PhotoSize

__all__ = ["PictureFile", "carries_picture", "is_image_document", "picture_file"]

IMAGE_TYPES = frozenset(
    {
        "image/jpeg",
        "image/pjpeg",
        "image/png",
        "image/webp",
        "image/heic",
        "image/heif",
        "image/gif",
        "image/bmp",
        "image/x-ms-bmp",
        "image/tiff",
    }
)
IMAGE_EXTENSIONS = frozenset(
    {".jpg", ".jpeg", ".jpe", ".png", ".webp", ".heic", ".heif", ".gif", ".bmp", ".tif", ".tiff"}
)


@dataclass(frozen=True, slots=True)
class PictureFile:
    """One picture to fetch: Telegram's file id and the size it announced (None: unknown)."""

    file_id: str
    file_size: int | None


def is_image_document(document: Document) -> bool:
    """Whether a document is a picture, by its MIME type or, when that says nothing, its name."""
    mime = (document.mime_type or "").lower()
    if mime in IMAGE_TYPES:
        return True
    if mime and mime not in {"application/octet-stream", "binary/octet-stream"}:
        return False
    suffix = PurePosixPath(document.file_name or "").suffix.lower()
    return suffix in IMAGE_EXTENSIONS


async def carries_picture(message: Message) -> bool:
    """Whether the message is a photo or an image document."""
    document = message.document
    return bool(message.photo) or (document is not None and is_image_document(document))


def picture_file(message: Message, limit_bytes: int) -> PictureFile | None:
    """The message's picture: a photo's largest size within `limit_bytes` (or its largest, to
    be refused as too big, when none fits), or an image document; None for anything else."""
    if message.photo:
        return _photo_size(message.photo, limit_bytes)
    document = message.document
    if document is not None and is_image_document(document):
        return PictureFile(document.file_id, document.file_size)
    return None


def _photo_size(sizes: list[PhotoSize], limit_bytes: int) -> PictureFile:
    ordered = sorted(sizes, key=lambda size: size.width * size.height)
    fitting = [s for s in ordered if s.file_size is None or s.file_size <= limit_bytes]
    chosen = fitting[-1] if fitting else ordered[-1]
    return PictureFile(chosen.file_id, chosen.file_size)
