"""Talking to an OpenAI-compatible server: one call in, one tolerant reply out.

The reply is read from the raw JSON rather than through the SDK's models, because servers
differ in ways the typed models do not expect: arguments sent as an object, calls without ids,
content as a list of parts or `null`, reasoning in `<think>` tags, errors inside a 200 reply.
Every failure leaves here as one of the `AgentError` subclasses.
"""

from __future__ import annotations

import json
import logging
import re
import socket
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import openai
from openai import AsyncOpenAI, DefaultAioHttpClient

from bot.agent.types import (
    AgentError,
    ContextOverflow,
    ModelAuthError,
    ModelBadReply,
    ModelRateLimited,
    ModelUnavailable,
)

if TYPE_CHECKING:
    from bot.config import Settings

logger = logging.getLogger(__name__)
_MAX_CAUSES = 8

_THINK_BLOCK = re.compile(r"<think(?:ing)?>.*?</think(?:ing)?>", re.DOTALL | re.IGNORECASE)
_LEADING_OPEN = re.compile(r"\A\s*<think(?:ing)?>", re.IGNORECASE)
_STRAY_CLOSE = re.compile(r"\A(?:(?!<think).)*?</think(?:ing)?>", re.DOTALL | re.IGNORECASE)
_CONTEXT_TOO_LONG = re.compile(
    r"context[_ ]length|maximum context|context window|too many tokens|prompt is too long"
    r"|input is too long|reduce the length|exceeds? the (?:model'?s? )?(?:maximum|max|limit)"
    r"|token limit|tokens? exceed|longer than the model|request too large|too long for"
    r"|tokens\W*\+.*must be <=|context size|exceed_context",
    re.IGNORECASE,
)
_MAX_DETAIL = 300


def build_client(settings: Settings) -> AsyncOpenAI:
    """The SDK client for the configured server, with its timeout and retry policy.

    It sends over aiohttp (the SDK's own transport for it): under many concurrent chats the
    default connection pool spends its time re-scanning waiting requests and reopening
    sockets, while aiohttp keeps up at a fraction of the CPU.
    """
    key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else "not-set"
    return AsyncOpenAI(
        api_key=key,
        base_url=settings.openai_base_url,
        timeout=settings.request_timeout,
        max_retries=settings.model_max_retries,
        http_client=DefaultAioHttpClient(timeout=settings.request_timeout),
    )


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

    def assistant_message(self, *, with_tools: bool = True) -> dict[str, Any]:
        """The message as it goes into the history and back to the model."""
        message: dict[str, Any] = {"role": "assistant", "content": self.text or None}
        if with_tools and self.tool_calls:
            message["tool_calls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments},
                }
                for call in self.tool_calls
            ]
        elif message["content"] is None:
            message["content"] = ""
        return message


def strip_reasoning(text: str) -> str:
    """Remove closed `<think>` blocks anywhere, an unclosed one only at the very start (the
    reply was cut off while reasoning), and the reasoning before a lone leading `</think>`
    (servers that put the opening tag in the prompt). An unclosed tag after some answer
    text is left alone: it may be what the answer is about."""
    text = _THINK_BLOCK.sub("", text)
    if _LEADING_OPEN.match(text):
        return ""
    return _STRAY_CLOSE.sub("", text, count=1).strip()


def is_context_error(text: str) -> bool:
    """Whether a server's error text says the prompt does not fit the window."""
    return bool(_CONTEXT_TOO_LONG.search(text))


class ModelClient:
    """Sends one chat request and returns a `ModelReply` or raises an `AgentError`.

    Remembers, per instance, whether the server wants `max_completion_tokens` instead of
    `max_tokens` (newer OpenAI models refuse the old name; many local servers only know it).
    """

    def __init__(self, client: AsyncOpenAI, model: str, max_output_tokens: int) -> None:
        self._client = client
        self._model = model
        self._max_output_tokens = max_output_tokens
        self._limit_param = "max_tokens"

    def _timeout_text(self) -> str:
        timeout = self._client.timeout
        if isinstance(timeout, int | float):
            return f"the model server did not answer within {timeout:g}s"
        return "the model server did not answer in time"

    async def complete(
        self,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]] | None,
        tool_choice: str | None = None,
    ) -> ModelReply:
        """One non-streamed completion; `tool_choice="none"` keeps the tools attached (some
        providers refuse a history with tool calls but no tools) while asking for text."""
        try:
            return await self._complete(messages, tools, tool_choice)
        except openai.BadRequestError as exc:
            if self._limit_param == "max_tokens" and "max_completion_tokens" in _detail(exc):
                logger.info("server wants max_completion_tokens; retrying with it")
                self._limit_param = "max_completion_tokens"
                try:
                    return await self._complete(messages, tools, tool_choice)
                except openai.OpenAIError as again:
                    raise self._translate(again) from again
            raise self._translate(exc) from exc
        except openai.OpenAIError as exc:
            raise self._translate(exc) from exc

    async def _complete(
        self,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]] | None,
        tool_choice: str | None,
    ) -> ModelReply:
        extra: dict[str, Any] = {self._limit_param: self._max_output_tokens}
        if tools:
            extra["tools"] = cast(Any, list(tools))
            if tool_choice is not None:
                extra["tool_choice"] = tool_choice
        raw = await self._client.chat.completions.with_raw_response.create(
            model=self._model,
            messages=cast(Any, list(messages)),
            **extra,
        )
        return self._parse(raw.content)

    def _parse(self, content: bytes) -> ModelReply:
        try:
            body = json.loads(content)
        except ValueError as exc:
            snippet = content[:80].decode("utf-8", "replace")
            msg = f"the model server sent something that is not JSON: {snippet!r}"
            raise ModelBadReply(self._scrub(msg)) from exc
        if not isinstance(body, dict):
            msg = "the model server sent JSON that is not a completion object"
            raise ModelBadReply(msg)
        if body.get("error") and not body.get("choices"):
            raise _error_in_body(body["error"], self._scrub)
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
        )

    def _scrub(self, text: str) -> str:
        key = self._client.api_key
        if key and len(key) >= 6:
            text = text.replace(key, "***")
        return text[:_MAX_DETAIL]

    def _translate(self, exc: openai.OpenAIError) -> AgentError:
        detail = self._scrub(_detail(exc))
        if isinstance(exc, openai.APIConnectionError):
            # Checked before the timeout: a transport may report a refused connection or an
            # unknown host as a timeout, and "did not answer within 60 s" after 0.06 s misleads.
            reason = _unreachable_reason(exc)
            if reason is not None:
                return ModelUnavailable(
                    f"cannot reach the model server at {self._client.base_url}: {reason}"
                )
        if isinstance(exc, openai.APITimeoutError):
            return ModelUnavailable(self._timeout_text())
        if isinstance(exc, openai.APIConnectionError):
            return ModelUnavailable(f"cannot reach the model server: {detail}")
        if isinstance(exc, openai.APIStatusError):
            return _status_error(exc.status_code, detail, _detail(exc))
        return ModelBadReply(f"the model server's reply could not be used: {detail}")


def _unreachable_reason(exc: BaseException) -> str | None:
    """Why no connection was made (refused, unknown host, no route), from the exception's
    causes; None when the connection was made, or the cause was only slowness."""
    causes: list[BaseException] = []
    seen: BaseException | None = exc
    while seen is not None and len(causes) < _MAX_CAUSES:
        causes.append(seen)
        inner = getattr(seen, "os_error", None)  # aiohttp keeps the socket's error here
        if isinstance(inner, BaseException):
            causes.append(inner)
        seen = seen.__cause__ or seen.__context__
    if any(isinstance(c, socket.gaierror) for c in causes):
        return "the host name could not be resolved"
    if any(isinstance(c, ConnectionRefusedError) for c in causes):
        return "the connection was refused (is the server running, on this port?)"
    for cause in causes:
        if isinstance(cause, OSError) and not isinstance(cause, TimeoutError) and cause.errno:
            return cause.strerror or f"network error {cause.errno}"
    return None


def _status_error(status: int, detail: str, raw_detail: str) -> AgentError:
    text = f"HTTP {status}: {detail}"
    if status in (400, 413, 422) and is_context_error(raw_detail):
        return ContextOverflow(text)
    if status in (401, 403):
        return ModelAuthError(text)
    if status == 404:
        return ModelAuthError(f"{text} (check MODEL and OPENAI_BASE_URL)")
    if status == 429:
        return ModelRateLimited(text)
    if status >= 500 or status in (408, 409):
        return ModelUnavailable(text)
    return ModelBadReply(f"the model server refused the request: {text}")


def _error_in_body(error: object, scrub: Any) -> AgentError:
    """Some gateways (OpenRouter among them) report upstream failures inside a 200 reply."""
    if isinstance(error, dict):
        message = str(error.get("message") or error)
        code = error.get("code")
    else:
        message, code = str(error), None
    if isinstance(code, str) and code.isdigit():
        code = int(code)
    status = code if isinstance(code, int) and 400 <= code < 600 else 502
    if isinstance(code, str) and "context_length" in code:
        status = 400
    return _status_error(status, scrub(message), f"{message} {code}")


def _detail(exc: openai.OpenAIError) -> str:
    if isinstance(exc, openai.APIStatusError):
        body = exc.body
        if isinstance(body, dict):
            inner = body.get("error", body)
            if isinstance(inner, dict):
                parts = [str(inner.get(k)) for k in ("message", "code", "type") if inner.get(k)]
                if parts:
                    return " | ".join(parts)
            return str(inner)
        if body is not None:
            return str(body)
    return str(getattr(exc, "message", None) or exc)


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
