"""What the fake model server saw of a request's pictures: each `image_url` part decoded.

Tests assert on the bytes' hash, the MIME type, `detail`, the text beside the pictures and the
tools the same request carried, as a vision model would receive them.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import io
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from PIL import Image


class BadImage(ValueError):
    """A part a vision server would refuse (400): not a base64 data URL of a picture."""


@dataclass(frozen=True, slots=True)
class SeenImage:
    """One picture of one request, as decoded by the server."""

    request: int
    sha256: str
    mime: str
    detail: str | None
    width: int
    height: int
    exif: bool
    text: str
    tools: tuple[str, ...]


def images_in(index: int, body: Mapping[str, Any]) -> list[SeenImage]:
    """Every picture of request `index` (`body`), decoded; raises `BadImage`."""
    tools = tuple(str(spec.get("function", {}).get("name")) for spec in body.get("tools") or ())
    seen: list[SeenImage] = []
    for message in body.get("messages") or ():
        content = message.get("content") if isinstance(message, Mapping) else None
        if not isinstance(content, list):
            continue
        text = " ".join(str(p.get("text") or "") for p in content if p.get("type") == "text")
        for part in content:
            if part.get("type") != "image_url":
                continue
            seen.append(_decode(index, part.get("image_url") or {}, text, tools))
    return seen


def _decode(index: int, image: Mapping[str, Any], text: str, tools: tuple[str, ...]) -> SeenImage:
    url = str(image.get("url") or "")
    header, sep, payload = url.partition(",")
    if not header.startswith("data:") or not header.endswith(";base64") or not sep:
        raise BadImage(f"not a base64 data URL: {url[:40]!r}")
    mime = header[len("data:") : -len(";base64")]
    try:
        data = base64.b64decode(payload, validate=True)
    except binascii.Error as exc:
        raise BadImage(f"bad base64: {exc}") from exc
    try:
        with Image.open(io.BytesIO(data)) as picture:
            picture.load()
            fmt = Image.MIME.get(picture.format or "", "")
            size = picture.size
            exif = bool(picture.getexif()) or "exif" in picture.info
    except (OSError, ValueError) as exc:
        raise BadImage(f"not a picture: {exc}") from exc
    if fmt != mime:
        raise BadImage(f"the data URL says {mime} but holds {fmt}")
    detail = image.get("detail")
    return SeenImage(
        request=index,
        sha256=hashlib.sha256(data).hexdigest(),
        mime=mime,
        detail=None if detail is None else str(detail),
        width=size[0],
        height=size[1],
        exif=exif,
        text=text,
        tools=tools,
    )


def without_pictures(messages: Any) -> str:
    """The messages as JSON with every picture's URL left out, for counting their text."""

    def strip(value: Any) -> Any:
        if isinstance(value, Mapping):
            if value.get("type") == "image_url":
                return {"type": "image_url"}
            return {k: strip(v) for k, v in value.items()}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    return json.dumps(strip(messages), ensure_ascii=False)
