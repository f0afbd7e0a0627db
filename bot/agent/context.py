"""Fitting a request into the model's window without breaking the conversation's structure.

What is kept, in order of priority: the system prompt and the current question's turn (its tool
results cut down if they must be), then recent turns with their tool traffic, then older turns
as question and answer only. A tool call and its results form one unit: both stay or both go.
Even when everything fits, the results of past turns but the newest go as stubs that say what
was read where (`bot.agent.pruning`): the answer has used them, and a page sent again with
every later question is most of a long conversation's cost.
Past turns are trimmed in steps (`bot.agent.past_turns`), so that the start of the request
stays the same for several requests in a row and the server's prompt cache can reuse it.

The system prompt is sent exactly as configured, the same bytes for every question in every
conversation; the note that turns were left out is a message of its own right after it.

Cutting a result is the toolbox's job: a result of this question shrinks itself (it knows its
shape); text without its result object is cut by reading its shape back (`tools.cutting`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

from bot.agent.past_turns import HEADROOM, TurnSizes, plan_cut
from bot.agent.prompts import OMITTED_TURNS_NOTE
from bot.agent.pruning import FULL_RESULT_TURNS, prune_past
from bot.agent.tokens import PER_REQUEST, TokenCounter
from bot.agent.types import ContextOverflow
from tools.cutting import cut_result
from tools.results import ToolResult

Message = dict[str, Any]
Turn = Sequence[Message]
_GRID = 1.2


@dataclass(frozen=True, slots=True)
class Fitted:
    """A request's messages that fit, with what had to give way."""

    messages: list[Message]
    tokens: int
    raw_tokens: int
    compacted_turns: int = 0
    dropped_turns: int = 0
    cut_results: int = 0
    pruned_turns: int = 0


def repair(messages: Sequence[Message]) -> list[Message]:
    """Drop what a server would reject: calls without all their results, stray results, and
    a `null` content beside calls.

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
            if message.get("content") is None:  # stored before calls got "" (see replies)
                message = {**message, "content": ""}
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
    headroom: float = HEADROOM,
    full_turns: int = FULL_RESULT_TURNS,
) -> Fitted:
    """The request `[system, note?, *past turns, *current]`, trimmed to `budget` tokens.

    `headroom`: the share of the past's room a drop leaves free (`bot.agent.past_turns`).
    `full_turns`: how many of the newest past turns keep their tool results whole; the older
    ones' results go as stubs (`bot.agent.pruning`).
    Raises `ContextOverflow` when even the system prompt and the current turn, with every
    tool result cut to its marker, do not fit.
    """
    counted = _Counted(counter)
    system = {"role": "system", "content": system_prompt}
    base = counted.messages([system]) + tools_tokens
    current_list, cut = _fit_current(current, budget - base, counted, results or {})
    request = _Request(budget, system, tools_tokens, current_list)
    past_fit = _fit_past(past, request, counted, headroom, full_turns)
    messages = [system, *(m for turn in past_fit.turns for m in turn), *current_list]
    tokens = counted.messages(messages) + tools_tokens
    raw = counted.raw_messages(messages) + round(tools_tokens / counted.ratio)
    return Fitted(
        messages, tokens, raw, past_fit.compacted, past_fit.dropped, cut, past_fit.pruned
    )


class _Counted:
    """The counter, with each message's raw size counted once per `fit`.

    One round sizes the same messages several times: the current turn for its own room, for
    the past's room at two calibrations and in the whole request; the system prompt each time.
    Sizes are kept by identity, each beside its message, so no identity is reused meanwhile.
    """

    def __init__(self, counter: TokenCounter) -> None:
        self._counter = counter
        self._sizes: dict[int, tuple[Message, int]] = {}

    @property
    def ratio(self) -> float:
        return self._counter.ratio

    def raw_message(self, message: Message) -> int:
        known = self._sizes.get(id(message))
        if known is None:
            known = self._sizes[id(message)] = (message, self._counter.raw_message(message))
        return known[1]

    def raw_messages(self, messages: Sequence[Message]) -> int:
        return PER_REQUEST + sum(self.raw_message(m) for m in messages)

    def message(self, message: Message) -> int:
        return math.ceil(self.raw_message(message) * self.ratio)

    def messages(self, messages: Sequence[Message]) -> int:
        return math.ceil(self.raw_messages(messages) * self.ratio)


@dataclass(frozen=True, slots=True)
class _Request:
    """What the past must fit beside: the budget, the system prompt, the tools, the question."""

    budget: int
    system: Message
    tools_tokens: int
    current: Sequence[Message]


class _Sizer:
    """Tokens at a given calibration ratio."""

    def __init__(self, counter: _Counted, ratio: float) -> None:
        self._counter = counter
        self._ratio = ratio

    def message(self, message: Message) -> int:
        return math.ceil(self._counter.raw_message(message) * self._ratio)

    def messages(self, messages: Sequence[Message]) -> int:
        return sum(self.message(m) for m in messages)

    def scaled(self, tokens: int) -> int:
        """Calibrated `tokens` at this ratio."""
        return math.ceil(tokens * (self._ratio / self._counter.ratio))

    def rooms(self, request: _Request) -> tuple[int, int]:
        """What the past and the current turn share, and what the past may use."""
        framed = math.ceil(self._counter.raw_messages([request.system]) * self._ratio)
        space = request.budget - framed - self.scaled(request.tools_tokens)
        return space, space - self.messages(request.current)

    def sizes(
        self, past: Sequence[Turn], pruned: Sequence[Turn], smaller: Sequence[Turn]
    ) -> list[TurnSizes]:
        """Each past turn's tokens whole, pruned and compacted, and its current turn at each of
        its requests (one before each assistant message: the model's reply to it)."""
        found: list[TurnSizes] = []
        for turn, stubbed, small in zip(past, pruned, smaller, strict=True):
            running = [0, *accumulate(self.message(m) for m in turn)]
            asked = tuple(
                running[i] for i in range(1, len(turn)) if turn[i].get("role") == "assistant"
            )
            stubbed_size = None if stubbed is turn else self.messages(stubbed)
            found.append(TurnSizes(running[-1], self.messages(small), asked, stubbed_size))
        return found


def _steady_ratio(ratio: float) -> float:
    """The calibration at the nearest step of a 20 % grid."""
    return float(_GRID ** round(math.log(ratio, _GRID)))


@dataclass(frozen=True, slots=True)
class _PastFit:
    """The past turns to send, and how many were pruned, compacted and dropped."""

    turns: list[list[Message]]
    pruned: int
    compacted: int
    dropped: int


def _fit_past(
    past: Sequence[Turn],
    request: _Request,
    counter: _Counted,
    headroom: float,
    full_turns: int,
) -> _PastFit:
    """The past turns to send, in order (the omitted-turns note first when turns were left
    out and it fits): the newest `full_turns` whole, older ones pruned, the oldest compacted
    or dropped when they must be.

    When trimming in steps, the replay runs on a steady calibration (the nearest step of a grid),
    so the small moves of the calibration after every report do not move the cut it arrives
    at; the cut is then trimmed further in the rare case the true counts need it.
    """
    pruned = prune_past(past, full_turns)
    smaller = [compact(turn) for turn in past]
    note = {"role": "system", "content": OMITTED_TURNS_NOTE}
    exact = _Sizer(counter, counter.ratio)
    start = None
    if headroom > 0:
        steady = _Sizer(counter, _steady_ratio(counter.ratio))
        space, room = steady.rooms(request)
        start = plan_cut(
            steady.sizes(past, pruned, smaller),
            space=space,
            room=room,
            note=steady.message(note),
            headroom=headroom,
            full_turns=full_turns,
        )
    space, room = exact.rooms(request)
    cut = plan_cut(
        exact.sizes(past, pruned, smaller),
        space=space,
        room=room,
        note=exact.message(note),
        headroom=headroom,
        start=start,
        full_turns=full_turns,
    )
    kept: list[list[Message]] = [[note]] if cut.note else []
    compacted = stubbed = 0
    for index in range(cut.dropped, len(past)):
        if index < cut.compact_until:
            compacted += len(smaller[index]) < len(past[index])
            kept.append(smaller[index])
        else:
            stubbed += pruned[index] is not past[index]
            kept.append(list(pruned[index]))
    return _PastFit(kept, stubbed, compacted, cut.dropped)


def _fit_current(
    current: Sequence[Message],
    room: int,
    counter: _Counted,
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
