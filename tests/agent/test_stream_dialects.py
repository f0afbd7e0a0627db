"""Streamed tool calls in every shape servers send them, through the real SDK over HTTP.

OpenAI sends a call's id and name in its first piece only; llama-cpp-python repeats both (and
the index) in every piece; others send a call whole in one piece, leave out `index`, or send
arguments as an object. Each stream here is raw server-sent events played by the fake server,
and each must come out as the same calls: the right names, run once each, their ids echoed.
"""

from __future__ import annotations

import json
from typing import Any

from bot.agent import AnswerDraft
from tests.agent.conftest import AgentFactory, ProgrammableTools, event_recorder
from tests.fakes.fake_llm import FakeLLM, error_reply, text_reply, tool_calls_reply

QUESTION = "сколько сахара в шарлотке?"
ANSWER = "Нужен 1 стакан сахара."


def sse(*chunks: dict[str, Any], done: bool = True) -> bytes:
    """Chunks as a server sends them: `data:` lines, each followed by a blank line."""
    lines = [f"data: {json.dumps(c, ensure_ascii=False)}\n\n" for c in chunks]
    if done:
        lines.append("data: [DONE]\n\n")
    return "".join(lines).encode()


def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def call_piece(
    arguments: Any,
    *,
    index: int | None = 0,
    call_id: str | None = None,
    name: str | None = None,
) -> dict[str, Any]:
    function: dict[str, Any] = {"arguments": arguments}
    if name is not None:
        function["name"] = name
    piece: dict[str, Any] = {"type": "function", "function": function}
    if index is not None:
        piece["index"] = index
    if call_id is not None:
        piece["id"] = call_id
    return piece


def calls_stream(*pieces: dict[str, Any]) -> bytes:
    """A stream whose deltas each carry one piece of a call, then the finish reason."""
    return sse(
        chunk({"role": "assistant", "content": None}),
        *(chunk({"tool_calls": [p]}) for p in pieces),
        chunk({}, "tool_calls"),
    )


def answer_stream(text: str, usage: dict[str, int] | None = None) -> bytes:
    chunks = [chunk({"role": "assistant", "content": text[:5]}), chunk({"content": text[5:]})]
    chunks.append(chunk({}, "stop"))
    if usage is not None:
        chunks.append({"id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": [],
                       "usage": usage})  # fmt: skip
    return sse(*chunks)


async def ask(
    fake_llm: FakeLLM,
    make_agent: AgentFactory,
    tools: ProgrammableTools,
    *streams: bytes,
) -> Any:
    for body in streams:
        fake_llm.reply_raw(body, content_type="text/event-stream")
    events, on_event = event_recorder()
    answer = await make_agent(tools).ask("chat:1", QUESTION, on_event)
    assert any(isinstance(e, AnswerDraft) for e in events)  # it really streamed
    return answer


def sent_back_calls(fake_llm: FakeLLM) -> list[dict[str, Any]]:
    """The assistant message with calls that the second request carried back."""
    (message,) = [m for m in fake_llm.requests[1]["messages"] if m.get("tool_calls")]
    assert message["content"] == ""
    return list(message["tool_calls"])


class TestCallShapes:
    async def test_a_name_and_id_repeated_in_every_piece_are_taken_once(
        self, fake_llm: FakeLLM, make_agent: AgentFactory, programmable_tools: ProgrammableTools
    ) -> None:
        pieces = ['{"query"', ': "сахар', ' шарлотка"', "}"]
        stream = calls_stream(
            *(call_piece(p, call_id="call__0_search_files_x", name="search_files") for p in pieces)
        )
        answer = await ask(fake_llm, make_agent, programmable_tools, stream, answer_stream(ANSWER))
        assert programmable_tools.calls == [("search_files", {"query": "сахар шарлотка"})]
        (call,) = sent_back_calls(fake_llm)
        assert call["id"] == "call__0_search_files_x"
        assert call["function"] == {
            "name": "search_files",
            "arguments": '{"query": "сахар шарлотка"}',
        }
        tool_result = fake_llm.requests[1]["messages"][-1]
        assert tool_result["role"] == "tool"
        assert tool_result["tool_call_id"] == "call__0_search_files_x"
        assert answer.text == ANSWER

    async def test_an_id_and_name_in_the_first_piece_only(
        self, fake_llm: FakeLLM, make_agent: AgentFactory, programmable_tools: ProgrammableTools
    ) -> None:
        stream = calls_stream(
            call_piece("", call_id="call_a", name="read_file"),
            call_piece('{"path": "ре'),
            call_piece('цепт.txt"}'),
        )
        await ask(fake_llm, make_agent, programmable_tools, stream, answer_stream(ANSWER))
        assert programmable_tools.calls == [("read_file", {"path": "рецепт.txt"})]
        (call,) = sent_back_calls(fake_llm)
        assert call["id"] == "call_a"

    async def test_whole_calls_each_in_one_piece_at_the_same_index(
        self, fake_llm: FakeLLM, make_agent: AgentFactory, programmable_tools: ProgrammableTools
    ) -> None:
        stream = calls_stream(
            call_piece('{"query": "сахар"}', call_id="c1", name="search_files"),
            call_piece('{"path": "рецепт.txt"}', call_id="c2", name="read_file"),
        )
        await ask(fake_llm, make_agent, programmable_tools, stream, answer_stream(ANSWER))
        assert sorted(programmable_tools.calls, key=str) == [
            ("read_file", {"path": "рецепт.txt"}),
            ("search_files", {"query": "сахар"}),
        ]
        assert [c["id"] for c in sent_back_calls(fake_llm)] == ["c1", "c2"]

    async def test_whole_calls_without_index_or_id(
        self, fake_llm: FakeLLM, make_agent: AgentFactory, programmable_tools: ProgrammableTools
    ) -> None:
        stream = calls_stream(
            call_piece('{"query": "сахар"}', index=None, name="search_files"),
            call_piece('{"query": "яйца"}', index=None, name="search_files"),
        )
        await ask(fake_llm, make_agent, programmable_tools, stream, answer_stream(ANSWER))
        assert sorted(args["query"] for _, args in programmable_tools.calls) == ["сахар", "яйца"]
        ids = [c["id"] for c in sent_back_calls(fake_llm)]
        assert len(set(ids)) == 2

    async def test_pieces_without_index_continue_the_latest_call(
        self, fake_llm: FakeLLM, make_agent: AgentFactory, programmable_tools: ProgrammableTools
    ) -> None:
        stream = calls_stream(
            call_piece('{"query":', index=None, call_id="c1", name="search_files"),
            call_piece(' "сахар"}', index=None),
        )
        await ask(fake_llm, make_agent, programmable_tools, stream, answer_stream(ANSWER))
        assert programmable_tools.calls == [("search_files", {"query": "сахар"})]

    async def test_arguments_as_an_object_in_a_repeated_piece(
        self, fake_llm: FakeLLM, make_agent: AgentFactory, programmable_tools: ProgrammableTools
    ) -> None:
        stream = calls_stream(
            call_piece({"query": "сахар"}, call_id="c1", name="search_files"),
            call_piece("", call_id="c1", name="search_files"),
        )
        await ask(fake_llm, make_agent, programmable_tools, stream, answer_stream(ANSWER))
        assert programmable_tools.calls == [("search_files", {"query": "сахар"})]

    async def test_interleaved_calls_with_names_repeated(
        self, fake_llm: FakeLLM, make_agent: AgentFactory, programmable_tools: ProgrammableTools
    ) -> None:
        stream = calls_stream(
            call_piece('{"query": ', index=0, call_id="a", name="search_files"),
            call_piece('{"path": ', index=1, call_id="b", name="read_file"),
            call_piece('"сахар"}', index=0, call_id="a", name="search_files"),
            call_piece('"рецепт.txt"}', index=1, call_id="b", name="read_file"),
        )
        await ask(fake_llm, make_agent, programmable_tools, stream, answer_stream(ANSWER))
        assert sorted(programmable_tools.calls, key=str) == [
            ("read_file", {"path": "рецепт.txt"}),
            ("search_files", {"query": "сахар"}),
        ]


class TestUsageNotReported:
    async def test_output_tokens_are_estimated_and_marked(
        self, fake_llm: FakeLLM, make_agent: AgentFactory, programmable_tools: ProgrammableTools
    ) -> None:
        stream = calls_stream(call_piece('{"query": "сахар"}', call_id="c1", name="search_files"))
        long_answer = "Для шарлотки нужен один стакан сахара, три яйца и стакан муки. " * 4
        answer = await ask(
            fake_llm, make_agent, programmable_tools, stream, answer_stream(long_answer)
        )
        assert answer.usage.estimated
        assert answer.usage.prompt_tokens > 0
        # the answer alone is dozens of tokens; the call's name and arguments add a few more
        assert answer.usage.completion_tokens >= len(long_answer) // 8

    async def test_reported_usage_is_taken_as_it_is_and_not_marked(
        self, fake_llm: FakeLLM, make_agent: AgentFactory, programmable_tools: ProgrammableTools
    ) -> None:
        usage = {"prompt_tokens": 300, "completion_tokens": 12, "total_tokens": 312}
        answer = await ask(
            fake_llm, make_agent, programmable_tools, answer_stream(ANSWER, usage=usage)
        )
        assert not answer.usage.estimated
        assert (answer.usage.prompt_tokens, answer.usage.completion_tokens) == (300, 12)


class TestWhatLocalServersNeedSent:
    async def test_tools_go_with_tool_choice_auto(
        self, fake_llm: FakeLLM, make_agent: AgentFactory, programmable_tools: ProgrammableTools
    ) -> None:
        stream = calls_stream(call_piece('{"query": "сахар"}', call_id="c1", name="search_files"))
        await ask(fake_llm, make_agent, programmable_tools, stream, answer_stream(ANSWER))
        assert [r.get("tool_choice") for r in fake_llm.requests] == ["auto", "auto"]

    async def test_a_server_that_refuses_tool_choice_is_asked_again_without_it(
        self, fake_llm: FakeLLM, make_agent: AgentFactory, programmable_tools: ProgrammableTools
    ) -> None:
        refusal = {"error": {"message": "Unrecognized request argument: tool_choice"}}
        fake_llm.reply(error_reply(400, refusal))
        fake_llm.reply_raw(
            calls_stream(call_piece('{"query": "сахар"}', call_id="c1", name="search_files")),
            content_type="text/event-stream",
        )
        await ask(fake_llm, make_agent, programmable_tools, answer_stream(ANSWER))
        assert [r.get("tool_choice") for r in fake_llm.requests] == ["auto", None, None]
        assert programmable_tools.calls == [("search_files", {"query": "сахар"})]

    async def test_a_streamed_call_the_server_cannot_stream_is_asked_whole(
        self, fake_llm: FakeLLM, make_agent: AgentFactory, programmable_tools: ProgrammableTools
    ) -> None:
        refusal = {
            "error": {
                "message": "Automatic streaming tool choice is not supported",
                "type": "internal_server_error",
            }
        }
        fake_llm.reply(error_reply(500, refusal))
        fake_llm.reply(tool_calls_reply(("search_files", {"query": "сахар"})))
        fake_llm.reply(text_reply(ANSWER))
        _, on_event = event_recorder()
        answer = await make_agent(programmable_tools).ask("chat:1", QUESTION, on_event)
        assert answer.text == ANSWER
        assert [r.get("stream") is True for r in fake_llm.requests] == [True, False, False]
        assert programmable_tools.calls == [("search_files", {"query": "сахар"})]

    async def test_a_stream_closed_before_its_first_piece_is_asked_whole(
        self, fake_llm: FakeLLM, make_agent: AgentFactory, programmable_tools: ProgrammableTools
    ) -> None:
        # llama-cpp-python fails this way when the model chooses a tool in a stream: the
        # headers of a stream go out, then the connection closes with nothing in it
        fake_llm.reply_raw(b"", content_type="text/event-stream")
        fake_llm.reply(tool_calls_reply(("search_files", {"query": "сахар"})))
        fake_llm.reply(text_reply(ANSWER))
        _, on_event = event_recorder()
        answer = await make_agent(programmable_tools).ask("chat:1", QUESTION, on_event)
        assert answer.text == ANSWER
        assert [r.get("stream") is True for r in fake_llm.requests] == [True, False, False]
        assert programmable_tools.calls == [("search_files", {"query": "сахар"})]
