"""Whether MODEL can do what every question needs: call a tool, take its result, answer.

A server that lists the model may still never call a tool (a chat format without function
calling), garble a streamed call, or refuse the `tool` message that carries a result back; the
bot would then answer without its documents, or not at all. So one small round trip is made
through the bot's own model client, streamed when the bot streams: a request with one tiny
tool (`get_time`, defined only here), the call that comes back, its result sent the way the
loop sends it (the assistant message with the call, then a `tool` message), and an answer.

The first request is asked as the bot asks (`tool_choice` "auto": the model chooses whether to
call). When no call comes, it is asked again naming the function in `tool_choice` (then
"required", as far as the server takes them), to tell a server that cannot call tools from one
that calls them only when told to. The protocol is judged, not the answer: a call came with the
tool's name and JSON arguments, the result was accepted, some text came back.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Mapping, Sequence
from typing import Any

from bot.agent import AgentError, build_client
from bot.agent.calls import CallOutcome
from bot.agent.llm import ModelClient, ToolChoice
from bot.agent.replies import ModelReply, ToolCall
from bot.console.check.outcome import Outcome, failed, passed, skipped
from bot.settings.model import Settings
from tools.results import ToolResult

SUBJECT = "tool calls"
TIMEOUT_S = 60.0
"""At most this for each request; the whole round trip gets `TOTAL_S`."""
TOTAL_S = 150.0
TOOL_NAME = "get_time"
TOOL: Mapping[str, Any] = {
    "type": "function",
    "function": {
        "name": TOOL_NAME,
        "description": "The current time. Call it whenever you are asked the time.",
        "parameters": {
            "type": "object",
            "properties": {"zone": {"type": "string", "description": "A time zone, e.g. UTC"}},
        },
    },
}
RESULT = '{"time": "12:00", "zone": "UTC"}'
QUESTION: Sequence[Mapping[str, Any]] = (
    {"role": "system", "content": "Answer with the tools you have. Be brief."},
    {"role": "user", "content": f"What time is it? Call {TOOL_NAME}, then answer in one line."},
)
FORCING: tuple[ToolChoice, ...] = (
    {"type": "function", "function": {"name": TOOL_NAME}},
    "required",
)
NO_TOOLS_HINT = (
    "start llama_cpp.server with --chat_format chatml-function-calling, or use a model/server "
    "with tool calling"
)
SLOW_HINT = (
    "the model is too slow for the check, and would be for questions: a smaller model, or a GPU"
)
ONLY_WHEN_TOLD = (
    "the model called the tool only when the request named it in tool_choice; asked as the "
    "bot asks, it answered without it, so answers would not search the documents: use a "
    "model trained for tool calling, or a chat format that lets the model choose tools"
)


class _StepFailed(Exception):
    """One step of the round trip failed; the text is the line's."""


async def check_tool_round(
    settings: Settings,
    *,
    offline: bool = False,
    timeout_s: float = TIMEOUT_S,
    total_s: float = TOTAL_S,
) -> Outcome:
    """One round trip with a tool on MODEL, `timeout_s` a request and `total_s` in all."""
    if offline:
        return skipped(SUBJECT, "skipped (--offline)")
    quick = settings.model_copy(
        update={
            "request_timeout": min(settings.request_timeout, timeout_s),
            "model_max_retries": 0,
        }
    )
    client = build_client(quick)
    model = ModelClient(client, settings.model, settings.max_output_tokens, stream=settings.stream)
    started = time.monotonic()
    try:
        async with asyncio.timeout(total_s):
            text = await _round_trip(model)
    except _StepFailed as exc:
        return failed(SUBJECT, str(exc))
    except TimeoutError:
        return failed(SUBJECT, f"the round trip with a tool took over {total_s:g} s")
    finally:
        await client.close()
    seconds = time.monotonic() - started
    return passed(SUBJECT, f"{settings.model} {text} in {seconds:.1f} s")


async def _round_trip(model: ModelClient) -> str:
    """The steps in order; what passed, for the line, or `_StepFailed` naming the step."""
    first = await _ask(model, QUESTION, "a request with a tool")
    streamed = model.streams
    if not first.tool_calls:
        if await _calls_when_told(model):
            raise _StepFailed(ONLY_WHEN_TOLD)
        raise _StepFailed(f"the model did not call the tool: {NO_TOOLS_HINT}")
    results = [_result(call, streamed=streamed) for call in first.tool_calls]
    history = [*QUESTION, first.assistant_message(), *results]
    answer = await _ask(model, history, "the tool result")
    how = "streamed" if streamed else "sent whole"
    if answer.text.strip():
        return f"called a tool, took its result and answered ({how})"
    if answer.tool_calls:
        return f"called a tool, took its result and called it again instead of answering ({how})"
    if answer.finish_reason == "length":
        msg = "the model used all MAX_OUTPUT_TOKENS after the tool's result without answering"
        raise _StepFailed(msg)
    raise _StepFailed(f"the server took the tool result, but no answer came back: {NO_TOOLS_HINT}")


async def _ask(model: ModelClient, messages: Sequence[Mapping[str, Any]], sent: str) -> ModelReply:
    """One request as the bot sends it (the model chooses whether to call); `sent` names
    what it carries, for the line when it fails."""
    try:
        return await model.complete(messages, [TOOL], None, _shown)
    except AgentError as exc:
        text = str(exc)
        said = f"the server refused {sent}" if text.startswith("HTTP") else f"{sent} failed"
        raise _StepFailed(f"{said} ({text}): {_hint(exc)}") from exc


async def _shown(_: str) -> None:
    """The draft listener: it makes the call streamed when the bot's would be."""


def _hint(exc: AgentError) -> str:
    text = str(exc).lower()
    if "did not answer within" in text:
        return SLOW_HINT
    if "stream" in text:
        return f"set STREAM=off, or {NO_TOOLS_HINT}"
    return NO_TOOLS_HINT


async def _calls_when_told(model: ModelClient) -> bool:
    """Whether a call comes when `tool_choice` asks for one, in the first form the server
    takes."""
    for choice in FORCING:
        try:
            reply = await model.complete(QUESTION, [TOOL], choice, _shown)
        except AgentError:
            continue  # this form of tool_choice is refused here: the next one
        return bool(reply.tool_calls)
    return False


def _result(call: ToolCall, *, streamed: bool) -> dict[str, Any]:
    """The `tool` message answering `call`, once its name and arguments are read."""
    garbled = "streamed tool call garbled" if streamed else "tool call garbled"
    fix = "set STREAM=off to have answers sent whole" if streamed else NO_TOOLS_HINT
    if call.name != TOOL_NAME:
        shown = call.name[:60]
        raise _StepFailed(f"{garbled}: it names {shown!r}, not {TOOL_NAME!r}: {fix}")
    try:
        arguments = json.loads(call.arguments)
    except ValueError:
        arguments = None
    if not isinstance(arguments, dict):
        shown = call.arguments[:60]
        raise _StepFailed(f"{garbled}: its arguments {shown!r} are not a JSON object: {fix}")
    return CallOutcome(call, ToolResult(RESULT)).tool_message()
