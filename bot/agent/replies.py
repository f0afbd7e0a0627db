"""A model's reply as the loop uses it, read tolerantly from a completion body.

Servers differ in ways typed models do not expect: arguments sent as an object, calls without
ids, content as a list of parts or `null`, reasoning in `<think>` tags, errors inside a 200
reply. The same reader serves whole replies and streamed ones reassembled.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from bot.agent.model_errors import error_in_body
from bot.agent.types import ModelBadReply


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One call the model asked for; `arguments` is JSON text exactly as it will be echoed."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True, slots=True)
class ModelReply:
    """What one model call produced, already cleaned of provider quirks."""

    text: str
    tool_calls: tuple[ToolCall, ...]
    finish_reason: str | None
    prompt_tokens: int | None
    completion_tokens: int | None
    cached_tokens: int = 0
    """Prompt tokens the server had cached, where it says (0 when it does not)."""

    def assistant_message(self, *, with_tools: bool = True) -> dict[str, Any]:
        """The message as it goes into the history and back to the model.

        Its content is a string even beside tool calls: OpenAI takes `""` as well as `null`
        there, but llama-cpp-python's server refuses `null` (and a message without the key).
        """
        message: dict[str, Any] = {"role": "assistant", "content": self.text}
        if with_tools and self.tool_calls:
            message["tool_calls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments},
                }
                for call in self.tool_calls
            ]
        return message


def reply_from(body: object, scrub: Callable[[str], str]) -> ModelReply:
    """The reply in a completion body, cleaned of provider quirks; raises `ModelBadReply`."""
    if not isinstance(body, dict):
        msg = "the model server sent JSON that is not a completion object"
        raise ModelBadReply(msg)
    if body.get("error") and not body.get("choices"):
        raise error_in_body(body["error"], scrub)
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        msg = "the model server sent a completion with no choices"
        raise ModelBadReply(msg)
    choice = choices[0]
    message = choice.get("message")
    if not isinstance(message, dict):
        msg = "the model server sent a choice with no message"
        raise ModelBadReply(msg)
    usage: dict[str, Any] = body["usage"] if isinstance(body.get("usage"), dict) else {}
    text = strip_reasoning(_content_text(message.get("content")))
    if not text and isinstance(message.get("refusal"), str):
        text = message["refusal"].strip()
    return ModelReply(
        text=text,
        tool_calls=_tool_calls(message),
        finish_reason=_optional_str(choice.get("finish_reason")),
        prompt_tokens=_optional_int(usage.get("prompt_tokens")),
        completion_tokens=_optional_int(usage.get("completion_tokens")),
        cached_tokens=_cached_tokens(usage),
    )


def _cached_tokens(usage: dict[str, Any]) -> int:
    """`prompt_tokens_details.cached_tokens` as OpenAI reports it (others send none)."""
    details = usage.get("prompt_tokens_details")
    if not isinstance(details, dict):
        return 0
    return _optional_int(details.get("cached_tokens")) or 0


def _content_text(content: object) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                parts.append(part["text"])
        return "".join(parts)
    return str(content)


def _tool_calls(message: Mapping[str, Any]) -> tuple[ToolCall, ...]:
    raw_calls = message.get("tool_calls")
    if not raw_calls and isinstance(message.get("function_call"), dict):
        raw_calls = [{"function": message["function_call"]}]
    if not isinstance(raw_calls, list):
        return ()
    calls = []
    seen: set[str] = set()
    for raw in raw_calls:
        if not isinstance(raw, dict):
            continue
        function: dict[str, Any] = (
            raw["function"] if isinstance(raw.get("function"), dict) else raw
        )
        name = function.get("name")
        name = name.strip() if isinstance(name, str) and name.strip() else "(missing name)"
        call_id = raw.get("id")
        if not isinstance(call_id, str) or not call_id.strip() or call_id in seen:
            # Missing, empty or repeated within the reply: results could not be matched.
            call_id = f"call_{uuid.uuid4().hex[:24]}"
        seen.add(call_id)
        calls.append(ToolCall(id=call_id, name=name, arguments=_arguments_text(function)))
    return tuple(calls)


def _arguments_text(function: Mapping[str, Any]) -> str:
    arguments = function.get("arguments", function.get("parameters"))
    if arguments is None:
        return "{}"
    if isinstance(arguments, str):
        return arguments if arguments.strip() else "{}"
    return json.dumps(arguments, ensure_ascii=False)


def _optional_int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _optional_str(value: object) -> str | None:
    return value if isinstance(value, str) else None


_THINK_BLOCK = re.compile(r"<think(?:ing)?>.*?</think(?:ing)?>", re.DOTALL | re.IGNORECASE)
_LEADING_OPEN = re.compile(r"\A\s*<think(?:ing)?>", re.IGNORECASE)
_STRAY_CLOSE = re.compile(r"\A(?:(?!<think).)*?</think(?:ing)?>", re.DOTALL | re.IGNORECASE)
_ANY_TAG = re.compile(r"</?think", re.IGNORECASE)


def strip_reasoning(text: str) -> str:
    """Remove closed `<think>` blocks anywhere, an unclosed one only at the very start (the
    reply was cut off while reasoning), and the reasoning before a lone leading `</think>`
    (servers that put the opening tag in the prompt). An unclosed tag after some answer
    text is left alone: it may be what the answer is about.

    A text with no such tag returns at once: a streamed answer is stripped again at every
    delta, and the patterns cost a hundred times the plain search on a long answer."""
    if not _ANY_TAG.search(text):
        return text.strip()
    text = _THINK_BLOCK.sub("", text)
    if _LEADING_OPEN.match(text):
        return ""
    return _STRAY_CLOSE.sub("", text, count=1).strip()
