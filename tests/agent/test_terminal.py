"""The terminal chat: questions, progress lines, sources, /reset and /exit."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable

from bot.agent import HistoryStore
from bot.console.terminal.chat import chat_in_terminal
from tests.agent.conftest import AgentFactory
from tests.fakes.fake_llm import FakeLLM, Reply, text_reply

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

    async def test_quotes_are_marked_under_the_answer(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        fake_llm.reply_tool_calls(("read_file", {"path": CHARLOTTE}))
        fake_llm.reply_text("Так:\n\n> мука - 1 стакан\n\nи\n\n> мука - 9 стаканов")
        fake_llm.reply_text("Обычно стакан.")
        output: list[str] = []

        await chat_in_terminal(
            make_agent(verify_quotes=True),
            read_line=scripted(["сколько муки?", "а сахара?"]),
            write=output.append,
        )

        text = "\n".join(output)
        assert f"  ✓ «мука - 1 стакан» — {CHARLOTTE}" in text
        assert "  ⚠️ «мука - 9 стаканов» — quote not found in the documents read" in text
        assert text.count("Not from the documents") == 1, "only the answer with nothing read"
        assert text.index("Not from the documents") > text.index("Обычно стакан.")

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

    async def test_a_servers_validation_dump_is_told_in_one_short_line(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        dump = "7 validation errors: " + "; ".join(
            f"{{'type': 'string_type', 'loc': ('body', 'messages', {i}, 'content')}}"
            for i in range(7)
        )
        fake_llm.reply_error(500, {"error": {"message": dump, "type": "internal_server_error"}})
        output: list[str] = []

        await chat_in_terminal(make_agent(), read_line=scripted(["раз"]), write=output.append)

        (line,) = [line for line in output if line.startswith("! ")]
        assert line.startswith("! unavailable: ")
        assert "validation" not in line
        assert "string_type" not in line
        assert len(line) < 120


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


class Screen:
    """A terminal: whole lines and text printed as it streams, in one transcript."""

    def __init__(self) -> None:
        self.text = ""
        self.pieces = 0

    def write(self, line: str) -> None:
        self.text += line + "\n"

    def put(self, text: str) -> None:
        self.text += text
        self.pieces += 1


class TestStreaming:
    async def test_the_answer_is_printed_as_it_streams_and_only_once(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        answer = "Для шарлотки нужен 1 стакан сахара, 3 яйца и стакан муки."
        fake_llm.streaming.content_chars = 4
        fake_llm.streaming.delay_s = 0.002
        fake_llm.reply_tool_calls(("read_file", {"path": CHARLOTTE}))
        fake_llm.reply_text(answer)
        screen = Screen()
        await chat_in_terminal(
            make_agent(), read_line=scripted(["сахар?"]), write=screen.write, put=screen.put
        )
        assert screen.pieces >= 5, "printed piece by piece"
        assert screen.text.count(answer) == 1
        assert f'read_file {{"path": "{CHARLOTTE}"}}\n' in screen.text
        assert f"\n{answer}\nSources: {CHARLOTTE}\n" in screen.text

    async def test_text_taken_back_is_marked_and_the_answer_starts_afresh(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        fake_llm.streaming.content_chars = 4
        fake_llm.reply_tool_calls(
            ("read_file", {"path": CHARLOTTE}), content="Сейчас посмотрю рецепт."
        )
        fake_llm.reply_text("Стакан сахара.")
        screen = Screen()
        await chat_in_terminal(
            make_agent(), read_line=scripted(["сахар?"]), write=screen.write, put=screen.put
        )
        lines = screen.text.splitlines()
        thinking = lines.index("Сейчас посмотрю рецепт.")
        assert "taken back" in lines[thinking + 1]
        assert lines.count("Стакан сахара.") == 1
        assert lines.index("Стакан сахара.") > thinking + 1

    async def test_a_cut_stream_ends_its_line_before_the_error(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        fake_llm.streaming.content_chars = 4
        fake_llm.reply(
            Reply(body=text_reply("Начало ответа, которое оборвётся").body, cut_after=4)
        )
        screen = Screen()
        await chat_in_terminal(
            make_agent(), read_line=scripted(["?"]), write=screen.write, put=screen.put
        )
        lines = screen.text.splitlines()
        (error,) = [line for line in lines if line.startswith("! stream_cut")]
        assert lines[lines.index(error) - 1].startswith("Начало")
