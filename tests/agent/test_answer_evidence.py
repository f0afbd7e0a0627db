"""An answer's tool results are parsed once: the pages it names and the check of its quotes
both come from that one reading."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from bot.agent.quotes import evidence
from tests.agent.conftest import AgentFactory
from tests.fakes.fake_llm import FakeLLM

CHARLOTTE = "документы/рецепт_шарлотки.txt"


def _count_parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every tool result text the evidence parses from now on, in order."""
    parsed: list[str] = []
    load: Callable[[str], dict[str, Any]] = evidence._load

    def counting(content: str) -> dict[str, Any]:
        parsed.append(content)
        return load(content)

    monkeypatch.setattr(evidence, "_load", counting)
    return parsed


async def test_each_result_is_parsed_once_for_quotes_and_pages(
    fake_llm: FakeLLM, make_agent: AgentFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_llm.reply_tool_calls(("search_files", {"query": "шарлотка"}))
    fake_llm.reply_tool_calls(("read_file", {"path": CHARLOTTE}))
    fake_llm.reply_text("Так:\n\n> сахар - 1 стакан\n\nи\n\n> сахар - 9 стаканов")
    parsed = _count_parses(monkeypatch)

    answer = await make_agent(verify_quotes=True).ask("chat:1", "Сколько сахара?")

    assert [q.found for q in answer.quotes] == [True, False]
    assert answer.quotes[0].path == CHARLOTTE
    assert answer.pages == {}
    assert len(parsed) == 2, "the search and the page, each once"


async def test_a_follow_up_reads_the_earlier_turn_once_more_only_to_check_its_quotes(
    fake_llm: FakeLLM, make_agent: AgentFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = make_agent(verify_quotes=True)
    fake_llm.reply_tool_calls(("read_file", {"path": CHARLOTTE}))
    fake_llm.reply_text("Стакан сахара.")
    await agent.ask("chat:1", "Сколько сахара?")
    fake_llm.reply_text("Как сказано:\n\n> сахар - 1 стакан")
    parsed = _count_parses(monkeypatch)

    answer = await agent.ask("chat:1", "Точно?")

    assert [q.found for q in answer.quotes] == [True]
    assert len(parsed) == 1, "the page read in the earlier turn, for the quote"
