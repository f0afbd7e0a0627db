"""A streamed completion read with nothing but the SDK, as the floors of `loop` and
`concurrency` read it: the deltas joined into the assistant's message."""

from __future__ import annotations

from collections.abc import AsyncIterable
from typing import Any

from openai.types.chat import ChatCompletionChunk


async def join_stream(stream: AsyncIterable[ChatCompletionChunk]) -> dict[str, Any]:
    """The assistant message the deltas of `stream` make: its text and, when the model asked
    for any, its tool calls in the order of their index (a name a server repeats in every
    delta is taken once)."""
    text: list[str] = []
    calls: dict[int, dict[str, Any]] = {}
    async for chunk in stream:
        if not chunk.choices:
            continue
        delta = chunk.choices[0].delta
        if delta.content:
            text.append(delta.content)
        for part in delta.tool_calls or []:
            blank = {"name": "", "arguments": ""}
            call = calls.setdefault(part.index, {"id": "", "type": "function", "function": blank})
            call["id"] = part.id or call["id"]
            if part.function is not None:
                call["function"]["name"] = part.function.name or call["function"]["name"]
                call["function"]["arguments"] += part.function.arguments or ""
    message: dict[str, Any] = {"role": "assistant", "content": "".join(text)}
    if calls:
        message["tool_calls"] = [calls[index] for index in sorted(calls)]
    return message
