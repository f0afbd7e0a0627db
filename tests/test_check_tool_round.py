"""`check`'s round trip with a tool: a call, its result sent back, an answer, through the bot's
own model client and the fake model server over HTTP, streamed as the bot streams. Each way a
local server falls short is one line naming the step and what to change."""

from __future__ import annotations

from typing import Any

import pytest

from bot.console.check.tool_round import (
    NO_TOOLS_HINT,
    ONLY_WHEN_TOLD,
    SLOW_HINT,
    TOOL_NAME,
    check_tool_round,
)
from bot.entrance.loading import load_settings
from bot.settings.model import Settings
from tests.fakes import tool_round
from tests.fakes.fake_llm import FakeLLM

KEY = "sk-round-trip-secret-321"
MODEL = "gpt-4.1-mini"


def _settings(fake_llm: FakeLLM, **values: Any) -> Settings:
    return load_settings(
        openai_api_key=KEY, openai_base_url=fake_llm.base_url, _env_file=None, **values
    )


class TestAServerThatCallsTools:
    async def test_a_streamed_round_trip_passes_and_is_sent_as_the_loop_sends_it(
        self, fake_llm: FakeLLM
    ) -> None:
        fake_llm.responder = tool_round.calls_tools
        outcome = await check_tool_round(_settings(fake_llm))
        assert outcome.ok is True, outcome.line()
        assert outcome.line().startswith(
            f"✓ tool calls: {MODEL} called a tool, took its result and answered (streamed) in "
        )
        ask, result = fake_llm.requests
        assert ask["stream"] is True and result["stream"] is True
        assert ask["tool_choice"] == "auto", "asked as the bot asks: the model chooses"
        assert [t["function"]["name"] for t in ask["tools"]] == [TOOL_NAME]
        assistant, tool = result["messages"][-2:]
        (call,) = assistant["tool_calls"]
        assert call["function"] == {"name": TOOL_NAME, "arguments": '{"zone": "UTC"}'}
        assert tool["role"] == "tool"
        assert tool["tool_call_id"] == call["id"]

    async def test_sent_whole_when_the_bot_does_not_stream(self, fake_llm: FakeLLM) -> None:
        fake_llm.responder = tool_round.calls_tools
        outcome = await check_tool_round(_settings(fake_llm, stream="off"))
        assert "answered (sent whole)" in outcome.text
        assert all("stream" not in request for request in fake_llm.requests)


class TestAServerThatFallsShort:
    async def test_a_model_that_never_calls_a_tool(self, fake_llm: FakeLLM) -> None:
        fake_llm.responder = tool_round.never_calls
        outcome = await check_tool_round(_settings(fake_llm))
        assert outcome.line() == f"✗ tool calls: the model did not call the tool: {NO_TOOLS_HINT}"
        asked = [request.get("tool_choice") for request in fake_llm.requests]
        assert asked == ["auto", {"type": "function", "function": {"name": TOOL_NAME}}]

    async def test_a_server_that_calls_tools_only_when_told(self, fake_llm: FakeLLM) -> None:
        fake_llm.responder = tool_round.calls_only_when_told
        outcome = await check_tool_round(_settings(fake_llm))
        assert outcome.line() == f"✗ tool calls: {ONLY_WHEN_TOLD}"

    async def test_a_refused_tool_result_names_the_step(self, fake_llm: FakeLLM) -> None:
        fake_llm.responder = tool_round.refuses_results
        outcome = await check_tool_round(_settings(fake_llm))
        assert outcome.line() == (
            "✗ tool calls: the server refused the tool result (HTTP 500: unknown role: tool | "
            f"server_error): {NO_TOOLS_HINT}"
        )

    async def test_a_garbled_streamed_call(self, fake_llm: FakeLLM) -> None:
        fake_llm.responder = tool_round.garbles_arguments
        outcome = await check_tool_round(_settings(fake_llm))
        assert outcome.line() == (
            '✗ tool calls: streamed tool call garbled: its arguments \'{"zone": "UT\' are not a '
            "JSON object: set STREAM=off to have answers sent whole"
        )
        assert len(fake_llm.requests) == 1, "the result is not sent for a call that cannot be read"

    @pytest.mark.parametrize("stream", ["auto", "off"])
    async def test_a_server_that_does_not_answer_is_given_up_in_time(
        self, fake_llm: FakeLLM, stream: str
    ) -> None:
        fake_llm.reply_hang()
        settings = _settings(fake_llm, stream=stream)
        outcome = await check_tool_round(settings, timeout_s=0.3)
        assert outcome.ok is False
        assert outcome.text.startswith("a request with a tool failed (")
        assert "did not answer within 0.3s" in outcome.text
        assert outcome.text.endswith(SLOW_HINT)
        assert KEY not in outcome.text

    async def test_offline_asks_nothing(self, fake_llm: FakeLLM) -> None:
        outcome = await check_tool_round(_settings(fake_llm), offline=True)
        assert outcome.ok is None
        assert fake_llm.requests == []
