"""A question with pictures: the user turn as image parts, or as text read from them.

The request's user turn carries the caption and each picture as an `image_url` part (a base64
data URL); the history keeps only `[picture: <what the model saw>]` and the caption, so no
later request repeats the image. A model that refuses images is told by its error's words.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Sequence
from typing import Any

from bot.agent.pictures import Picture

Message = dict[str, Any]

DEFAULT_QUESTION = "What is in this picture? If it relates to the documents, find and read them."
"""The question of a picture sent without a caption."""

DESCRIBE_REQUEST = (
    "Describe in one sentence what this picture shows, in the language of the question above "
    "if there is one. Name any visible text, labels or model numbers briefly."
)
DESCRIPTION_TOKENS = 60
"""The most a description may take: one sentence kept in the history."""

OCR_PREFIX = "Text read from the picture"
NO_TEXT_READ = "[no text could be read from the picture]"

_NO_IMAGES = re.compile(
    r"(?:does not|doesn't|do not|cannot|can't|not) (?:support|accept|handle|take)\w* "
    r"(?:\w+ ){0,2}(?:image|vision|multimodal|multi-modal)"
    r"|image[_ ]?(?:input|url|content|part)s?\W+(?:\w+ ){0,4}?(?:is |are )?"
    r"(?:not supported|unsupported|not (?:enabled|allowed|available)|only supported)"
    r"|(?:image|vision|multimodal)\w* (?:\w+ ){0,3}(?:is |are )?(?:not supported|unsupported"
    r"|not enabled|disabled)"
    r"|invalid content type\W+image"
    r"|mmproj|no vision|not a (?:vision|multimodal) model|images? (?:is|are) not allowed",
    re.IGNORECASE,
)
"""An error saying the model takes no images (OpenAI, vLLM, Ollama, llama.cpp, gateways)."""


def refuses_images(detail: str) -> bool:
    """Whether a server's error text says the model does not take images."""
    return bool(_NO_IMAGES.search(detail))


def data_url(picture: Picture) -> str:
    """The picture as a `data:` URL, the form every OpenAI-compatible server takes."""
    return f"data:{picture.mime};base64,{base64.b64encode(picture.data).decode('ascii')}"


def image_question(text: str, pictures: Sequence[Picture], detail: str) -> Message:
    """The user turn with the caption (or the default question) and an image part each."""
    parts: list[dict[str, Any]] = [{"type": "text", "text": text or DEFAULT_QUESTION}]
    parts.extend(
        {"type": "image_url", "image_url": {"url": data_url(p), "detail": detail}}
        for p in pictures
    )
    return {"role": "user", "content": parts}


def text_question(text: str, readings: Sequence[str]) -> str:
    """The user turn when the pictures go as the text read from them."""
    blocks = []
    for number, reading in enumerate(readings, start=1):
        label = OCR_PREFIX if len(readings) == 1 else f"{OCR_PREFIX} {number}"
        blocks.append(f"{label}:\n{reading.strip() or NO_TEXT_READ}")
    return "\n\n".join([text or DEFAULT_QUESTION, *blocks])


def describe_request(text: str, pictures: Sequence[Picture], detail: str) -> Message:
    """The request for the short description the history keeps instead of the pictures."""
    ask = (
        DESCRIBE_REQUEST
        if len(pictures) == 1
        else DESCRIBE_REQUEST.replace("this picture shows", f"these {len(pictures)} pictures show")
    )
    if text:
        ask = f"{ask}\nThe user asked about it: {text}"
    return image_question(ask, pictures, detail)


def stored_question(text: str, count: int, description: str = "") -> str:
    """What the history keeps of the user turn: its pictures as a line, then the caption."""
    what = "picture" if count == 1 else f"{count} pictures"
    line = f"[{what}: {description}]" if description else f"[{what}]"
    return f"{line}\n{text}" if text else line


def first_line(text: str, limit: int = 200) -> str:
    """The first line that says something, cut to `limit` characters."""
    for line in text.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith("---") and not stripped.startswith("["):
            return stripped[:limit]
    return ""
