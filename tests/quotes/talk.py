"""Conversations with real tool results: the calls run on a real toolbox, written down as the
agent writes them (an assistant message with `tool_calls`, then one `tool` message per call)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from tools import Toolbox

Call = tuple[str, dict[str, Any]]


async def tool_messages(
    box: Toolbox, calls: Sequence[Call], *, round_id: str = "r"
) -> list[dict[str, Any]]:
    """One assistant message asking for `calls`, and their results from `box`."""
    asked = [
        {
            "id": f"{round_id}-{n}",
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments, ensure_ascii=False)},
        }
        for n, (name, arguments) in enumerate(calls)
    ]
    messages: list[dict[str, Any]] = [{"role": "assistant", "content": None, "tool_calls": asked}]
    for call, (name, arguments) in zip(asked, calls, strict=True):
        result = await box.execute(name, arguments)
        messages.append({"role": "tool", "tool_call_id": call["id"], "content": result.text})
    return messages
