"""The fake model server's `POST /v1/audio/transcriptions`: scripted transcripts, uploads kept.

The real `AsyncOpenAI` client sends the audio as multipart form data, as it would to OpenAI; the
fake records each upload (file name, type, bytes, model, language hint, headers) so tests can
assert on what was sent, and answers with the transcripts or errors queued, first in, first out.
"""

from __future__ import annotations

import socket
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web


@dataclass(frozen=True)
class Upload:
    """One transcription request as the server received it."""

    model: str
    filename: str
    content_type: str
    data: bytes
    language: str | None
    response_format: str | None
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class _Answer:
    status: int
    body: dict[str, Any] | str


class Transcriptions:
    """The script and the record of the transcription route."""

    def __init__(self) -> None:
        self.uploads: list[Upload] = []
        self._queue: deque[_Answer] = deque()

    def reply_text(self, text: str, *, usage: tuple[int, int] | None = None) -> None:
        """Queue a transcript, sent as OpenAI does: `{"text": …}`, with the input and output
        tokens it took as its token-billed models report them, when `usage` is given."""
        body: dict[str, Any] = {"text": text}
        if usage is not None:
            body["usage"] = {
                "type": "tokens",
                "input_tokens": usage[0],
                "output_tokens": usage[1],
                "total_tokens": sum(usage),
            }
        self._queue.append(_Answer(200, body))

    def reply_error(self, status: int, message: str | None = None) -> None:
        """Queue an HTTP error with an OpenAI-style error body."""
        error = {"message": message or f"fake error {status}", "type": "error", "code": None}
        self._queue.append(_Answer(status, {"error": error}))

    def reply_plain(self, text: str) -> None:
        """Queue a transcript sent as plain text, as some local servers do."""
        self._queue.append(_Answer(200, text))

    @property
    def pending(self) -> int:
        """Answers still queued."""
        return len(self._queue)

    async def handle(self, request: web.Request) -> web.Response:
        form = await request.post()
        upload = form.get("file")
        if not isinstance(upload, web.FileField):
            body = {"error": {"message": "fake: no file in the form", "type": "invalid_request"}}
            return web.json_response(body, status=400)
        self.uploads.append(
            Upload(
                model=str(form.get("model", "")),
                filename=upload.filename,
                content_type=upload.content_type,
                data=upload.file.read(),
                language=_text(form.get("language")),
                response_format=_text(form.get("response_format")),
                headers=dict(request.headers),
            )
        )
        if not self._queue:
            body = {"error": {"message": "fake: no transcript queued", "type": "server_error"}}
            return web.json_response(body, status=500)
        answer = self._queue.popleft()
        if isinstance(answer.body, str):
            return web.Response(text=answer.body, status=answer.status)
        return web.json_response(answer.body, status=answer.status)


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def unreachable_url() -> str:
    """A loopback base URL that nothing listens on (a speech server that is down)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"
