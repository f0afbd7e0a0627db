"""Assembling a streamed completion from its server-sent chunks, as tolerant as the whole reply.

A stream arrives as `data: {json}` lines. Content comes in pieces; reasoning comes either as
`reasoning_content` (never shown) or inside `<think>` tags (hidden as they stream); tool calls
come in pieces keyed by `index` (the id and name usually in the first piece, the arguments
split over many, several calls interleaved); `finish_reason` comes near the end and `usage`,
when the server was asked for it, in a last chunk with no choices.

The assembler turns all of that back into the body a non-streamed reply would have had, so the
same parser reads both, and reports the visible answer text whenever it grows.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bot.agent.reasoning import strip_reasoning

DONE = "[DONE]"


class StreamGarbled(Exception):
    """A line of the stream is not what a streaming server sends (not JSON, not an object)."""


@dataclass
class _CallParts:
    """The pieces of one tool call seen so far."""

    id: str | None = None
    name: str = ""
    arguments: str = ""
    arguments_object: Any = None


@dataclass
class StreamAssembler:
    """Collects chunks; `visible` is the answer text a person may see so far.

    Text is only "visible" while no tool call has appeared in the reply: a model that thinks
    aloud before calling tools is not answering yet.
    """

    content: list[str] = field(default_factory=list)
    refusal: list[str] = field(default_factory=list)
    calls: dict[int, _CallParts] = field(default_factory=dict)
    finish_reason: str | None = None
    usage: dict[str, Any] | None = None
    error: Any = None
    done: bool = False
    chunks: int = 0
    visible: str = ""

    def feed_line(self, line: str) -> bool:
        """Take one line of the stream; True when the visible text changed."""
        line = line.strip()
        if not line or line.startswith(":") or not line.startswith("data:"):
            return False  # blank keep-alives, comments, and `event:`/`id:` fields
        data = line[len("data:") :].strip()
        if data == DONE:
            self.done = True
            return False
        try:
            chunk = json.loads(data)
        except ValueError as exc:
            raise StreamGarbled(data[:80]) from exc
        if not isinstance(chunk, dict):
            raise StreamGarbled(data[:80])
        return self.feed(chunk)

    def feed(self, chunk: Mapping[str, Any]) -> bool:
        """Take one decoded chunk; True when the visible text changed."""
        self.chunks += 1
        if chunk.get("error") and not chunk.get("choices"):
            self.error = chunk["error"]
            return False
        if isinstance(chunk.get("usage"), dict):
            self.usage = chunk["usage"]
        choices = chunk.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            return False
        choice = choices[0]
        if isinstance(choice.get("finish_reason"), str):
            self.finish_reason = choice["finish_reason"]
        delta: dict[str, Any] = {}
        for key in ("delta", "message"):  # some servers stream whole messages
            if isinstance(choice.get(key), dict):
                delta = choice[key]
                break
        self._take_content(delta.get("content"))
        if isinstance(delta.get("refusal"), str):
            self.refusal.append(delta["refusal"])
        self._take_calls(delta)
        return self._update_visible()

    @property
    def ended(self) -> bool:
        """Whether the stream said it was complete (a finish reason or `[DONE]`)."""
        return self.done or self.finish_reason is not None

    def body(self) -> dict[str, Any]:
        """The completion body a non-streamed reply would have had."""
        message: dict[str, Any] = {"role": "assistant", "content": "".join(self.content)}
        if self.refusal:
            message["refusal"] = "".join(self.refusal)
        calls = [self._call_json(i, parts) for i, parts in sorted(self.calls.items())]
        if calls:
            message["tool_calls"] = calls
        body: dict[str, Any] = {
            "choices": [{"index": 0, "message": message, "finish_reason": self.finish_reason}]
        }
        if self.usage is not None:
            body["usage"] = self.usage
        return body

    def _take_content(self, content: object) -> None:
        if isinstance(content, str):
            self.content.append(content)
        elif isinstance(content, list):
            for part in content:
                if isinstance(part, str):
                    self.content.append(part)
                elif isinstance(part, dict) and isinstance(part.get("text"), str):
                    self.content.append(part["text"])

    def _take_calls(self, delta: Mapping[str, Any]) -> None:
        raw_calls = delta.get("tool_calls")
        if not raw_calls and isinstance(delta.get("function_call"), dict):
            raw_calls = [{"index": 0, "function": delta["function_call"]}]
        if not isinstance(raw_calls, list):
            return
        for position, raw in enumerate(raw_calls):
            if not isinstance(raw, dict):
                continue
            index = raw.get("index")
            if not isinstance(index, int) or isinstance(index, bool):
                index = position
            parts = self.calls.setdefault(index, _CallParts())
            if isinstance(raw.get("id"), str) and raw["id"]:
                parts.id = raw["id"]
            function: dict[str, Any] = (
                raw["function"] if isinstance(raw.get("function"), dict) else raw
            )
            if isinstance(function.get("name"), str):
                parts.name += function["name"]
            arguments = function.get("arguments")
            if isinstance(arguments, str):
                parts.arguments += arguments
            elif arguments is not None:
                parts.arguments_object = arguments

    @staticmethod
    def _call_json(index: int, parts: _CallParts) -> dict[str, Any]:
        arguments: Any = parts.arguments
        if not arguments and parts.arguments_object is not None:
            arguments = parts.arguments_object
        call: dict[str, Any] = {
            "type": "function",
            "index": index,
            "function": {"name": parts.name, "arguments": arguments},
        }
        if parts.id is not None:
            call["id"] = parts.id
        return call

    def _update_visible(self) -> bool:
        text = "" if self.calls else strip_reasoning("".join(self.content))
        if text == self.visible:
            return False
        self.visible = text
        return True
