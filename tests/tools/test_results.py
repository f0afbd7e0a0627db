"""A tool result shrinks from its own text: it keeps no second copy of what it says.

A result lives as long as its turn, while the chat waits for the model; most are never cut, so
holding the payload beside the JSON text would keep a read page twice per waiting chat.
"""

from __future__ import annotations

import json
from typing import Any

from tools.cutting import cut_longest_field, cut_page, cut_results
from tools.results import ToolResult


def _page(lines: int, path: str = "Кухня/рецепт.txt") -> dict[str, Any]:
    body = [f"{n:>4}| строка номер {n} рецепта шарлотки" for n in range(1, lines + 1)]
    return {
        "path": path,
        "start_line": 1,
        "end_line": lines,
        "total_lines": lines,
        "next_offset": None,
        "notice": "file content",
        "document": "\n".join(["<<<BEGIN>>>", *body, "<<<END>>>"]),
    }


def test_a_page_result_does_not_hold_its_payload() -> None:
    page = _page(200)
    expected = cut_page(_page(200), 2_000)
    result = ToolResult.of(page, cut_page, source=page["path"])

    page["document"] = "changed after the result was made"
    page["path"] = "elsewhere.txt"

    assert result.shrink(2_000) == expected
    assert len(result.shrink(2_000)) <= 2_000


def test_a_cut_is_the_one_its_payload_would_give() -> None:
    marked = "Кухня/\u202eтхт.txt"  # a display trick in a name: escaped in the text, kept in a cut
    page = _page(300, path=marked)
    result = ToolResult.of(page, cut_page, source=marked)
    assert "\\u202e" in result.text
    for cap in (500, 3_000, 9_000):
        assert result.shrink(cap) == cut_page(page, cap)
    found = {"results": [{"path": f"папка/{i}.txt", "snippets": ["x" * 200]} for i in range(40)]}
    listed = ToolResult.of(found, cut_results, hits=40)
    assert listed.shrink(2_000) == cut_results(found, 2_000)
    assert json.loads(listed.shrink(2_000))["truncated"] is True


def test_a_failure_shrinks_from_its_text_too() -> None:
    result = ToolResult.failed("нет такого файла " * 50, "Use list_files.")
    payload = {"error": "нет такого файла " * 50, "hint": "Use list_files."}
    assert result.shrink(300) == cut_longest_field(payload, 300)
    assert result.shrink(10_000) == result.text
