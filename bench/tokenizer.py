"""The reference token count: OpenAI's o200k encoding, offline, when `bpe-openai` is installed.

The fake server counts what it receives with it, the way a real server would; without the
package the benchmarks fall back to UTF-8 bytes / 4 and say so.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

_PER_MESSAGE = 3  # OpenAI's chat format adds a few tokens around each message


@dataclass(frozen=True)
class ReferenceCounter:
    """Counts text, messages and whole request bodies."""

    name: str
    encode_len: Callable[[str], int]

    def text(self, text: str) -> int:
        return self.encode_len(text)

    def messages(self, messages: Sequence[Mapping[str, Any]]) -> int:
        total = 3
        for message in messages:
            total += _PER_MESSAGE
            content = message.get("content")
            if isinstance(content, str):
                total += self.encode_len(content)
            elif content is not None:
                total += self.encode_len(json.dumps(content, ensure_ascii=False))
            for call in message.get("tool_calls") or []:
                function = call.get("function") or {}
                total += self.encode_len(str(function.get("name") or ""))
                total += self.encode_len(str(function.get("arguments") or "")) + 3
        return total

    def tools(self, specs: Sequence[Mapping[str, Any]]) -> int:
        return self.encode_len(json.dumps(list(specs), ensure_ascii=False, separators=(",", ":")))

    def request(self, body: Mapping[str, Any]) -> int:
        return self.messages(list(body.get("messages") or [])) + self.tools(
            list(body.get("tools") or [])
        )


def reference_counter() -> ReferenceCounter:
    """o200k_base when available offline, else a labelled bytes/4 proxy."""
    try:
        import bpe_openai  # type: ignore[import-untyped]  # noqa: PLC0415 - optional

        encoding = bpe_openai.get_encoding("o200k_base")
    except Exception:  # any failure means: not available offline
        return ReferenceCounter("UTF-8 bytes / 4 (o200k unavailable)", _bytes_over_four)

    def count(text: str) -> int:
        return len(encoding.encode_ordinary(text))

    return ReferenceCounter("o200k_base (bpe-openai)", count)


def _bytes_over_four(text: str) -> int:
    return (len(text.encode("utf-8")) + 3) // 4
