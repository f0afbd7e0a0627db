"""A fake OpenAI-compatible model server on 127.0.0.1 that plays scripted replies.

The real `AsyncOpenAI` client talks to it over HTTP, so tests exercise the SDK's own parsing,
retries and timeouts. Every request body is recorded so tests can assert on what was sent.
Transcriptions (`POST /v1/audio/transcriptions`) have their own script and record, `speech`;
embeddings (`POST /v1/embeddings`) theirs, `embeddings`.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import json
import ssl
import time
from collections import deque
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Self

from aiohttp import web
from openai import AsyncOpenAI, DefaultAioHttpClient

from bot.agent.tokens import estimate_text_tokens, message_pictures
from tests.fakes.fake_embeddings import Embeddings
from tests.fakes.fake_images import BadImage, SeenImage, images_in, without_pictures
from tests.fakes.fake_stream import Streaming, send_stream
from tests.fakes.fake_transcriptions import Transcriptions
from tests.fakes.processes import START_S

_NO_REPLY = {"error": {"message": "fake: no reply queued", "type": "server_error"}}
_NO_STREAMING = {
    "error": {"message": "stream is not supported by this server", "type": "invalid_request"}
}


@dataclass(frozen=True)
class Reply:
    """One scripted HTTP answer. `hang` never answers until the server closes.

    A completion asked for with `stream: true` is sent as server-sent events (see
    `tests.fakes.fake_stream`); `cut_after` stops such a stream after that many events without
    ending it, and `garble_after` sends a line that is not JSON there instead.
    """

    status: int = 200
    body: bytes | Mapping[str, Any] = b""
    content_type: str = "application/json"
    headers: Mapping[str, str] = field(default_factory=dict)
    hang: bool = False
    delay_s: float = 0.0
    cut_after: int | None = None
    garble_after: int | None = None


Responder = Callable[[dict[str, Any]], Awaitable[Reply | None]]
Call = tuple[str, "dict[str, Any] | str"]


def _usage(usage: tuple[int, int] | None) -> dict[str, int] | None:
    if usage is None:
        return None
    prompt, completion = usage
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


def _rough_usage(request: Mapping[str, Any], reply: Mapping[str, Any]) -> dict[str, int]:
    """Token counts when a test does not script them: the bot's own estimate of the JSON sent.

    Counting the JSON (quotes, keys) makes this a little above what the bot estimates for the
    same messages, so calibration in tests that do not care about it stays near neutral.
    """
    messages = request.get("messages", [])
    prompt = without_pictures(messages)
    prompt += json.dumps(request.get("tools") or [], ensure_ascii=False)
    pictures = message_pictures(messages)
    completion = json.dumps(reply.get("choices") or [], ensure_ascii=False)
    prompt_tokens = estimate_text_tokens(prompt) + pictures + 1
    usage = _usage((prompt_tokens, estimate_text_tokens(completion) + 1))
    assert usage is not None
    return usage


def completion_body(
    message: Mapping[str, Any],
    *,
    finish_reason: str | None = "stop",
    usage: tuple[int, int] | None = None,
) -> dict[str, Any]:
    """A `chat.completion` object the way OpenAI shapes it.

    `model` is filled in from each request; without `usage` a rough count is filled in too.
    """
    body: dict[str, Any] = {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": None,
        "choices": [
            {
                "index": 0,
                "message": dict(message),
                "finish_reason": finish_reason,
                "logprobs": None,
            }
        ],
        "system_fingerprint": None,
    }
    if usage is not None:
        body["usage"] = _usage(usage)
    return body


def text_reply(
    text: str | None, *, finish_reason: str = "stop", usage: tuple[int, int] | None = None
) -> Reply:
    """A plain assistant answer."""
    message = {"role": "assistant", "content": text, "tool_calls": None, "refusal": None}
    return Reply(body=completion_body(message, finish_reason=finish_reason, usage=usage))


def tool_calls_reply(
    *calls: Call,
    content: str | None = None,
    finish_reason: str = "tool_calls",
    ids: list[str | None] | None = None,
    usage: tuple[int, int] | None = None,
    arguments_as_object: bool = False,
    id_prefix: str = "call",
) -> Reply:
    """An assistant message asking for tool calls.

    A dict of arguments is sent as a JSON string (as OpenAI does) unless `arguments_as_object`,
    which mimics servers that send the object itself; a string is sent verbatim (bad JSON too).
    An id of `None` in `ids` leaves the call without an `id`, as some servers do.
    """
    if ids is not None and len(ids) != len(calls):
        msg = "ids must have one entry per call"
        raise ValueError(msg)
    tool_calls = []
    for index, (name, arguments) in enumerate(calls):
        if isinstance(arguments, str) or arguments_as_object:
            sent: Any = arguments
        else:
            sent = json.dumps(arguments, ensure_ascii=False)
        call: dict[str, Any] = {"type": "function", "function": {"name": name, "arguments": sent}}
        call_id = f"{id_prefix}_{index}" if ids is None else ids[index]
        if call_id is not None:
            call["id"] = call_id
        tool_calls.append(call)
    message = {"role": "assistant", "content": content, "tool_calls": tool_calls, "refusal": None}
    return Reply(body=completion_body(message, finish_reason=finish_reason, usage=usage))


def error_reply(
    status: int,
    body: str | Mapping[str, Any] | None = None,
    headers: Mapping[str, str] | None = None,
) -> Reply:
    """An HTTP error with an OpenAI-style error body (or the text given)."""
    if body is None:
        body = {"error": {"message": f"fake error {status}", "type": "error", "code": None}}
    if isinstance(body, str):
        return Reply(
            status=status,
            body=body.encode(),
            content_type="text/plain",
            headers=dict(headers or {}),
        )
    return Reply(status=status, body=body, headers=dict(headers or {}))


class FakeLLM:
    """The server and its script. Replies are taken first-in, first-out."""

    def __init__(self) -> None:
        self.base_url = ""
        self.requests: list[dict[str, Any]] = []
        self.request_headers: list[dict[str, str]] = []
        self.peers: list[object] = []
        """The client's address and port for each request: a new port is a new connection."""
        self.responder: Responder | None = None
        self.streaming: Streaming = Streaming()
        """How streamed requests are answered: piece sizes, pacing, or refused."""
        self.models: list[str] | None = ["gpt-4.1-mini", "fake-model"]
        """What GET /v1/models lists; None answers 404, as servers without a list do."""
        self.model_listings = 0
        self.listing_headers: list[dict[str, str]] = []
        """The headers of each GET /v1/models, to see which key asked for the list."""
        self.keys: set[str] | None = None
        """The keys the server takes; None takes any. Any other key is answered 401 with the
        key echoed in the message, as OpenAI does, on the list of models and on completions."""
        self.speech = Transcriptions()
        """What /v1/audio/transcriptions answers, and the audio it received."""
        self.images: list[SeenImage] = []
        """Every picture of every request, decoded (`tests.fakes.fake_images`)."""
        self._queue: deque[Reply] = deque()
        self._closing = asyncio.Event()
        self.embeddings = Embeddings(self._closing)
        """What /v1/embeddings answers (its `encoder`), and the texts it received."""
        self._arrived = asyncio.Condition()
        self._runner: web.AppRunner | None = None
        self._clients: list[AsyncOpenAI] = []
        self._ids = itertools.count(1)

    # --- scripting -------------------------------------------------------------------------

    def reply(self, reply: Reply) -> None:
        """Queue any prepared reply."""
        self._queue.append(reply)

    def reply_text(
        self,
        text: str | None,
        *,
        finish_reason: str = "stop",
        usage: tuple[int, int] | None = None,
    ) -> None:
        """Queue a plain assistant answer."""
        self.reply(text_reply(text, finish_reason=finish_reason, usage=usage))

    def reply_tool_calls(
        self,
        *calls: Call,
        content: str | None = None,
        finish_reason: str = "tool_calls",
        ids: list[str | None] | None = None,
        usage: tuple[int, int] | None = None,
        arguments_as_object: bool = False,
    ) -> None:
        """Queue an assistant message with tool calls (ids unique across the whole script)."""
        self.reply(
            tool_calls_reply(
                *calls,
                content=content,
                finish_reason=finish_reason,
                ids=ids,
                usage=usage,
                arguments_as_object=arguments_as_object,
                id_prefix=f"call_{next(self._ids)}",
            )
        )

    def reply_error(
        self,
        status: int,
        body: str | dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        """Queue an HTTP error."""
        self.reply(error_reply(status, body, headers))

    def reply_raw(
        self, body: bytes, status: int = 200, content_type: str = "application/json"
    ) -> None:
        """Queue bytes sent exactly as given."""
        self.reply(Reply(status=status, body=body, content_type=content_type))

    def reply_hang(self) -> None:
        """Queue a reply that never comes (the client has to give up)."""
        self.reply(Reply(hang=True))

    @property
    def pending(self) -> int:
        """Replies still queued."""
        return len(self._queue)

    async def wait_for_requests(self, count: int, within_s: float = 5.0) -> None:
        """Wait until at least `count` requests have arrived."""
        async with asyncio.timeout(within_s), self._arrived:
            await self._arrived.wait_for(lambda: len(self.requests) >= count)

    # --- serving ---------------------------------------------------------------------------

    async def start(self) -> None:
        """Listen on a free port of 127.0.0.1."""
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_post("/v1/chat/completions", self._handle)
        app.router.add_get("/v1/models", self._list_models)
        app.router.add_post("/v1/audio/transcriptions", self.speech.handle)
        app.router.add_post("/v1/embeddings", self.embeddings.handle)
        self._runner = web.AppRunner(app, shutdown_timeout=0.5)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = self._runner.addresses[0][1]
        self.base_url = f"http://127.0.0.1:{port}/v1"

    async def close(self) -> None:
        """Release hanging replies, close the clients made for tests, stop listening."""
        self._closing.set()
        for client in self._clients:
            await client.close()
        if self._runner is not None:
            await self._runner.cleanup()

    async def __aenter__(self) -> Self:
        """Started for a `with` block, closed at its end."""
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        raw = await request.read()
        try:
            body: dict[str, Any] = json.loads(raw)
        except ValueError:
            body = {"_unparsed": raw.decode("utf-8", "replace")}
        async with self._arrived:
            try:
                self.images.extend(images_in(len(self.requests), body))
                bad_image = None
            except BadImage as exc:
                bad_image = str(exc)
            self.requests.append(body)
            self.request_headers.append(dict(request.headers))
            self.peers.append(request.transport and request.transport.get_extra_info("peername"))
            self._arrived.notify_all()
        refused = self._refused_key(request)
        if refused is not None:
            return refused
        if bad_image is not None:  # as OpenAI does; the script waits
            error = {"message": f"Invalid image: {bad_image}", "type": "invalid_request_error"}
            return self._render(error_reply(400, {"error": error}), body)
        if body.get("stream") is True and self.streaming.refuse:
            return self._render(error_reply(400, _NO_STREAMING), body)  # the script waits
        reply = await self.responder(body) if self.responder is not None else None
        if reply is None:
            reply = self._queue.popleft() if self._queue else error_reply(500, _NO_REPLY)
        if reply.hang:
            await self._closing.wait()
            return web.Response(status=503, text="fake: shutting down")
        if reply.delay_s:
            await asyncio.sleep(reply.delay_s)
        if body.get("stream") is True and reply.status == 200:
            completion = self._completion(reply, body)
            if completion is not None:
                return await send_stream(request, completion, body, reply, self.streaming)
        return self._render(reply, body)

    @staticmethod
    def _completion(reply: Reply, request: dict[str, Any]) -> dict[str, Any] | None:
        """The completion a streamable reply carries, with model and usage filled in."""
        if not isinstance(reply.body, Mapping) or reply.body.get("object") != "chat.completion":
            return None
        payload = dict(reply.body)
        if payload.get("model") is None:
            payload["model"] = request.get("model", "fake-model")
        if "usage" not in payload:
            payload["usage"] = _rough_usage(request, payload)
        return payload

    def _refused_key(self, request: web.Request) -> web.Response | None:
        """A 401 when `keys` is set and the request's bearer key is not among them."""
        if self.keys is None:
            return None
        key = request.headers.get("Authorization", "").removeprefix("Bearer ")
        if key in self.keys:
            return None
        message = f"Incorrect API key provided: {key}"
        error = {"message": message, "type": "invalid_request_error", "code": "invalid_api_key"}
        return web.json_response({"error": error}, status=401)

    async def _list_models(self, request: web.Request) -> web.Response:
        self.model_listings += 1
        self.listing_headers.append(dict(request.headers))
        refused = self._refused_key(request)
        if refused is not None:
            return refused
        if self.models is None:
            body = {"error": {"message": "fake: no list of models", "type": "not_found"}}
            return web.json_response(body, status=404)
        data = [
            {"id": name, "object": "model", "created": 0, "owned_by": "fake"}
            for name in self.models
        ]
        return web.json_response({"object": "list", "data": data})

    @staticmethod
    def _render(reply: Reply, request: dict[str, Any]) -> web.Response:
        if isinstance(reply.body, Mapping):
            payload = dict(reply.body)
            if payload.get("object") == "chat.completion":
                if payload.get("model") is None:
                    payload["model"] = request.get("model", "fake-model")
                if "usage" not in payload:
                    payload["usage"] = _rough_usage(request, payload)
            data = json.dumps(payload, ensure_ascii=False).encode()
        else:
            data = reply.body
        return web.Response(
            status=reply.status,
            body=data,
            headers={"Content-Type": reply.content_type, **reply.headers},
        )


@functools.cache
def _certificates() -> ssl.SSLContext:
    """One default TLS context for every client a test process makes: building one loads the
    system's certificates (about 30 ms), and the fakes speak plain HTTP anyway."""
    return ssl.create_default_context()


def make_client(fake_llm: FakeLLM, **kw: Any) -> AsyncOpenAI:
    """A real `AsyncOpenAI` pointed at the fake server, closed when the server closes.

    It sends over aiohttp, as the bot's own client does (`bot.agent.llm.build_client`), unless
    a test hands its own `http_client`. It waits for an answer by the bound for a busy machine
    (`START_S`): the fake answers at once, but on shared cores this process may not run for
    seconds. A test of a timeout gives its own `timeout`.
    """
    kw.setdefault("api_key", "test-key")
    kw.setdefault("timeout", START_S)
    kw.setdefault("max_retries", 0)
    kw.setdefault(
        "http_client", DefaultAioHttpClient(timeout=kw["timeout"], verify=_certificates())
    )
    client = AsyncOpenAI(base_url=fake_llm.base_url, **kw)
    fake_llm._clients.append(client)
    return client
