"""One conversation over the placed documents, shared by the module's tests: every document
read whole, and searches whose snippets name their places."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tests.quotes.talk import tool_messages
from tests.tools.placed_docs import placed_files, write_placed
from tools import Toolbox
from tools.config import ToolSettings

SEARCHES = ("персонала", "Казани", "гостевой")


async def _talk(root: Path, data: Path, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    box = Toolbox(ToolSettings(_env_file=None, sandbox_dir=root, data_dir=data))
    await box.start()
    try:
        await asyncio.wait_for(box.wait_ready(), 60)
        return await tool_messages(box, calls)
    finally:
        await box.close()


@pytest.fixture(scope="module")
def placed_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_placed(tmp_path_factory.mktemp("placed") / "docs")


@pytest.fixture(scope="module")
def read_all(placed_root: Path, tmp_path_factory: pytest.TempPathFactory) -> list[Any]:
    """The user question, then every document read from its first line."""
    calls = [("read_file", {"path": path}) for path in placed_files()]
    data = tmp_path_factory.mktemp("data")
    messages = asyncio.run(_talk(placed_root, data, calls))
    return [{"role": "user", "content": "Что в документах?"}, *messages]


@pytest.fixture(scope="module")
def searched_only(placed_root: Path, tmp_path_factory: pytest.TempPathFactory) -> list[Any]:
    """Searches only: the snippets are all the evidence."""
    calls = [("search_files", {"query": query}) for query in SEARCHES]
    data = tmp_path_factory.mktemp("data")
    return asyncio.run(_talk(placed_root, data, calls))
