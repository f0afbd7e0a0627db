"""What the agent writes to the log: enough to operate the bot, never the users' questions.

At INFO a tool call is its name, duration and size; what was searched or read comes from the
user and appears only at DEBUG. A failed or stopped question is the front door's to report, so
the agent's own line stays below WARNING (otherwise the terminal chat shows each error twice).
"""

from __future__ import annotations

import asyncio
import logging

import pytest

from bot.agent.tokens import TokenCounter
from bot.console.terminal.chat import chat_in_terminal
from bot.process.logs import setup_logging
from tests.agent.conftest import AgentFactory
from tests.agent.test_terminal import scripted
from tests.fakes.fake_llm import FakeLLM

SECRET_QUERY = "зарплата Иванова"


async def test_tool_arguments_are_logged_at_debug_only(
    fake_llm: FakeLLM, make_agent: AgentFactory, caplog: pytest.LogCaptureFixture
) -> None:
    fake_llm.reply_tool_calls(("search_files", {"query": SECRET_QUERY}))
    fake_llm.reply_text("Не нашёл.")
    with caplog.at_level(logging.DEBUG, logger="bot"):
        await make_agent().ask("chat:1", "Какая зарплата у Иванова?")
    info = [r for r in caplog.records if r.levelno >= logging.INFO]
    debug = [r for r in caplog.records if r.levelno == logging.DEBUG]
    assert any("search_files" in r.getMessage() for r in info), "a tool call is logged"
    assert not [r.getMessage() for r in info if "Иванов" in r.getMessage()]
    assert any(SECRET_QUERY in r.getMessage() for r in debug)


async def test_a_failed_question_is_printed_once_in_the_terminal(
    fake_llm: FakeLLM, make_agent: AgentFactory, caplog: pytest.LogCaptureFixture
) -> None:
    fake_llm.reply_error(500, "upstream broke")
    output: list[str] = []
    with caplog.at_level(logging.WARNING):
        await chat_in_terminal(
            make_agent(), read_line=scripted(["вопрос", None]), write=output.append
        )
    assert [line for line in output if line.startswith("! ")] != []
    assert [r.getMessage() for r in caplog.records if r.name.startswith("bot")] == []


async def test_a_cancelled_question_is_not_a_warning(
    fake_llm: FakeLLM, make_agent: AgentFactory, caplog: pytest.LogCaptureFixture
) -> None:
    fake_llm.reply_hang()
    agent = make_agent(timeout=30.0)
    with caplog.at_level(logging.WARNING):
        task = asyncio.create_task(agent.ask("chat:1", "вопрос"))
        await fake_llm.wait_for_requests(1)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    assert [r.getMessage() for r in caplog.records if r.name.startswith("bot")] == []


def test_a_low_token_estimate_is_not_news(caplog: pytest.LogCaptureFixture) -> None:
    counter = TokenCounter.for_model("unknown-model")
    with caplog.at_level(logging.INFO, logger="bot"):
        counter.observe(1_000, 5_000)
    assert caplog.records == []


def test_http_clients_do_not_log_each_request() -> None:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        setup_logging("INFO")
        for name in ("httpx", "httpx2", "httpcore2", "openai", "watchfiles"):
            assert not logging.getLogger(name).isEnabledFor(logging.INFO), name
    finally:
        for handler in list(root.handlers):
            root.removeHandler(handler)
        for handler in handlers:
            root.addHandler(handler)
        root.setLevel(level)
