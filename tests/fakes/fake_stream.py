"""How the fake model server streams a completion: server-sent events shaped like OpenAI's.

The content is cut into pieces of `content_chars` characters; each tool call is sent as a
first piece with its index, id and name, then its arguments in pieces, the calls interleaved;
the finish reason comes in a last choice, `usage` (when `stream_options.include_usage` asks
for it) in a chunk with no choices, then `data: [DONE]`. `delay_s` paces the pieces, which is
how tests and benchmarks watch an answer grow.
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


@dataclass
class Streaming:
    """The server's streaming behaviour; `refuse` answers streamed requests with a 400."""

    content_chars: int = 8
    argument_chars: int = 10
    delay_s: float = 0.0
    refuse: bool = False


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
        if streaming.delay_s:
            await asyncio.sleep(streaming.delay_s)
    await response.write(b"data: [DONE]\n\n")
    await response.write_eof()
    return response
