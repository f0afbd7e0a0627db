"""Running the tool calls of one model reply: concurrently, safely, with events and logs.

Whatever the model sends — an unknown tool, arguments that are not JSON, the same call again
and again — ends as a result it can read and act on; a tool that raises is logged and reported
the same way. Results come back in call order.

A runner that validates arguments itself (`validates_arguments`, as the toolbox does) gets the
model's raw arguments and explains problems in its own words; for any other runner a generic
check stops what it could not parse.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.agent.observer import UNKNOWN_TOOL, NoObserver, Observer
from bot.agent.prompts import REPEATED_CALL_HINT
from bot.agent.replies import ToolCall
from bot.agent.types import (
    EventHandler,
    ToolFinished,
    ToolRunner,
    ToolStarted,
    emit,
    page_drawer,
)
from tools.jail.scope import Scope
from tools.results import ToolResult
from tools.tool import PictureMode

logger = logging.getLogger(__name__)

_REPEAT_LIMIT = 3
_LOGGED_ARGUMENTS = 300


@dataclass(frozen=True, slots=True)
class CallOutcome:
    """One call and its result: the model reads the text, the loop learns error and source."""

    call: ToolCall
    result: ToolResult
    seconds: float = 0.0

    def tool_message(self) -> dict[str, Any]:
        """The `tool` message that answers the call."""
        return {"role": "tool", "tool_call_id": self.call.id, "content": self.result.text}


class RepeatGuard:
    """Spots the same call made three times in a row within one question."""

    def __init__(self) -> None:
        self._last: str | None = None
        self._count = 0

    def is_repeat(self, name: str, arguments: Mapping[str, Any] | None, raw: str) -> bool:
        """Record a call in order; True when it is the third identical call in a row."""
        shown = raw if arguments is None else json.dumps(arguments, sort_keys=True)
        key = f"{name}:{shown}"
        self._count = self._count + 1 if key == self._last else 1
        self._last = key
        return self._count >= _REPEAT_LIMIT


async def run_calls(
    tools: ToolRunner,
    calls: Sequence[ToolCall],
    guard: RepeatGuard,
    on_event: EventHandler | None,
    observer: Observer | None = None,
    *,
    scope: Scope | None = None,
    specs: Sequence[Mapping[str, Any]] | None = None,
    pictures_left: int | None = None,
) -> list[CallOutcome]:
    """Run every call of one reply concurrently, within `scope`; outcomes in call order.

    `observer` hears each call's tool (`unknown` for a name the toolbox does not offer, so a
    name the model made up never becomes a metric label), its outcome and its duration.
    `specs` are the tools the request offered (the runner's own when not given).
    `pictures_left`: how many more pages the question may show as pictures, when the
    request offered them (None: it did not); the first reads that ask for one get one.
    """
    watcher: Observer = observer if observer is not None else NoObserver()
    offered = tools.specs if specs is None else specs
    known = {spec.get("function", {}).get("name") for spec in offered}
    trusting = bool(getattr(tools, "validates_arguments", False))
    prepared = []
    for call in calls:
        arguments = _parsed(call.arguments)
        problem = None if trusting else _generic_problem(call, arguments, known)
        if problem is None and guard.is_repeat(call.name, arguments, call.arguments):
            problem = ToolResult.failed("this exact call was repeated", REPEATED_CALL_HINT)
        mode: PictureMode | None = None
        if pictures_left is not None and _wants_picture(call, arguments):
            mode = "on" if pictures_left > 0 else "spent"
            pictures_left -= 1
        prepared.append((call, arguments, problem, mode))
    outcomes = await asyncio.gather(
        *(
            _run_one(tools, call, args, problem, on_event, scope=scope, pictures=mode)
            for call, args, problem, mode in prepared
        )
    )
    for outcome in outcomes:
        tool = outcome.call.name if outcome.call.name in known else UNKNOWN_TOOL
        watcher.tool_called(tool, ok=outcome.result.error is None, seconds=outcome.seconds)
    return list(outcomes)


_TRUE = frozenset({"1", "on", "t", "true", "y", "yes"})
"""The strings pydantic's lax mode reads as true, as the toolbox will read them."""


def _wants_picture(call: ToolCall, arguments: Mapping[str, Any] | None) -> bool:
    """Whether the call is a read that asks to show its page as a picture."""
    if call.name != "read_file" or arguments is None:
        return False
    value = arguments.get("picture")
    if isinstance(value, str):
        return value.strip().lower() in _TRUE
    return value is True or (type(value) is int and value == 1)


def _parsed(raw: str) -> Mapping[str, Any] | None:
    """The arguments as an object, when they are one (for events, logs and repeat checks)."""
    try:
        arguments = json.loads(raw) if raw.strip() else {}
    except (ValueError, RecursionError):
        return None
    return arguments if isinstance(arguments, dict) else None


def _generic_problem(
    call: ToolCall, arguments: Mapping[str, Any] | None, known: set[Any]
) -> ToolResult | None:
    """What a runner that does not check its input could not run (it would only raise)."""
    names = ", ".join(sorted(str(n) for n in known if n))
    if call.name not in known:
        return ToolResult.failed(f"unknown tool {call.name!r}", f"Use one of: {names}.")
    if arguments is None:
        return ToolResult.failed(
            "the arguments are not one JSON object",
            "Send one JSON object with the tool's parameters.",
        )
    return None


async def _run_one(
    tools: ToolRunner,
    call: ToolCall,
    arguments: Mapping[str, Any] | None,
    problem: ToolResult | None,
    on_event: EventHandler | None,
    *,
    scope: Scope | None,
    pictures: PictureMode | None = None,
) -> CallOutcome:
    shown_arguments: Mapping[str, Any] = arguments if arguments is not None else {}
    subject = tools.subject(call.name, shown_arguments)
    await emit(on_event, ToolStarted(call.id, call.name, shown_arguments, subject))
    started = time.monotonic()
    if problem is not None:
        result = problem
    else:
        try:
            drawer = page_drawer(tools) if pictures is not None else None
            if drawer is not None and pictures is not None:
                result = await drawer.execute(
                    call.name, call.arguments, scope=scope, pictures=pictures
                )
            else:
                result = await tools.execute(call.name, call.arguments, scope=scope)
        except Exception:  # a tool's own bug must not end the question: the model hears of it
            logger.exception("tool %s raised", call.name)
            result = ToolResult.failed(
                f"the tool {call.name} failed unexpectedly",
                "Try other arguments or another tool; the failure was logged.",
            )
    duration = time.monotonic() - started
    # What was searched or read comes from the user's question: it stays out of INFO.
    logger.info(
        "tool %s took %.3fs, %d chars%s",
        call.name,
        duration,
        len(result.text),
        ", failed" if result.error else "",
    )
    logger.debug(
        "tool %s(%s): %s",
        call.name,
        json.dumps(shown_arguments, ensure_ascii=False)[:_LOGGED_ARGUMENTS],
        result.error or "ok",
    )
    await emit(
        on_event,
        ToolFinished(
            call.id, call.name, shown_arguments, duration, len(result.text), result.error
        ),
    )
    return CallOutcome(call, result, duration)
