"""Fitting a request into the model's window without breaking the conversation's structure.

What is kept, in order of priority: the system prompt and the current question's turn (its tool
results cut down if they must be), then recent turns with their tool traffic, then older turns
as question and answer only. A tool call and its results form one unit: both stay or both go.

Cutting a result is the toolbox's job: a result of this question shrinks itself (it knows its
shape); text without its result object is cut by reading its shape back (`tools.cutting`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.agent.prompts import OMITTED_TURNS_NOTE
from bot.agent.tokens import TokenCounter
from bot.agent.types import ContextOverflow
from tools.cutting import cut_result
from tools.results import ToolResult

Message = dict[str, Any]
Turn = Sequence[Message]


@dataclass(frozen=True, slots=True)
class Fitted:
    """A request's messages that fit, with what had to give way."""

    messages: list[Message]
    tokens: int
    raw_tokens: int
    compacted_turns: int = 0
    dropped_turns: int = 0
    cut_results: int = 0


def repair(messages: Sequence[Message]) -> list[Message]:
    """Drop what a server would reject: calls without all their results and stray results.

    An assistant message whose calls are not all answered right after it keeps its text (if
    any) and loses the calls; results that answer no preceding call are dropped.
    """
    repaired: list[Message] = []
    index = 0
    while index < len(messages):
        message = messages[index]
        index += 1
        if message.get("role") == "tool":
            continue
        calls = message.get("tool_calls") if message.get("role") == "assistant" else None
        if not calls:
            repaired.append(message)
            continue
        wanted = [call.get("id") for call in calls]
        results: list[Message] = []
        while index < len(messages) and messages[index].get("role") == "tool":
            results.append(messages[index])
            index += 1
        by_id = {r.get("tool_call_id"): r for r in results}
        if len(set(wanted)) == len(wanted) and all(i in by_id for i in wanted):
            repaired.append(message)
            repaired.extend(by_id[i] for i in wanted)
        elif message.get("content"):
            repaired.append({"role": "assistant", "content": message["content"]})
    return repaired


def compact(turn: Turn) -> list[Message]:
    """A past turn without its tool traffic: the question and the final answer."""
    kept = [turn[0]] if turn else []
    last = turn[-1] if len(turn) > 1 else None
    if last is not None and last.get("role") == "assistant" and not last.get("tool_calls"):
        kept.append(last)
    return kept


def fit(
    system_prompt: str,
    past: Sequence[Turn],
    current: Sequence[Message],
    *,
    budget: int,
    tools_tokens: int,
    counter: TokenCounter,
    results: Mapping[str, ToolResult] | None = None,
) -> Fitted:
    """The request `[system, *past turns, *current]`, trimmed to `budget` tokens.

    Raises `ContextOverflow` when even the system prompt and the current turn, with every
    tool result cut to its marker, do not fit.
    """
    system = {"role": "system", "content": system_prompt}
    base = counter.messages([system]) + tools_tokens
    current_list, cut = _fit_current(current, budget - base, counter, results or {})
    room = budget - base - sum(counter.message(m) for m in current_list)
    turns, compacted, dropped, with_note = _fit_past(past, room, counter)
    if with_note:
        system = {"role": "system", "content": f"{system_prompt}\n\n{OMITTED_TURNS_NOTE}"}
    messages = [system, *(m for turn in turns for m in turn), *current_list]
    tokens = counter.messages(messages) + tools_tokens
    raw = counter.raw_messages(messages) + round(tools_tokens / counter.ratio)
    return Fitted(messages, tokens, raw, compacted, dropped, cut)


def _fit_past(
    past: Sequence[Turn], room: int, counter: TokenCounter
) -> tuple[list[list[Message]], int, int, bool]:
    """Compact the oldest turns first, then drop the oldest whole, until `room` holds them.

    The marker saying turns were left out is added when it fits (it always does unless every
    past turn had to go and the current turn fills the window).
    """
    turns = [list(turn) for turn in past]
    sizes = [sum(counter.message(m) for m in turn) for turn in turns]
    total = sum(sizes)
    compacted = 0
    for index, turn in enumerate(turns):
        if total <= room:
            break
        smaller = compact(turn)
        if len(smaller) < len(turn):
            compacted += 1
            new_size = sum(counter.message(m) for m in smaller)
            total += new_size - sizes[index]
            turns[index], sizes[index] = smaller, new_size
    note = counter.text(OMITTED_TURNS_NOTE) + 2
    dropped = 0
    while turns and total + (note if dropped else 0) > room:
        total -= sizes.pop(0)
        turns.pop(0)
        dropped += 1
    with_note = dropped > 0 and total + note <= room
    return turns, compacted, dropped, with_note


def _fit_current(
    current: Sequence[Message],
    room: int,
    counter: TokenCounter,
    results: Mapping[str, ToolResult],
) -> tuple[list[Message], int]:
    """The current turn as is, or with its tool results cut to a common length that fits."""
    messages = list(current)
    if sum(counter.message(m) for m in messages) <= room:
        return messages, 0
    tool_indexes = {i for i, m in enumerate(messages) if m.get("role") == "tool"}
    if not tool_indexes:
        raise ContextOverflow(_overflow_text(room))
    longest = max(len(str(messages[i].get("content") or "")) for i in tool_indexes)
    low, high = 0, longest
    best: list[Message] | None = None
    while low <= high:
        cap = (low + high) // 2
        attempt = [
            _cut_result(m, cap, results) if i in tool_indexes else m
            for i, m in enumerate(messages)
        ]
        if sum(counter.message(m) for m in attempt) <= room:
            best, low = attempt, cap + 1
        else:
            high = cap - 1
    if best is None:
        raise ContextOverflow(_overflow_text(room))
    cut = sum(1 for i in tool_indexes if best[i] is not messages[i])
    return best, cut


def _cut_result(message: Message, cap: int, results: Mapping[str, ToolResult]) -> Message:
    content = str(message.get("content") or "")
    if len(content) <= cap:
        return message
    result = results.get(str(message.get("tool_call_id")))
    shrunk = result.shrink(cap) if result is not None else cut_result(content, cap)
    return {**message, "content": shrunk}


def _overflow_text(room: int) -> str:
    return (
        f"the question and its tool results need more than the {max(room, 0)} tokens left "
        "in the context window"
    )
