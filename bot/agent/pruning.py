"""Old tool results pruned to stubs: a past turn's reads cost a line each, not a page each.

A past turn in the history is complete: its answer was given, and it said what the pages read
for it held. Sent whole, every page read in a conversation is paid for again in every later
request, which at a large window is nearly all of its tokens. So the results of past turns
older than the newest `FULL_RESULT_TURNS` go as stubs (`bot.agent.stubs`): the path, the lines and
places read, the file names a search found. The calls stay beside them with their arguments, so
the model can read the same page again when a later question needs more than the answer kept.

The newest past turn keeps its results whole: a follow-up ("and what does it say about
overtime?") most often asks about what was just read, and it costs one turn's results, not the
conversation's. The current turn is never pruned (it is not a past turn). The history itself
keeps every result whole; pruning is done to the request, the same way for every worker and
after a restart, as it depends only on the stored turns.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.agent.stubs import stub_result

Message = dict[str, Any]

FULL_RESULT_TURNS = 1
"""Past turns, the newest ones, whose tool results are sent whole."""


def prune(turn: Sequence[Message]) -> Sequence[Message]:
    """The turn with every tool result as its stub; the calls and the texts as they are. The
    very same turn when none of its results is long enough to be worth a stub."""
    tools: dict[str, str] = {}
    pruned: list[Message] = []
    changed = False
    for message in turn:
        for call in message.get("tool_calls") or ():
            function = call.get("function") or {}
            tools[str(call.get("id"))] = str(function.get("name") or "")
        content = message.get("content")
        stub = content
        if message.get("role") == "tool" and isinstance(content, str):
            stub = stub_result(content, tools.get(str(message.get("tool_call_id")), ""))
        changed = changed or stub is not content
        pruned.append(message if stub is content else {**message, "content": stub})
    return pruned if changed else turn


def prune_past(
    past: Sequence[Sequence[Message]], full_turns: int = FULL_RESULT_TURNS
) -> list[Sequence[Message]]:
    """The past turns with the results of all but the newest `full_turns` pruned; those
    newest turns are the very same objects."""
    whole_from = max(len(past) - full_turns, 0)
    return [prune(turn) if i < whole_from else turn for i, turn in enumerate(past)]
