"""The terminal chat: questions, progress lines, sources, /reset and /exit."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable

from bot.agent import HistoryStore
from bot.terminal import chat_in_terminal
from tests.agent.conftest import AgentFactory
from tests.fakes.fake_llm import FakeLLM

CHARLOTTE = "документы/рецепт_шарлотки.txt"


def scripted(lines: Iterable[str | None]) -> Callable[[], Awaitable[str | None]]:
    queue = list(lines)

    async def read_line() -> str | None:
        return queue.pop(0) if queue else None

    return read_line


class TestTerminalChat:
    async def test_a_question_shows_progress_answer_and_sources(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        fake_llm.reply_tool_calls(("read_file", {"path": CHARLOTTE}))
        fake_llm.reply_text("1 стакан сахара")
        output: list[str] = []

        await chat_in_terminal(
            make_agent(),
            read_line=scripted(["сколько сахара?", "/exit", "не дойдёт"]),
            write=output.append,
        )

        text = "\n".join(output)
        assert "read_file" in text
        assert "1 стакан сахара" in text
        assert f"Sources: {CHARLOTTE}" in text
        assert len(fake_llm.requests) == 2

    async def test_reset_and_end_of_input(
        self, fake_llm: FakeLLM, make_agent: AgentFactory, history: HistoryStore
    ) -> None:
        fake_llm.reply_text("один")
        output: list[str] = []

        await chat_in_terminal(
            make_agent(),
            conversation="terminal",
            read_line=scripted(["вопрос", "  ", "/reset"]),
            write=output.append,
        )

        assert await history.conversation_count("terminal") == 2
        assert any("New conversation" in line for line in output)

    async def test_errors_are_shown_and_the_chat_goes_on(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        fake_llm.reply_error(401)
        fake_llm.reply_text("теперь да")
        output: list[str] = []

        await chat_in_terminal(
            make_agent(), read_line=scripted(["раз", "два"]), write=output.append
        )

        assert any(line.startswith("! auth") for line in output)
        assert "теперь да" in output


class TestToolLines:
    async def test_a_failed_tool_is_marked_as_failed(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        fake_llm.reply_tool_calls(("read_file", {"path": "нет/такого.txt"}))
        fake_llm.reply_text("Такого файла нет.")
        output: list[str] = []
        await chat_in_terminal(make_agent(), read_line=scripted(["?", None]), write=output.append)
        finished = [line for line in output if "read_file (" in line]
        assert len(finished) == 1
        assert finished[0].lstrip().startswith("✗"), finished[0]
        assert "✓" not in finished[0]
