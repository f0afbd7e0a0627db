"""The fake model server's `POST /v1/embeddings`: OpenAI's shape, a pluggable encoder.

`encoder` turns a list of texts into a list of vectors; by default `stem_encoder`, a
deterministic bag of word stems hashed into a fixed number of dimensions, so texts that share
stems lie near each other and texts that share none do not. A test (or a benchmark) may plug
a real model in instead. Every text embedded is recorded in `inputs`; `fail_next`,
`answer_only`, `hang`, `delay_s` and `per_token` make the server misbehave the way real ones do;
`hold_after` keeps requests waiting until `release`, so a test can stop a client mid-build.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import re
from collections import deque
from collections.abc import Callable
from typing import Any

import numpy as np
from aiohttp import web

Encoder = Callable[[list[str]], list[list[float]]]
DIMENSIONS = 128
_WORD = re.compile(r"[^\W_]+")
STEM_CHARS = 5


def stem_encoder(texts: list[str], dimensions: int = DIMENSIONS) -> list[list[float]]:
    """Each text as its words' first letters hashed to signed buckets, length 1."""
    vectors = []
    for text in texts:
        vector = np.zeros(dimensions, dtype=np.float64)
        for word in _WORD.findall(text.lower()):
            digest = hashlib.blake2b(word[:STEM_CHARS].encode(), digest_size=8).digest()
            bucket = int.from_bytes(digest[:4], "little") % dimensions
            vector[bucket] += 1.0 if digest[4] & 1 else -1.0
        norm = float(np.linalg.norm(vector))
        if norm:
            vector /= norm
        else:
            vector[0] = 1.0
        vectors.append([float(x) for x in vector])
    return vectors


class Embeddings:
    """The script and the record of the embeddings route."""

    def __init__(self, closing: asyncio.Event) -> None:
        self.encoder: Encoder = stem_encoder
        self.inputs: list[str] = []
        """Every text answered with a vector, in order (a failed request's are not)."""
        self.keep_inputs = True
        """False keeps only their count (`answered`): a benchmark's memory is not the fake's."""
        self.answered = 0
        self.tokens = 0
        """Prompt tokens reported in the `usage` of the answers sent."""
        """How many texts were answered with a vector."""
        self.calls = 0
        """Requests received, failed ones included."""
        self.answers_left: int | None = None
        self.hang = False
        """Never answer (until the server closes)."""
        self.delay_s = 0.0
        self.per_token = False
        """Answer each text with a list of vectors, one per word, in whatever format was asked:
        what llama.cpp's server sends for a model without pooling."""
        self._down_status = 503
        self._failures: deque[int] = deque()
        self._closing = closing
        self._hold_after: int | None = None
        self._released = asyncio.Event()
        self.held = asyncio.Event()
        """Set when a request is being held (`hold_after`)."""

    def fail_next(self, status: int, times: int = 1) -> None:
        """Answer the next `times` requests with this HTTP status."""
        self._failures.extend([status] * times)

    def answer_only(self, requests: int, status: int = 503) -> None:
        """Answer the next `requests` requests, then fail every one with `status` (a server
        that goes down in the middle of a build) until `answers_left` is set to None."""
        self.answers_left = requests
        self._down_status = status

    def hold_after(self, requests: int) -> None:
        """Answer the next `requests` requests, then hold every later one unanswered (setting
        `held`) until `release`."""
        self._hold_after = self.calls + requests
        self._released.clear()
        self.held.clear()

    def release(self) -> None:
        """Answer the held requests, and every later one at once."""
        self._hold_after = None
        self._released.set()

    def embedded(self, text_part: str) -> int:
        """How many times a text containing `text_part` was sent."""
        return sum(text_part in text for text in self.inputs)

    async def handle(self, request: web.Request) -> web.Response:
        body: dict[str, Any] = await request.json()
        raw = body.get("input")
        texts = [raw] if isinstance(raw, str) else [str(t) for t in raw or []]
        self.calls += 1
        if self._hold_after is not None and self.calls > self._hold_after:
            self.held.set()
            await self._released.wait()
        if self.hang:
            await self._closing.wait()
            return web.Response(status=503, text="fake: shutting down")
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        status = self._failures.popleft() if self._failures else None
        if status is None and self.answers_left is not None:
            if self.answers_left <= 0:
                status = self._down_status
            self.answers_left -= 1
        if status is not None:
            error = {"message": f"fake error {status}", "type": "error", "code": None}
            return web.json_response({"error": error}, status=status)
        vectors = self.encoder(texts)
        self.answered += len(texts)
        if self.keep_inputs:
            self.inputs.extend(texts)
        as_base64 = body.get("encoding_format") == "base64"
        embeddings: list[Any] = [_base64(v) if as_base64 else v for v in vectors]
        if self.per_token:
            embeddings = [self.encoder(text.split() or [text]) for text in texts]
        data = [
            {"object": "embedding", "index": index, "embedding": embedding}
            for index, embedding in enumerate(embeddings)
        ]
        tokens = sum(len(text.split()) + 1 for text in texts)
        self.tokens += tokens
        return web.json_response(
            {
                "object": "list",
                "data": data,
                "model": body.get("model", "fake-embeddings"),
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            }
        )


def _base64(vector: list[float]) -> str:
    return base64.b64encode(np.asarray(vector, dtype="<f4").tobytes()).decode()
