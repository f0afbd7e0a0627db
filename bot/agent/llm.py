"""Talking to an OpenAI-compatible server: one call in, one tolerant reply out.

The reply is read from the raw JSON rather than through the SDK's models (`bot.agent.replies`
reads it), whole or streamed (`bot.agent.streaming` reassembles a stream). Every failure leaves
here as one of the `AgentError` subclasses (`bot.agent.model_errors`).
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import aiohttp
import anyio
import httpx2
import openai
from openai import AsyncOpenAI, DefaultAioHttpClient

from bot.agent.model_errors import detail_of, error_in_body, translate
from bot.agent.replies import ModelReply, reply_from
from bot.agent.streaming import StreamAssembler, StreamGarbled
from bot.agent.types import (
    AgentError,
    ImagesRefused,
    ModelBadReply,
    ModelStreamCut,
    ModelUnavailable,
)
from bot.agent.vision import refuses_images

if TYPE_CHECKING:
    from openai._response import AsyncAPIResponse

    from bot.settings.fallbacks import FallbackModel
    from bot.settings.model import Settings

logger = logging.getLogger(__name__)
_MAX_DETAIL = 300
_DRAIN_S = 1.0


def build_client(settings: Settings, fallback: FallbackModel | None = None) -> AsyncOpenAI:
    """The SDK client for the configured server (or `fallback`'s), with its timeout and retry
    policy.

    It sends over aiohttp (the SDK's own transport for it): under many concurrent chats the
    default connection pool spends its time re-scanning waiting requests and reopening
    sockets, while aiohttp keeps up at a fraction of the CPU.
    """
    secret = settings.openai_api_key if fallback is None else fallback.api_key
    url = settings.openai_base_url if fallback is None else fallback.base_url
    if fallback is not None and url is None:
        url = settings.openai_base_url
    return AsyncOpenAI(
        api_key=secret.get_secret_value() if secret is not None else "not-set",
        base_url=url,
        timeout=settings.request_timeout,
        max_retries=settings.model_max_retries,
        http_client=DefaultAioHttpClient(timeout=settings.request_timeout),
    )


ToolChoice = str | Mapping[str, Any] | None
"""`tool_choice` as sent: None sends none (the server's default), else as given."""

TextListener = Callable[[str], Awaitable[None]]
"""Hears the visible answer text of a streamed reply each time it changes."""


_TRANSPORT_ERRORS = (OSError, httpx2.HTTPError, aiohttp.ClientError, EOFError)
"""What a connection that breaks while a body is read raises below the SDK."""


_TOOL_CHOICE = re.compile(r"tool[_ ]choice", re.IGNORECASE)
"""A refusal that names `tool_choice` (a server that does not take the parameter)."""

_NO_STREAMING = re.compile(
    r"\bstream\w*\W+(?:\w+\W+){0,4}?(?:is |are )?(?:not supported|unsupported|not implemented)"
    r"|(?:does not|doesn't|cannot|can't) (?:support )?stream\w*",
    re.IGNORECASE,
)
"""An error of any status that says streaming is not supported for this request."""


class _StreamRefused(Exception):
    """The server will not stream, or sent a stream that cannot be read: send it whole."""


class ModelClient:
    """Sends one chat request and returns a `ModelReply` or raises an `AgentError`.

    Remembers, per instance, whether the server wants `max_completion_tokens` instead of
    `max_tokens` (newer OpenAI models refuse the old name; many local servers only know it),
    and, with `stream="auto"`, whether it can stream: a server that refuses a streamed request
    (llama-cpp-python answers a streamed call of a tool with HTTP 500, "Automatic streaming
    tool choice is not supported") or sends a stream that cannot be read gets the same call
    again whole, and every later call is sent whole too. `stream="on"` never falls back;
    `"off"` never streams.

    Tools go with `tool_choice: "auto"` unless the caller chose otherwise: it is OpenAI's
    default, but llama-cpp-python's server ignores the tools of a request without it. A server
    that refuses the parameter is asked again without it, and never sent it again.
    """

    def __init__(
        self, client: AsyncOpenAI, model: str, max_output_tokens: int, *, stream: str = "auto"
    ) -> None:
        self._client = client
        self._model = model
        self._max_output_tokens = max_output_tokens
        self._limit_param = "max_tokens"
        self._stream_mode = stream
        self._streams = stream != "off"
        self._usage_option = True
        self._auto_choice = True

    @property
    def streams(self) -> bool:
        """Whether calls with a text listener are streamed (False once a server refused)."""
        return self._streams

    def _timeout_text(self) -> str:
        timeout = self._client.timeout
        if isinstance(timeout, int | float):
            return f"the model server did not answer within {timeout:g}s"
        return "the model server did not answer in time"

    async def complete(
        self,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]] | None,
        tool_choice: ToolChoice = None,
        on_text: TextListener | None = None,
        *,
        max_tokens: int | None = None,
    ) -> ModelReply:
        """One completion; `tool_choice="none"` keeps the tools attached (some providers
        refuse a history with tool calls but no tools) while asking for text; a mapping names
        one function the model must call (`python -m bot check` uses it).

        With `on_text`, the reply is streamed when the server can, and `on_text` hears the
        visible answer text each time it changes (it may shrink back to "" when the reply
        turns out to call tools, or when a broken stream is retried whole). `max_tokens`
        caps this reply below the usual limit (a picture's one-sentence description).
        """
        limit = self._max_output_tokens if max_tokens is None else max_tokens
        if on_text is not None and self._streams:
            try:
                return await self._translated(
                    lambda: self._stream(messages, tools, tool_choice, on_text, limit), tool_choice
                )
            except _StreamRefused as exc:
                if self._stream_mode == "on":
                    msg = f"the model server cannot stream (STREAM=on): {exc}"
                    raise ModelBadReply(self._scrub(msg)) from exc
                logger.warning(
                    "the model server cannot stream (%s); answers are sent whole from now on",
                    self._scrub(str(exc)),
                )
                self._streams = False
                await on_text("")
        return await self._translated(
            lambda: self._complete(messages, tools, tool_choice, limit), tool_choice
        )

    async def _translated(
        self, call: Callable[[], Awaitable[ModelReply]], tool_choice: ToolChoice = None
    ) -> ModelReply:
        """Run `call`, learning `max_completion_tokens` once, or that the server refuses an
        implicit `tool_choice`, with SDK errors translated."""
        try:
            return await call()
        except openai.BadRequestError as exc:
            detail = detail_of(exc)
            if self._limit_param == "max_tokens" and "max_completion_tokens" in detail:
                logger.info("server wants max_completion_tokens; retrying with it")
                self._limit_param = "max_completion_tokens"
            elif tool_choice is None and self._auto_choice and _TOOL_CHOICE.search(detail):
                logger.info("server refuses tool_choice; retrying without it")
                self._auto_choice = False
            else:
                raise self._translate(exc) from exc
            try:
                return await call()
            except openai.OpenAIError as again:
                raise self._translate(again) from again
        except openai.OpenAIError as exc:
            raise self._translate(exc) from exc

    def _request(
        self,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]] | None,
        tool_choice: ToolChoice,
        limit: int,
    ) -> dict[str, Any]:
        """The SDK's arguments, with the body given as `extra_body`.

        Passed as parameters, the messages and tool specs would be walked, key by key, against
        the SDK's type hints and copied before every call: under many chats that walk costs
        more CPU than the HTTP call itself. They are plain JSON already, so they go as
        `extra_body`, which the SDK sends as it is.
        """
        body: dict[str, Any] = {
            "messages": list(messages),
            self._limit_param: limit,
        }
        if tools:
            body["tools"] = list(tools)
            if tool_choice is not None:
                body["tool_choice"] = (
                    tool_choice if isinstance(tool_choice, str) else dict(tool_choice)
                )
            elif self._auto_choice:
                body["tool_choice"] = "auto"
        return {"model": self._model, "messages": (), "extra_body": body}

    async def _complete(
        self,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]] | None,
        tool_choice: ToolChoice,
        limit: int,
    ) -> ModelReply:
        raw = await self._client.chat.completions.with_raw_response.create(
            **self._request(messages, tools, tool_choice, limit)
        )
        return self._parse(raw.content)

    async def _stream(
        self,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]] | None,
        tool_choice: ToolChoice,
        on_text: TextListener,
        limit: int,
    ) -> ModelReply:
        request = self._request(messages, tools, tool_choice, limit)
        if self._usage_option:
            request["extra_body"]["stream_options"] = {"include_usage": True}
        try:
            async with self._client.chat.completions.with_streaming_response.create(
                **request, stream=True
            ) as response:
                if "text/event-stream" not in response.headers.get("content-type", ""):
                    return self._parse(await self._read_whole(response))  # answered whole
                assembler = StreamAssembler()
                await self._read_stream(response.iter_lines(), assembler, on_text)
        except openai.BadRequestError as exc:
            detail = detail_of(exc).lower()
            if self._usage_option and "stream_options" in detail:
                self._usage_option = False  # older servers know streams but not this option
                return await self._stream(messages, tools, tool_choice, on_text, limit)
            if "stream" in detail and "max_completion_tokens" not in detail:
                raise _StreamRefused(detail_of(exc)) from exc
            raise
        except openai.APIStatusError as exc:
            if _NO_STREAMING.search(detail_of(exc)):
                raise _StreamRefused(detail_of(exc)) from exc
            raise
        if assembler.error is not None:
            raise error_in_body(assembler.error, self._scrub)
        return reply_from(assembler.body(), self._scrub)

    @staticmethod
    async def _read_whole(response: AsyncAPIResponse[Any]) -> bytes:
        """The body of a reply that came whole to a streamed request."""
        try:
            return await response.read()
        except openai.OpenAIError:
            raise
        except _TRANSPORT_ERRORS as exc:
            msg = f"the model server's reply was cut off ({type(exc).__name__})"
            raise ModelUnavailable(msg) from exc

    async def _read_stream(
        self, lines: AsyncIterator[str], assembler: StreamAssembler, on_text: TextListener
    ) -> None:
        """Feed every line to `assembler`; a stream that stops before it says it is complete
        was cut off, and one that cannot be read is refused (to be sent whole instead)."""
        try:
            async for line in lines:
                if assembler.feed_line(line):
                    await on_text(assembler.visible)
                if assembler.done or assembler.error is not None:
                    await self._drain(lines)
                    return
        except StreamGarbled as exc:
            raise _StreamRefused(f"a line of the stream is not JSON: {exc}") from exc
        except openai.OpenAIError:
            raise
        except _TRANSPORT_ERRORS as exc:
            msg = f"the model's answer was cut off mid-stream ({type(exc).__name__})"
            raise ModelStreamCut(msg, assembler.visible) from exc
        if not assembler.ended and not assembler.chunks:
            # llama-cpp-python does this when the model chooses a tool in a stream: it fails
            # after sending the headers ("Automatic streaming tool choice is not supported")
            msg = "the server closed a streamed reply before sending any of it"
            raise _StreamRefused(msg)
        if not assembler.ended:
            msg = "the model's answer was cut off mid-stream (the connection closed early)"
            raise ModelStreamCut(msg, assembler.visible)

    @staticmethod
    async def _drain(lines: AsyncIterator[str]) -> None:
        """Read what follows the end of a stream (its closing chunk), briefly.

        A response left unread to its end costs its connection: the next call would open a
        new one. A server that keeps sending after the end is cut off; its connection goes.

        The bound is an anyio scope, not `asyncio.timeout`: reading the end hands the
        connection back to the pool, which then closes its expired idle connections under an
        anyio shield. A plain task cancellation goes through that shield, so a bound running
        out there (a busy machine) left the rest of those connections open, never closed.
        """
        with contextlib.suppress(*_TRANSPORT_ERRORS, openai.OpenAIError):
            with anyio.move_on_after(_DRAIN_S):
                async for _ in lines:
                    pass

    def _parse(self, content: bytes) -> ModelReply:
        try:
            body = json.loads(content)
        except ValueError as exc:
            snippet = content[:80].decode("utf-8", "replace")
            msg = f"the model server sent something that is not JSON: {snippet!r}"
            raise ModelBadReply(self._scrub(msg)) from exc
        return reply_from(body, self._scrub)

    def _translate(self, exc: openai.OpenAIError) -> AgentError:
        if isinstance(exc, openai.APIStatusError) and refuses_images(detail_of(exc)):
            msg = f"HTTP {exc.status_code}: {detail_of(exc)}"
            return ImagesRefused(self._scrub(msg), self._model)
        return translate(
            exc,
            scrub=self._scrub,
            base_url=self._client.base_url,
            timeout_text=self._timeout_text(),
        )

    def _scrub(self, text: str) -> str:
        key = self._client.api_key
        if key and len(key) >= 6:
            text = text.replace(key, "***")
        return text[:_MAX_DETAIL]
