"""Searches by name pattern alone list their files in name order, straight from the index."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tools import Toolbox
from tools.config import ToolSettings
from tools.index.term_index import order_key
from tools.index.terms import fold

TIED = [f"отчеты/квартал_{i:02d}.txt" for i in range(40)]  # one key: the same first characters
OTHERS = [
    "Архив/старое.txt",
    "архив/Zeta.txt",
    "старое/архивы/год.txt",
    "б.txt",
    "ёлка.txt",
    "a b.txt",
    "A-b.txt",
    "a.md",
]


@pytest.fixture
async def box(tmp_path: Path) -> AsyncIterator[Toolbox]:
    root = tmp_path / "docs"
    # Written in reverse, so neither the order of writing nor of indexing is the name order.
    for rel in reversed([*TIED, *OTHERS]):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("текст", encoding="utf-8")
    toolbox = Toolbox(ToolSettings(sandbox_dir=root, data_dir=tmp_path / "data"))
    await toolbox.start()
    await asyncio.wait_for(toolbox.wait_ready(), 30)
    yield toolbox
    await toolbox.close()


async def _names(box: Toolbox, query: str, limit: int) -> tuple[list[str], int]:
    raw = (await box.execute("search_files", {"query": query, "limit": limit})).text
    found = json.loads(raw)
    return [r["path"] for r in found["results"]], found["total"]


def _in_order(paths: list[str]) -> list[str]:
    return sorted(paths, key=lambda p: (fold(p), p))


class TestNameOrder:
    async def test_the_first_files_by_name_with_the_total(self, box: Toolbox) -> None:
        every = _in_order([*TIED, *OTHERS])
        assert await _names(box, "*.txt", 5) == ([p for p in every if p.endswith(".txt")][:5], 47)

    async def test_files_tied_on_their_first_characters_are_sorted_exactly(
        self, box: Toolbox
    ) -> None:
        assert len({order_key(fold(p)) for p in TIED}) == 1
        names, total = await _names(box, "отчеты/*", 7)
        assert names == TIED[:7]
        assert total == len(TIED)

    async def test_a_glob_without_a_slash_matches_folder_names_at_any_depth(
        self, box: Toolbox
    ) -> None:
        names, total = await _names(box, "архив*", 10)
        assert names == ["архив/Zeta.txt", "Архив/старое.txt", "старое/архивы/год.txt"]
        assert total == 3
        assert await _names(box, "*ивы", 10) == (["старое/архивы/год.txt"], 1)

    async def test_text_anywhere_in_the_name_or_at_its_end(self, box: Toolbox) -> None:
        quarter = _in_order([p for p in TIED if "ртал_1" in p])
        assert await _names(box, "*ртал_1*", 20) == (quarter, 10)
        assert await _names(box, "*Л_1*", 20) == (quarter, 10)  # case and ё folded
        assert await _names(box, "*.md", 5) == (["a.md"], 1)
        assert await _names(box, "*еt*", 5) == ([], 0)

    async def test_the_key_sorts_as_the_folded_names_do(self) -> None:
        names = _in_order([*TIED, *OTHERS, "", "z", "я/я", "x😀", "😀x"])
        keys = [order_key(fold(p)) for p in names]
        assert keys == sorted(keys)
