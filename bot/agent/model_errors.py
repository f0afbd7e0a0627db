"""What a failed model call means: SDK and server errors as the agent's own error families.

Every failure of a model call leaves the model client as one `AgentError` subclass with a
short text for the log that never carries the key: unreachable (with the URL tried) is told
apart from slow, a key refused from a model unknown, a full window from a bad request.
"""

from __future__ import annotations

import re
import socket
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from bot.agent.types import (
    AgentError,
    ContextOverflow,
    ModelAuthError,
    ModelBadReply,
    ModelRateLimited,
    ModelUnavailable,
)

if TYPE_CHECKING:
    import openai

_MAX_CAUSES = 8
_CONTEXT_TOO_LONG = re.compile(
    r"context[_ ]length|maximum context|context window|too many tokens|prompt is too long"
    r"|input is too long|reduce the length|exceeds? the (?:model'?s? )?(?:maximum|max|limit)"
    r"|token limit|tokens? exceed|longer than the model|request too large|too long for"
    r"|tokens\W*\+.*must be <=|context size|exceed_context",
    re.IGNORECASE,
)


def is_context_error(text: str) -> bool:
    """Whether a server's error text says the prompt does not fit the window."""
    return bool(_CONTEXT_TOO_LONG.search(text))


def translate(
    exc: openai.OpenAIError,
    *,
    scrub: Callable[[str], str],
    base_url: object,
    timeout_text: str,
) -> AgentError:
    """The `AgentError` for an SDK failure; `scrub` removes the key from texts."""
    import openai  # noqa: PLC0415 - loaded already: the SDK raised `exc`

    detail = scrub(detail_of(exc))
    if isinstance(exc, openai.APIConnectionError):
        # Checked before the timeout: a transport may report a refused connection or an
        # unknown host as a timeout, and "did not answer within 60 s" after 0.06 s misleads.
        reason = _unreachable_reason(exc)
        if reason is not None:
            return ModelUnavailable(f"cannot reach the model server at {base_url}: {reason}")
    if isinstance(exc, openai.APITimeoutError):
        return ModelUnavailable(timeout_text)
    if isinstance(exc, openai.APIConnectionError):
        return ModelUnavailable(f"cannot reach the model server: {detail}")
    if isinstance(exc, openai.APIStatusError):
        return _status_error(exc.status_code, detail, detail_of(exc))
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


def error_in_body(error: object, scrub: Any) -> AgentError:
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


def detail_of(exc: openai.OpenAIError) -> str:
    import openai  # noqa: PLC0415 - loaded already (it raised `exc`)

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
