"""Cutting one tool result down to a character budget, so the model can still use it.

A cut result stays valid JSON. A page of `read_file` loses whole lines from its end and says
exactly where to continue (`end_line` and `next_offset` rewritten); a list of results or
entries loses whole items from its end; any other object loses the end of its longest text
field, and text that is not an object keeps its head.

A fresh result knows its shape and calls its cutter directly (`tools.results.ToolResult`);
`cut_result` reads the shape back from text that arrives without one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from tools.jsontext import to_json as _dumps

_NUMBERED = re.compile(r"\s*(\d+)\| ")
_LISTS = ("results", "entries")
_PAGE_NOTE = (
    "cut to fit the context window after line {end}: read_file with offset {next} gives the rest."
)
_LIST_NOTE = (
    "cut to fit the context window: {shown} of {total} {what} shown. "
    "Ask for fewer, or narrow the query or folder."
)
_FIELD_NOTE = "cut to fit the context window: {shown} of {total} characters of '{key}' shown."
_TEXT_NOTE = "cut to fit the context window: {shown} of {total} characters shown."


def cut_result(content: str, cap: int) -> str:
    """`content` if it is within `cap` characters, else a shorter valid-JSON version of it.

    The outcome may still exceed `cap` when not even the frame of the result fits; callers
    measure what they get.
    """
    if len(content) <= cap:
        return content
    try:
        parsed = json.loads(content)
    except ValueError:
        parsed = None
    if isinstance(parsed, dict):
        if isinstance(parsed.get("document"), str) and isinstance(parsed.get("end_line"), int):
            return cut_page(parsed, cap)
        for key in _LISTS:
            if isinstance(parsed.get(key), list):
                return _cut_list(parsed, key, cap)
        if any(isinstance(v, str) for v in parsed.values()):
            return cut_longest_field(parsed, cap)
    return _cut_text(content, cap)


def cut_page(page: Mapping[str, Any], cap: int) -> str:
    """A `read_file` page: keep its first lines (and its closing marker) within `cap`."""
    head, *body = page["document"].split("\n")
    tail = body.pop() if body else ""
    numbers = [m.group(1) if (m := _NUMBERED.match(line)) else None for line in body]
    first = int(page.get("start_line") or 1)

    def render(kept: int) -> str:
        end = next((int(n) for n in reversed(numbers[:kept]) if n), first - 1)
        return _dumps(
            {
                **page,
                "end_line": end,
                "next_offset": end + 1,
                "cut": _PAGE_NOTE.format(end=end, next=end + 1),
                "document": "\n".join([head, *body[:kept], tail]),
            }
        )

    return _largest(len(body) - 1, render, cap)


def cut_results(payload: Mapping[str, Any], cap: int) -> str:
    """A `search_files` result: keep its first hits."""
    return _cut_list(payload, "results", cap)


def cut_entries(payload: Mapping[str, Any], cap: int) -> str:
    """A `list_files` result: keep its first entries."""
    return _cut_list(payload, "entries", cap)


def _cut_list(payload: Mapping[str, Any], key: str, cap: int) -> str:
    """Keep the first whole items of `payload[key]` within `cap`."""
    items: list[Any] = payload[key]
    total = payload.get("total", len(items))

    def render(kept: int) -> str:
        note = _LIST_NOTE.format(shown=kept, total=total, what=key)
        return _dumps({**payload, key: items[:kept], "truncated": True, "cut": note})

    return _largest(len(items) - 1, render, cap)


def cut_longest_field(payload: Mapping[str, Any], cap: int) -> str:
    """An object of no known shape: its longest text field loses its end."""
    texts = [k for k, v in payload.items() if isinstance(v, str)]
    if not texts:
        return _cut_text(_dumps(payload), cap)
    key = max(texts, key=lambda k: len(payload[k]))
    value: str = payload[key]

    def render(shown: int) -> str:
        note = _FIELD_NOTE.format(key=key, shown=shown, total=len(value))
        return _dumps({**payload, key: value[:shown], "cut": note})

    return _largest(len(value) - 1, render, cap)


def _cut_text(content: str, cap: int) -> str:
    """A result of no known shape: its head, as a JSON string with a note."""

    def render(shown: int) -> str:
        note = _TEXT_NOTE.format(shown=shown, total=len(content))
        return _dumps({"partial": content[:shown], "cut": note})

    return _largest(len(content) - 1, render, cap)


def _largest(most: int, render: Callable[[int], str], cap: int) -> str:
    """`render(k)` for the largest k in 0..most whose text fits `cap` (k=0 if none does)."""
    low, high, best = 1, max(most, 0), render(0)
    while low <= high:
        middle = (low + high) // 2
        text = render(middle)
        if len(text) <= cap:
            best, low = text, middle + 1
        else:
            high = middle - 1
    return best
