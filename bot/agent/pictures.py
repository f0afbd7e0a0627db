"""Pictures for a vision model: decoded, turned upright, shrunk and re-encoded clean.

Nothing of the file the user sent leaves the machine as it came: the pixels are decoded, the
EXIF orientation applied, the image scaled to fit `max_side` and encoded afresh, so EXIF (GPS
among it), XMP, ICC profiles and text chunks are gone. Screenshots and images with
transparency stay PNG (sharp text, few colours); photographs become JPEG at quality 85.

The work is blocking (Pillow): callers run `prepare_picture` in a thread.
"""

from __future__ import annotations

import io
import math
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from PIL.Image import Image

_JPEG_QUALITY = 85
_DRAFT_SHARE = 0.75
SHORT_SIDE = 768
"""The shorter side OpenAI scales every picture to (high detail); more pixels are not seen."""
_COLOUR_SAMPLE = 128
"""Colours are counted on a nearest-neighbour sample of this side (no blending adds any)."""
_MAIN_COLOURS = 16
_DRAWN_SHARE = 0.7
"""A picture whose 16 commonest colours cover this share of it is drawn: a screenshot, a
diagram, a scanned page; a photograph spreads over thousands."""

PictureReason = Literal["unreadable", "too_big", "not_image"]


class PictureError(Exception):
    """The picture cannot be used; `reason` says why, for the user's message."""

    def __init__(self, reason: PictureReason, message: str) -> None:
        super().__init__(message)
        self.reason: PictureReason = reason


@dataclass(frozen=True, slots=True)
class Picture:
    """A picture ready to send: `data` re-encoded (upright, no metadata) as `mime`."""

    data: bytes
    mime: str
    width: int
    height: int


def prepare_picture(
    raw: bytes,
    *,
    max_side: int = 2048,
    short_side: int | None = SHORT_SIDE,
    max_pixels: int = 50_000_000,
) -> Picture:
    """`raw` decoded, turned upright, fit within `max_side` (and its shorter side within
    `short_side`) and re-encoded without metadata.

    `short_side` is what the providers look at: OpenAI scales every picture to 768 pixels on its
    shorter side before the model sees it, and Claude, Gemini and Qwen-VL take about as many
    pixels, so more would cost time and bandwidth for nothing. None keeps only `max_side`.
    A large JPEG may come out smaller than that (down to 3/4 of it): it is decoded at a
    reduced scale, which costs a fraction of a whole decode and a resample.

    Raises `PictureError`: "not_image" for data no decoder knows, "too_big" for more than
    `max_pixels` pixels (checked from the header, before decoding), "unreadable" for a
    damaged file.
    """
    from PIL import Image, UnidentifiedImageError  # noqa: PLC0415 - heavy; only for pictures

    if max_side < 1:
        msg = "max_side must be positive"
        raise ValueError(msg)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(raw))
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise PictureError("too_big", "the picture has too many pixels") from None
    except UnidentifiedImageError:
        raise PictureError("not_image", "the file is not a picture") from None
    except (OSError, ValueError, SyntaxError) as exc:
        raise PictureError(
            "unreadable", f"the picture is damaged ({type(exc).__name__})"
        ) from None
    with image:
        width, height = image.size
        if width < 1 or height < 1:
            raise PictureError("unreadable", "the picture has no pixels")
        if width * height > max_pixels:
            raise PictureError("too_big", f"the picture has {width}x{height} pixels")
        photographed = image.format == "JPEG"  # lossy already: never worth a PNG
        try:
            box = _box(width, height, max_side, short_side)
            return _encode(_upright(image, box), photographed=photographed)
        except (OSError, ValueError, SyntaxError, EOFError) as exc:
            msg = f"the picture is damaged ({type(exc).__name__})"
            raise PictureError("unreadable", msg) from None


def _box(width: int, height: int, max_side: int, short_side: int | None) -> float:
    """How far the picture must shrink (1.0: not at all) to fit both limits."""
    factor = min(1.0, max_side / max(width, height))
    if short_side is not None:
        factor = min(factor, short_side / min(width, height))
    return factor


def _upright(image: Image, factor: float) -> Image:
    """The first frame, decoded at a reduced scale where the JPEG allows it, turned per its
    EXIF orientation and shrunk by `factor`."""
    from PIL import Image as PILImage  # noqa: PLC0415
    from PIL import ImageOps  # noqa: PLC0415

    target = (max(1, round(image.size[0] * factor)), max(1, round(image.size[1] * factor)))
    if image.format == "JPEG" and factor < 1.0:
        # DCT scaling: decode at the smallest of 1/2, 1/4, 1/8 that keeps each side at least
        # 3/4 of the target (a phone's 4000x3000 photo decodes as 1000x750, at a small part of
        # the work, and needs no resampling after), else whole.
        wanted = (math.ceil(target[0] * _DRAFT_SHARE), math.ceil(target[1] * _DRAFT_SHARE))
        image.draft(image.mode, wanted)
    image.load()
    upright = ImageOps.exif_transpose(image) or image
    if upright.size[0] > image.size[0] or upright.size[1] > image.size[1]:
        target = (target[1], target[0])  # turned a quarter: the target turns with it
    if upright.size[0] > target[0] or upright.size[1] > target[1]:
        upright = upright.copy() if upright is image else upright
        upright.thumbnail(target, PILImage.Resampling.LANCZOS, reducing_gap=2.0)
    return upright


def _encode(image: Image, *, photographed: bool = False) -> Picture:
    """PNG for transparency or few colours (unless it came `photographed`, as a JPEG), JPEG
    otherwise; no metadata is passed on."""
    alpha = image.mode in ("RGBA", "LA", "PA") or (
        image.mode == "P" and "transparency" in image.info
    )
    out = io.BytesIO()
    image.info.clear()  # ICC profile, EXIF, XMP, text chunks: some encoders carry them over
    if alpha:
        clean = image.convert("RGBA")
        clean.save(out, "PNG", optimize=False)
        mime = "image/png"
    elif not photographed and _few_colours(image):
        clean = image if image.mode in ("1", "L", "RGB", "P") else image.convert("RGB")
        clean.save(out, "PNG", optimize=False)
        mime = "image/png"
    else:
        clean = image.convert("L") if image.mode in ("L", "I", "I;16", "F", "1") else image
        if clean.mode not in ("L", "RGB"):
            clean = clean.convert("RGB")
        clean.save(out, "JPEG", quality=_JPEG_QUALITY, optimize=False)
        mime = "image/jpeg"
    return Picture(out.getvalue(), mime, clean.width, clean.height)


def _few_colours(image: Image) -> bool:
    """Whether the image looks drawn (a screenshot, a diagram) rather than photographed."""
    from PIL import Image as PILImage  # noqa: PLC0415

    if image.mode in ("1", "P"):
        return True
    side = (min(image.width, _COLOUR_SAMPLE), min(image.height, _COLOUR_SAMPLE))
    sample = image.resize(side, PILImage.Resampling.NEAREST)
    if sample.mode not in ("L", "RGB"):
        sample = sample.convert("RGB")
    colours = sample.getcolors(side[0] * side[1]) or []
    counts = sorted((count for count, _ in colours), reverse=True)
    return sum(counts[:_MAIN_COLOURS]) >= _DRAWN_SHARE * side[0] * side[1]


_LOW_DETAIL = 85
_PER_TILE = 170
_TILE = 512
_FIT = 2048


def picture_tokens(width: int, height: int, detail: str) -> int:
    """Prompt tokens of a picture by OpenAI's published rule for `detail`.

    "low": a flat 85. "high"/"auto": scaled to fit 2048x2048, then its shortest side to 768
    (never up), counted in 512-pixel tiles at 170 each, plus 85.
    """
    if detail == "low" or width < 1 or height < 1:
        return _LOW_DETAIL
    w, h = float(width), float(height)
    if max(w, h) > _FIT:
        scale = _FIT / max(w, h)
        w, h = w * scale, h * scale
    if min(w, h) > SHORT_SIDE:
        scale = SHORT_SIDE / min(w, h)
        w, h = w * scale, h * scale
    tiles = math.ceil(w / _TILE) * math.ceil(h / _TILE)
    return _LOW_DETAIL + _PER_TILE * tiles
