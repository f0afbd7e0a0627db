"""Assembling a streamed completion from its server-sent chunks, as tolerant as the whole reply.

A stream arrives as `data: {json}` lines. Content comes in pieces; reasoning comes either as
`reasoning_content` (never shown) or inside `<think>` tags (hidden as they stream); tool calls
come in pieces keyed by `index`, several calls interleaved; `finish_reason` comes near the end
and `usage`, when the server was asked for it (and gives it), in a last chunk with no choices.

Servers disagree on how a call's pieces look, and every dialect is read the same way: a call's
id and name are set once (OpenAI sends them in the first piece only; llama-cpp-python repeats
both in every piece, so a repeat is not appended), and only its arguments grow. A piece without
an `index` continues the call it names by id, or the latest call; a new id, or a name arriving
for a call whose arguments are already complete, starts the next call (servers that send each
call whole, all at index 0). Arguments may arrive as an object instead of JSON text.

The assembler turns all of that back into the body a non-streamed reply would have had, so the
same parser reads both, and reports the visible answer text whenever it grows.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bot.agent.replies import strip_reasoning

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

    @property
    def complete(self) -> bool:
        """Whether the arguments so far are a whole JSON value (or came as an object)."""
        if self.arguments_object is not None:
            return True
        if not self.arguments.strip():
            return False
        try:
            json.loads(self.arguments)
        except ValueError:
            return False
        return True


@dataclass(frozen=True, slots=True)
class _Piece:
    """What one streamed piece of a call says about which call it is."""

    id: str | None
    name: str
    has_arguments: bool

    def starts_another(self, parts: _CallParts) -> bool:
        """Whether this piece cannot continue `parts`: it carries another id, or, once the
        arguments of `parts` are whole, a name with arguments of its own (a repeat of the
        same name with nothing to add is a repeat, not a new call)."""
        if self.id is not None and parts.id is not None:
            return self.id != parts.id
        if not self.name or not parts.name or not parts.complete:
            return False
        return self.name != parts.name or self.has_arguments


@dataclass
class StreamAssembler:
    """Collects chunks; `visible` is the answer text a person may see so far.

    Text is only "visible" while no tool call has appeared in the reply: a model that thinks
    aloud before calling tools is not answering yet.
    """

    content: list[str] = field(default_factory=list)
    refusal: list[str] = field(default_factory=list)
    calls: list[_CallParts] = field(default_factory=list)
    """The calls in the order they first appeared."""
    _by_index: dict[int, _CallParts] = field(default_factory=dict, repr=False)
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
        calls = [self._call_json(i, parts) for i, parts in enumerate(self.calls)]
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
            raw_calls = [{"function": delta["function_call"]}]
        if not isinstance(raw_calls, list):
            return
        for raw in raw_calls:
            if not isinstance(raw, dict):
                continue
            function: dict[str, Any] = (
                raw["function"] if isinstance(raw.get("function"), dict) else raw
            )
            call_id = raw["id"] if isinstance(raw.get("id"), str) and raw["id"] else None
            name = function["name"] if isinstance(function.get("name"), str) else ""
            arguments = function.get("arguments")
            piece = _Piece(call_id, name, arguments not in (None, ""))
            parts = self._parts_for(raw.get("index"), piece)
            if call_id is not None and parts.id is None:
                parts.id = call_id
            if name and not parts.name:
                parts.name = name
            if isinstance(arguments, str):
                parts.arguments += arguments
            elif arguments is not None:
                parts.arguments_object = arguments

    def _parts_for(self, index: object, piece: _Piece) -> _CallParts:
        """The call a piece belongs to (see the module's docstring), made when it is new.

        Calls are kept in the order they first appeared; the server's `index` only says which
        of them a piece continues, as long as the piece does not plainly start another call.
        """
        if piece.id is not None:
            for parts in self.calls:
                if parts.id == piece.id:
                    return parts
        if isinstance(index, int) and not isinstance(index, bool):
            known = self._by_index.get(index)
            if known is not None and not piece.starts_another(known):
                return known
            made = self._new_call()
            self._by_index[index] = made
            return made
        latest = self.calls[-1] if self.calls else None
        if latest is None or piece.starts_another(latest):
            return self._new_call()
        return latest

    def _new_call(self) -> _CallParts:
        parts = _CallParts()
        self.calls.append(parts)
        return parts

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
