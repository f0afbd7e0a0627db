"""Reasoning that some models write into their answer, and how it is kept out of sight.

Models served by Ollama, vLLM and others may wrap their reasoning in `<think>` tags inside the
content. It is never part of the answer: not in the history, not shown while it streams.
"""

from __future__ import annotations

import re

_THINK_BLOCK = re.compile(r"<think(?:ing)?>.*?</think(?:ing)?>", re.DOTALL | re.IGNORECASE)
_LEADING_OPEN = re.compile(r"\A\s*<think(?:ing)?>", re.IGNORECASE)
_STRAY_CLOSE = re.compile(r"\A(?:(?!<think).)*?</think(?:ing)?>", re.DOTALL | re.IGNORECASE)


def strip_reasoning(text: str) -> str:
    """Remove closed `<think>` blocks anywhere, an unclosed one only at the very start (the
    reply was cut off while reasoning), and the reasoning before a lone leading `</think>`
    (servers that put the opening tag in the prompt). An unclosed tag after some answer
    text is left alone: it may be what the answer is about."""
    text = _THINK_BLOCK.sub("", text)
    if _LEADING_OPEN.match(text):
        return ""
    return _STRAY_CLOSE.sub("", text, count=1).strip()
