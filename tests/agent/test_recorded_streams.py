"""Streams real servers sent, replayed through the real SDK to the bot's model client.

Each file in `tests/fixtures/model_streams` is one streamed completion with tool calls as a
server sent it (`SOURCES.md` there says where each was recorded). The fake server plays it
back byte for byte; the bot must read the same calls out of every dialect, and send each call
back with a string content, as every one of these servers accepts.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from bot.agent.llm import ModelClient
from tests.agent.conftest import SPECS, AgentFactory, ProgrammableTools, event_recorder
from tests.fakes.fake_llm import FakeLLM, make_client, text_reply

STREAMS = Path(__file__).resolve().parents[1] / "fixtures" / "model_streams"
QUESTION = [{"role": "user", "content": "?"}]


class Recorded(NamedTuple):
    """What a recording holds: its calls (id, name, arguments as JSON) and reported usage."""

    file: str
    calls: list[tuple[str, str, dict[str, Any]]]
    usage: tuple[int, int] | None = None


RECORDINGS = [
    Recorded(
        "openai.sse",
        [("call_2Uzw0AEZQeOex2CP2TKjcLKc", "get_weather", {"location": "San Francisco, CA"})],
    ),
    Recorded(
        "openai_two_calls.sse",
        [
            (
                "call_JMW1whyEaYG438VE1OIflxA2",
                "GetWeatherArgs",
                {"city": "Edinburgh", "country": "GB", "units": "c"},
            ),
            (
                "call_DNYTawLBoN8fj3KN6qU9N1Ou",
                "get_stock_price",
                {"ticker": "AAPL", "exchange": "NASDAQ"},
            ),
        ],
        usage=(149, 60),
    ),
    Recorded("ollama.sse", [("call_lbcjwr0u", "run_command", {"command": "ls -a"})]),
    Recorded(
        "ollama_two_calls.sse",
        [
            ("call_809l7n8f", "run_command", {"command": "ls -la"}),
            ("call_oqp1e2a1", "run_command", {"command": "ls -la", "cwd": "/path/to/directory"}),
        ],
    ),
    Recorded(
        "vllm.sse",
        [("chatcmpl-tool-ca99dda515524c6abe47d1ea22813507", "run_command", {"command": "ls"})],
    ),
    Recorded("lmstudio.sse", [("841199783", "get_random_int", {})]),
    Recorded(
        "llama_cpp_python.sse",
        [
            (
                "call__0_search_files_cmpl-c9199de7-3fe6-4c4f-a044-9552e549a594",
                "search_files",
                {"query": "find_chloe"},
            )
        ],
    ),
]


def replay(fake_llm: FakeLLM, name: str) -> None:
    fake_llm.reply_raw((STREAMS / name).read_bytes(), content_type="text/event-stream")


async def nobody(_: str) -> None:
    """A listener, so the client streams as it does when a chat watches the answer grow."""


@pytest.mark.parametrize("recorded", RECORDINGS, ids=[r.file for r in RECORDINGS])
async def test_every_servers_calls_are_read_as_they_were_sent(
    fake_llm: FakeLLM, recorded: Recorded
) -> None:
    replay(fake_llm, recorded.file)
    model = ModelClient(make_client(fake_llm), "m", 200, stream="on")

    reply = await model.complete(QUESTION, SPECS, None, nobody)

    assert fake_llm.requests[0]["stream"] is True
    got = [(c.id, c.name, json.loads(c.arguments)) for c in reply.tool_calls]
    assert got == recorded.calls
    assert reply.finish_reason == "tool_calls"
    usage = (reply.prompt_tokens, reply.completion_tokens)
    assert usage == (recorded.usage or (None, None))
    message = reply.assistant_message()
    assert message["content"] == ""
    assert [c["function"]["name"] for c in message["tool_calls"]] == [c[1] for c in got]


async def test_llama_cpp_pythons_text_stream_carries_no_usage(fake_llm: FakeLLM) -> None:
    replay(fake_llm, "llama_cpp_python_text.sse")
    heard: list[str] = []

    async def on_text(text: str) -> None:
        heard.append(text)

    model = ModelClient(make_client(fake_llm), "m", 200, stream="on")
    reply = await model.complete(QUESTION, SPECS, "none", on_text)

    assert reply.text.startswith("You're welcome.")
    assert heard[-1] == reply.text
    assert (reply.prompt_tokens, reply.completion_tokens) == (None, None)
    assert reply.finish_reason == "length"


async def test_llama_cpp_pythons_dropped_stream_then_whole_reply_run_one_search(
    fake_llm: FakeLLM, make_agent: AgentFactory
) -> None:
    # the server's answer to a streamed request whose model chose a tool: headers, nothing
    replay(fake_llm, "llama_cpp_python_auto.sse")
    fake_llm.reply_raw((STREAMS / "llama_cpp_python_whole.json").read_bytes())
    fake_llm.reply(text_reply("Рецепта шарлотки нет."))
    tools = ProgrammableTools()
    _, on_event = event_recorder()

    answer = await make_agent(tools).ask("chat:1", "Find the charlotte recipe.", on_event)

    assert tools.calls == [("search_files", {"query": "{url}_chocolate_recipe.json"})]
    assert [r.get("stream") is True for r in fake_llm.requests] == [True, False, False]
    assert all(r["tool_choice"] == "auto" for r in fake_llm.requests)
    (sent,) = [m for m in fake_llm.requests[-1]["messages"] if m.get("tool_calls")]
    assert sent["content"] == ""
    assert answer.text == "Рецепта шарлотки нет."
    assert not answer.usage.estimated  # sent whole, the server reports usage
