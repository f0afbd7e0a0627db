"""How the fake model server streams a completion: server-sent events shaped like OpenAI's.

The content is cut into pieces of `content_chars` characters; each tool call is sent as a
first piece with its index, id and name, then its arguments in pieces, the calls interleaved;
the finish reason comes in a last choice, `usage` (when `stream_options.include_usage` asks
for it) in a chunk with no choices, then `data: [DONE]`. `delay_s` paces the pieces, which is
how tests and benchmarks watch an answer grow; a `StreamHold` stops the stream part way until
the test lets it go on, so a test can look at the chat while the answer is surely unfinished.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from aiohttp import web

if TYPE_CHECKING:
    from tests.fakes.fake_llm import Reply


class StreamHold:
    """Holds a streamed answer once `after_chars` characters of its content are out, until
    `release()`; `reached()` returns once a stream is held there."""

    def __init__(self, after_chars: int) -> None:
        self.after_chars = after_chars
        self._reached = asyncio.Event()
        self._released = asyncio.Event()

    async def reached(self) -> None:
        await self._reached.wait()

    def release(self) -> None:
        self._released.set()

    async def pass_point(self, chars_out: int) -> None:
        """Called by the server as content goes out: waits here while the hold applies."""
        if chars_out >= self.after_chars and not self._released.is_set():
            self._reached.set()
            await self._released.wait()


@dataclass
class Streaming:
    """The server's streaming behaviour; `refuse` answers streamed requests with a 400."""

    content_chars: int = 8
    argument_chars: int = 10
    delay_s: float = 0.0
    refuse: bool = False
    hold: StreamHold | None = None


def stream_chunks(
    completion: Mapping[str, Any], request: Mapping[str, Any], streaming: Streaming
) -> Iterator[dict[str, Any]]:
    """The `chat.completion.chunk` objects that add up to `completion`."""
    choice = completion["choices"][0]
    message = choice.get("message") or {}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": completion.get("id", "chatcmpl-fake"),
            "object": "chat.completion.chunk",
            "created": completion.get("created", 0),
            "model": completion.get("model"),
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}],
        }

    yield chunk({"role": "assistant", "content": ""})
    content = message.get("content")
    if isinstance(content, str):
        step = max(1, streaming.content_chars)
        for start in range(0, len(content), step):
            yield chunk({"content": content[start : start + step]})
    yield from _call_chunks(message.get("tool_calls") or [], streaming, chunk)
    yield chunk({}, choice.get("finish_reason"))
    options = request.get("stream_options")
    if isinstance(options, Mapping) and options.get("include_usage") and completion.get("usage"):
        yield {**chunk({}), "choices": [], "usage": completion["usage"]}


def _call_chunks(
    calls: list[dict[str, Any]], streaming: Streaming, chunk: Any
) -> Iterator[dict[str, Any]]:
    """Each call's head first, then the arguments of all calls in interleaved pieces."""
    pieces: list[list[str]] = []
    for index, call in enumerate(calls):
        function = call.get("function") or {}
        head: dict[str, Any] = {
            "index": index,
            "type": "function",
            "function": {"name": function.get("name"), "arguments": ""},
        }
        if "id" in call:
            head["id"] = call["id"]
        yield chunk({"tool_calls": [head]})
        arguments = function.get("arguments")
        if not isinstance(arguments, str):  # servers that send the object keep doing so
            yield chunk({"tool_calls": [{"index": index, "function": {"arguments": arguments}}]})
            pieces.append([])
            continue
        step = max(1, streaming.argument_chars)
        pieces.append([arguments[i : i + step] for i in range(0, len(arguments), step)])
    for round_ in range(max((len(p) for p in pieces), default=0)):
        for index, parts in enumerate(pieces):
            if round_ < len(parts):
                delta = {"index": index, "function": {"arguments": parts[round_]}}
                yield chunk({"tool_calls": [delta]})


async def send_stream(
    request: web.Request,
    completion: Mapping[str, Any],
    body: Mapping[str, Any],
    reply: Reply,
    streaming: Streaming,
) -> web.StreamResponse:
    """Write the events; a cut stream ends without a finish reason or `[DONE]`."""
    response = web.StreamResponse(
        status=200, headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
    )
    await response.prepare(request)
    content_out = 0
    for sent, event in enumerate(stream_chunks(completion, body, streaming)):
        if reply.cut_after is not None and sent >= reply.cut_after:
            assert request.transport is not None
            request.transport.close()  # the connection drops in the middle of the answer
            return response
        if reply.garble_after is not None and sent >= reply.garble_after:
            await response.write(b"data: {this is not json\n\n")
            await response.write_eof()
            return response
        await response.write(b"data: " + json.dumps(event, ensure_ascii=False).encode() + b"\n\n")
        if streaming.hold is not None:
            content_out += sum(len(c["delta"].get("content") or "") for c in event["choices"])
            await streaming.hold.pass_point(content_out)
        if streaming.delay_s:
            await asyncio.sleep(streaming.delay_s)
    await response.write(b"data: [DONE]\n\n")
    await response.write_eof()
    return response
