"""Tools that answer instantly with fixed results, to time the loop without the tools' work."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from tools.jail.scope import Scope
from tools.results import ToolResult

SEARCH_RESULT = json.dumps(
    {
        "results": [
            {
                "path": "Кухня/рецепт_шарлотки.txt",
                "size": 412,
                "modified": "2025-01-01T00:00:00Z",
                "matched": "name",
                "snippets": [{"line": 3, "text": "Сахар - 1 стакан."}],
            }
        ],
        "total": 1,
        "truncated": False,
    },
    ensure_ascii=False,
)
READ_RESULT = json.dumps(
    {
        "path": "Кухня/рецепт_шарлотки.txt",
        "start_line": 1,
        "end_line": 4,
        "total_lines": 4,
        "next_offset": None,
        "text": "1\tРецепт шарлотки с яблоками.\n2\t\n3\tСахар - 1 стакан.\n4\tЯйца - 3 штуки.",
    },
    ensure_ascii=False,
)


class CannedTools:
    """A `ToolRunner` with the real specs and constant, instant results."""

    def __init__(self, specs: list[dict[str, Any]]) -> None:
        self._specs = specs

    @property
    def specs(self) -> list[dict[str, Any]]:
        return self._specs

    def subject(self, name: str, arguments: Mapping[str, Any]) -> str | None:
        del name
        return str(arguments.get("query") or arguments.get("path") or "")

    async def execute(
        self, name: str, arguments: str | Mapping[str, Any], *, scope: Scope | None = None
    ) -> ToolResult:
        del arguments
        if name == "search_files":
            return ToolResult(SEARCH_RESULT)
        return ToolResult(READ_RESULT, source="Кухня/рецепт_шарлотки.txt")
