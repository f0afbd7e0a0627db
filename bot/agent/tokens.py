"""Counting tokens without a network: exact where tiktoken's file is already on disk.

Otherwise a conservative estimate by character class. Cyrillic costs about twice as many
tokens per character as English in common tokenizers, digits and punctuation split finely, and
CJK or emoji may cost more than one token a character. The server's reported `usage` then
corrects the estimate: a per-model ratio that grows at once when the server counts more than
expected (an under-count seen once is never repeated), and shrinks only after a steady run of
reports below the estimate, to the highest of the recent ones plus a margin. A loose estimate
would otherwise waste a third of a small local model's window.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import logging
import math
import os
import tempfile
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

# Character classes are counted on the UTF-8 bytes with `bytes.translate`, which is many times
# faster than regular expressions on long tool results. U+0400..U+052F (Cyrillic) are the
# two-byte sequences led by 0xD0..0xD4; every other non-ASCII character has one lead byte >= 0xC0.
_LATIN = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_DIGITS = b"0123456789"
_SPACES = b" \t\n\r\x0b\x0c"
_PUNCT = bytes(c for c in range(0x21, 0x7F) if not chr(c).isalnum())
_CYRILLIC_LEADS = bytes(range(0xD0, 0xD5))
_LEAD_BYTES = bytes(range(0xC0, 0x100))
_PER_CHAR = {"cyrillic": 0.75, "latin": 0.3, "digit": 0.6, "space": 0.1, "punct": 0.7}
_PER_OTHER_CHAR = 1.3
_PER_MESSAGE = 6
_PER_TOOL_CALL = 12
PER_REQUEST = 4
"""Tokens a request adds for its own framing, whatever its messages."""
_MAX_RATIO = 4.0
_MIN_RATIO = 0.5
_MARGIN = 1.05
_RECENT = 8
_STEADY = 4
_MIN_OBSERVED = 64
_MEMO_MIN_CHARS = 256
_MEMO_MAX_ENTRIES = 8_192
_ENCODING_URL = "https://openaipublic.blob.core.windows.net/encodings/{}.tiktoken"
# SHA-256 of tiktoken's published files. A cached file is used only when it matches, because
# tiktoken itself would delete a mismatching file and download it again.
_ENCODING_SHA256 = {
    "o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    "cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    "p50k_base": "94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069",
    "r50k_base": "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930",
}


def estimate_text_tokens(text: str) -> int:
    """A conservative token count for `text` by character class."""
    if not text:
        return 0
    data = text.encode("utf-8", "surrogatepass")
    size = len(data)

    def count(members: bytes) -> int:
        return size - len(data.translate(None, members))

    cyrillic = count(_CYRILLIC_LEADS)
    total = (
        _PER_CHAR["cyrillic"] * cyrillic
        + _PER_CHAR["latin"] * count(_LATIN)
        + _PER_CHAR["digit"] * count(_DIGITS)
        + _PER_CHAR["space"] * count(_SPACES)
        + _PER_CHAR["punct"] * count(_PUNCT)
        + _PER_OTHER_CHAR * (count(_LEAD_BYTES) - cyrillic)
    )
    return math.ceil(total)


def _tiktoken_cache_dir() -> Path | None:
    """Where tiktoken keeps downloaded files, following its own rules; None if caching is off."""
    for variable in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR"):
        if variable in os.environ:
            value = os.environ[variable]
            return Path(value) if value else None
    return Path(tempfile.gettempdir()) / "data-gym-cache"


def _cached_file_intact(encoding_name: str) -> bool:
    """Whether tiktoken would load this encoding from its cache without any download."""
    cache_dir = _tiktoken_cache_dir()
    if encoding_name not in _ENCODING_SHA256 or cache_dir is None:
        return False
    url = _ENCODING_URL.format(encoding_name)
    cached = cache_dir / hashlib.sha1(url.encode()).hexdigest()  # tiktoken's key
    try:
        digest = hashlib.sha256(cached.read_bytes()).hexdigest()
    except OSError:
        return False
    if digest != _ENCODING_SHA256[encoding_name]:
        logger.warning("tiktoken's cached %s file is damaged; estimating tokens", encoding_name)
        return False
    return True


def offline_encoder(model: str) -> Callable[[str], int] | None:
    """An exact counter for an OpenAI model whose tiktoken file is cached; never downloads."""
    try:
        import tiktoken  # noqa: PLC0415 - optional: exact counts only when it is installed
    except ImportError:
        return None
    short_name = model.rsplit("/", 1)[-1]
    try:
        encoding_name = tiktoken.encoding_name_for_model(short_name)
    except KeyError:
        return None
    if not _cached_file_intact(encoding_name):
        return None
    try:
        encoding = tiktoken.get_encoding(encoding_name)
    except Exception:  # a broken cache must only cost exactness, never a question
        logger.warning("tiktoken's cached %s file is unusable; estimating tokens", encoding_name)
        return None
    return lambda text: len(encoding.encode(text, disallowed_special=()))


class TokenCounter:
    """Counts the tokens of messages and tool specs for one model, calibrated by `usage`."""

    def __init__(self, text_counter: Callable[[str], int] | None = None) -> None:
        self._count_uncached = text_counter or estimate_text_tokens
        self.exact = text_counter is not None
        self._ratio = 1.0
        self._recent: deque[float] = deque(maxlen=_RECENT)
        self._memo: dict[tuple[int, int], int] = {}
        self._sizes: PictureSizes = {}

    def _count_text(self, text: str) -> int:
        """Raw count, remembered for long texts: every round re-counts the same history.

        Keyed by the text's hash and length (not the text, to hold no large strings); a
        collision could only skew one estimate.
        """
        if len(text) < _MEMO_MIN_CHARS:
            return self._count_uncached(text)
        key = (hash(text), len(text))
        cached = self._memo.get(key)
        if cached is None:
            if len(self._memo) >= _MEMO_MAX_ENTRIES:
                self._memo.clear()
            cached = self._memo[key] = self._count_uncached(text)
        return cached

    @classmethod
    def for_model(cls, model: str) -> TokenCounter:
        """Exact for models tiktoken knows and has on disk, estimated otherwise."""
        return cls(offline_encoder(model))

    @property
    def ratio(self) -> float:
        """How much the raw count is scaled up after the server reported more than expected."""
        return self._ratio

    def text(self, text: str) -> int:
        """Calibrated tokens of a bare text."""
        return math.ceil(self._count_text(text) * self._ratio)

    def message(self, message: Mapping[str, Any]) -> int:
        """Calibrated tokens of one chat message, framing included."""
        return math.ceil(self.raw_message(message) * self._ratio)

    def messages(self, messages: Sequence[Mapping[str, Any]]) -> int:
        """Calibrated tokens of a list of messages plus the request's own framing."""
        return math.ceil(self.raw_messages(messages) * self._ratio)

    def raw_messages(self, messages: Sequence[Mapping[str, Any]]) -> int:
        """Uncalibrated tokens of a list of messages plus the request's own framing."""
        return PER_REQUEST + sum(self.raw_message(m) for m in messages)

    def pictures(self, messages: Sequence[Mapping[str, Any]]) -> int:
        """The tokens of the pictures `messages` carry, by the provider's rule (uncalibrated:
        the rule is the provider's own)."""
        return message_pictures(messages, self._sizes)

    def tools(self, specs: Sequence[Mapping[str, Any]]) -> int:
        """Calibrated tokens of the tool specs as attached to a request."""
        return math.ceil(self.raw_tools(specs) * self._ratio)

    def raw_tools(self, specs: Sequence[Mapping[str, Any]]) -> int:
        """Uncalibrated tokens of the tool specs."""
        return sum(
            self._count_text(json.dumps(spec, ensure_ascii=False)) + _PER_TOOL_CALL
            for spec in specs
        )

    def raw_message(self, message: Mapping[str, Any]) -> int:
        """Uncalibrated tokens of one message."""
        content = message.get("content")
        total = _PER_MESSAGE + self._count_text(_text_of(content))
        if isinstance(content, list):
            total += sum(image_part_tokens(part, self._sizes) for part in content)
        for call in message.get("tool_calls") or ():
            function = call.get("function") or {}
            total += _PER_TOOL_CALL + self._count_text(str(function.get("name", "")))
            total += self._count_text(str(function.get("arguments", "")))
        if message.get("tool_call_id"):
            total += self._count_text(str(message["tool_call_id"]))
        return total

    def observe(self, raw: int, reported: int | None) -> None:
        """Learn from the server's `prompt_tokens` for a request whose uncalibrated count was
        `raw` (taken when it was built: other requests may move the ratio meanwhile).

        A report above the estimate raises the ratio at once (up to a sane cap). Reports below
        it lower the ratio only once `_STEADY` of them agree, and then only to the highest of
        the last `_RECENT` plus a margin, never under a floor. Tiny requests are ignored:
        framing noise dominates them.
        """
        if reported is None or reported <= 0 or raw < _MIN_OBSERVED:
            return
        self._recent.append(min(reported / raw * _MARGIN, _MAX_RATIO))
        needed = self._recent[-1]
        if needed > self._ratio:
            logger.debug(
                "token estimate was low (%d counted, %d reported); scaling by %.2f",
                raw,
                reported,
                needed,
            )
            self._ratio = needed
        elif len(self._recent) >= _STEADY:
            self._ratio = max(*self._recent, _MIN_RATIO)


def _text_of(content: object) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # parts: their text; pictures are counted by their size
        return "\n".join(
            str(part.get("text") or "") if isinstance(part, Mapping) else str(part)
            for part in content
        )
    return json.dumps(content, ensure_ascii=False)


_HEADER_CHARS = 16_384
"""Base64 characters decoded to find a picture's size: its header is near the start (the
pictures sent are re-encoded, with no metadata before it)."""


PictureSizes = dict[tuple[int, int], tuple[int, int] | None]
"""Pictures' sizes by their URL's hash and length (not the URL: it holds the whole picture),
kept by a counter, since every round of a question counts the same pictures again."""
_SIZES_KEPT = 256


def _data_url_size(url: str, sizes: PictureSizes) -> tuple[int, int] | None:
    """The width and height of a `data:` URL's picture, from its header; None if unknown."""
    key = (hash(url), len(url))
    if key in sizes:
        return sizes[key]
    from PIL import Image, UnidentifiedImageError  # noqa: PLC0415 - only with pictures

    _, _, payload = url.partition(";base64,")
    head = payload[: _HEADER_CHARS - _HEADER_CHARS % 4]
    size: tuple[int, int] | None
    try:
        with Image.open(io.BytesIO(base64.b64decode(head))) as image:
            size = image.size
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError):
        size = None
    if len(sizes) >= _SIZES_KEPT:
        sizes.clear()
    sizes[key] = size
    return size


def message_pictures(messages: Sequence[object], sizes: PictureSizes | None = None) -> int:
    """The tokens of the pictures `messages` carry; `sizes` remembers their sizes."""
    return sum(
        image_part_tokens(part, sizes)
        for message in messages
        if isinstance(message, Mapping) and isinstance(message.get("content"), list)
        for part in message["content"]
    )


def image_part_tokens(part: object, sizes: PictureSizes | None = None) -> int:
    """An `image_url` part's tokens by the provider's rule for its size and `detail`
    (`bot.agent.pictures.picture_tokens`); 0 for any other part. `sizes` remembers the
    sizes read from headers (None: read each time)."""
    from bot.agent.pictures import picture_tokens  # noqa: PLC0415

    if not isinstance(part, Mapping) or part.get("type") != "image_url":
        return 0
    image = part.get("image_url")
    if not isinstance(image, Mapping):
        return 0
    url = str(image.get("url") or "")
    detail = str(image.get("detail") or "auto")
    size = _data_url_size(url, {} if sizes is None else sizes) if url.startswith("data:") else None
    if size is None:  # a link, or an unreadable header: the most a picture costs
        return picture_tokens(2048, 2048, detail)
    return picture_tokens(*size, detail)
