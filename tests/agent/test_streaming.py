"""Streamed replies through the real SDK and the fake server's server-sent events.

Whatever the loop does with a whole reply holds for a streamed one; the answer is heard as it
grows, reasoning never shows, and a server that cannot stream is asked again whole.
"""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import json
import warnings
from typing import Any

import httpx2
import pytest

from bot.agent import AnswerDraft, ModelBadReply, ModelStreamCut, llm
from bot.agent.llm import ModelClient
from tests.agent.conftest import AgentFactory, ProgrammableTools, event_recorder
from tests.fakes.fake_llm import (
    FakeLLM,
    Reply,
    completion_body,
    make_client,
    text_reply,
    tool_calls_reply,
)

CHARLOTTE = "документы/рецепт_шарлотки.txt"
ANSWER = "Для шарлотки нужен **1 стакан сахара** и 3 яйца. Источник: рецепт."


def drafts(events: list[Any]) -> list[str]:
    return [e.text for e in events if isinstance(e, AnswerDraft)]


def streamed(request: dict[str, Any]) -> bool:
    return request.get("stream") is True


class TestConnections:
    async def test_a_finished_stream_leaves_its_connection_to_the_next_call(
        self, fake_llm: FakeLLM, make_agent: AgentFactory, programmable_tools: ProgrammableTools
    ) -> None:
        fake_llm.reply_tool_calls(("search_files", {"query": "сахар"}))
        fake_llm.reply_tool_calls(("read_file", {"path": CHARLOTTE}))
        fake_llm.reply_text(ANSWER)
        _, on_event = event_recorder()
        await make_agent(programmable_tools).ask("chat:1", "сколько сахара?", on_event)
        assert [streamed(r) for r in fake_llm.requests] == [True, True, True]
        assert len(fake_llm.peers) == 3
        assert len(set(fake_llm.peers)) == 1

    async def test_the_end_of_a_stream_past_its_bound_leaves_no_connection_open(
        self, fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        # The bound on reading a stream's end runs out just as the end hands its connection
        # back, as it does on a busy machine; the pool then closes those that idled too long.
        monkeypatch.setattr(llm, "_DRAIN_S", 0.0)
        pooled = httpx2.AsyncClient(limits=httpx2.Limits(keepalive_expiry=0.5))
        client = make_client(fake_llm, http_client=pooled)
        model = ModelClient(client, "test-model", 100)
        question = [{"role": "user", "content": "сколько сахара?"}]
        for n in range(4):
            fake_llm.reply_text(f"Ответ {n}.")
        fake_llm.reply(
            dataclasses.replace(text_reply(ANSWER), delay_s=1.0)
        )  # they idle past 0.5 s

        async def heard(text: str) -> None:
            pass

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            await asyncio.gather(*(model.complete(question, None) for _ in range(4)))
            reply = await model.complete(question, None, on_text=heard)
            await client.close()
            gc.collect()  # a connection neither pooled nor closed is found here, still open

        assert reply.text == ANSWER
        assert streamed(fake_llm.requests[-1])
        unclosed = [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)]
        assert unclosed == []


class TestStreamedAnswers:
    async def test_the_answer_is_heard_as_it_grows_and_equals_the_whole_reply(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        fake_llm.reply_text(ANSWER, usage=(700, 30))
        events, on_event = event_recorder()
        answer = await make_agent().ask("chat:1", "сколько сахара?", on_event)
        assert answer.text == ANSWER
        grown = drafts(events)
        assert len(grown) >= 5
        assert all(ANSWER.startswith(d) for d in grown)
        assert grown == sorted(grown, key=len)
        assert streamed(fake_llm.requests[0])
        assert fake_llm.requests[0]["stream_options"] == {"include_usage": True}
        assert answer.usage.prompt_tokens == 700
        assert answer.usage.completion_tokens == 30

    async def test_nobody_listening_means_no_stream(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        fake_llm.reply_text(ANSWER)
        assert (await make_agent().ask("chat:1", "?")).text == ANSWER
        assert not streamed(fake_llm.requests[0])

    async def test_tool_calls_split_over_chunks_and_interleaved_run_correctly(
        self,
        fake_llm: FakeLLM,
        make_agent: AgentFactory,
        programmable_tools: ProgrammableTools,
    ) -> None:
        fake_llm.streaming.argument_chars = 3
        fake_llm.reply_tool_calls(
            ("read_file", {"path": CHARLOTTE}), ("search_files", {"query": "сахар шарлотка"})
        )
        fake_llm.reply_text("Стакан сахара.")
        events, on_event = event_recorder()
        answer = await make_agent(programmable_tools).ask("chat:1", "?", on_event)
        assert answer.text == "Стакан сахара."
        assert programmable_tools.calls == [
            ("read_file", {"path": CHARLOTTE}),
            ("search_files", {"query": "сахар шарлотка"}),
        ]
        echoed = fake_llm.requests[1]["messages"][2]["tool_calls"]
        assert [json.loads(c["function"]["arguments"]) for c in echoed] == [
            {"path": CHARLOTTE},
            {"query": "сахар шарлотка"},
        ]
        assert answer.sources == (CHARLOTTE,)

    async def test_arguments_streamed_as_an_object_still_work(
        self,
        fake_llm: FakeLLM,
        make_agent: AgentFactory,
        programmable_tools: ProgrammableTools,
    ) -> None:
        fake_llm.reply_tool_calls(("read_file", {"path": CHARLOTTE}), arguments_as_object=True)
        fake_llm.reply_text("ok")
        _, on_event = event_recorder()
        await make_agent(programmable_tools).ask("chat:1", "?", on_event)
        assert programmable_tools.calls == [("read_file", {"path": CHARLOTTE})]

    async def test_text_before_tool_calls_is_taken_back(
        self,
        fake_llm: FakeLLM,
        make_agent: AgentFactory,
        programmable_tools: ProgrammableTools,
    ) -> None:
        fake_llm.reply_tool_calls(
            ("read_file", {"path": CHARLOTTE}), content="Сейчас посмотрю рецепт..."
        )
        fake_llm.reply_text("Стакан.")
        events, on_event = event_recorder()
        await make_agent(programmable_tools).ask("chat:1", "?", on_event)
        shown = drafts(events)
        assert any("Сейчас посмотрю" in d for d in shown)
        retract = shown.index("")
        assert all("Сейчас" not in d for d in shown[retract:])
        assert shown[-1] == "Стакан."

    async def test_reasoning_never_shows(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        fake_llm.reply_text("<think>the user wants sugar; look at the recipe</think>Стакан.")
        events, on_event = event_recorder()
        answer = await make_agent().ask("chat:1", "?", on_event)
        assert answer.text == "Стакан."
        assert all("think" not in d and "recipe" not in d for d in drafts(events))

    async def test_reasoning_content_is_not_the_answer(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        message = {"role": "assistant", "content": "Стакан.", "reasoning_content": "hmm"}
        fake_llm.reply(Reply(body=completion_body(message)))
        events, on_event = event_recorder()
        answer = await make_agent().ask("chat:1", "?", on_event)
        assert answer.text == "Стакан."
        assert all("hmm" not in d for d in drafts(events))

    async def test_length_in_a_stream_marks_the_answer_truncated(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        fake_llm.reply(text_reply("Начало ответа", finish_reason="length"))
        _, on_event = event_recorder()
        answer = await make_agent().ask("chat:1", "?", on_event)
        assert answer.truncated
        assert answer.text == "Начало ответа"


class TestServersThatCannotStream:
    async def test_a_refused_stream_is_sent_whole_and_remembered(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        fake_llm.streaming.refuse = True
        fake_llm.reply_text("Первый.")
        fake_llm.reply_text("Второй.")
        agent = make_agent()
        _, on_event = event_recorder()
        assert (await agent.ask("chat:1", "1?", on_event)).text == "Первый."
        assert (await agent.ask("chat:1", "2?", on_event)).text == "Второй."
        assert [streamed(r) for r in fake_llm.requests] == [True, False, False]

    async def test_stream_on_does_not_fall_back(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        fake_llm.streaming.refuse = True
        fake_llm.reply_text("Первый.")
        _, on_event = event_recorder()
        with pytest.raises(ModelBadReply, match="cannot stream"):
            await make_agent(stream="on").ask("chat:1", "?", on_event)

    async def test_stream_off_never_streams(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        fake_llm.reply_text("Ответ.")
        _, on_event = event_recorder()
        await make_agent(stream="off").ask("chat:1", "?", on_event)
        assert not streamed(fake_llm.requests[0])

    async def test_garbage_mid_stream_is_asked_again_whole(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        reply = text_reply(ANSWER)
        fake_llm.reply(Reply(body=reply.body, garble_after=3))
        fake_llm.reply_text(ANSWER)
        events, on_event = event_recorder()
        agent = make_agent()
        answer = await agent.ask("chat:1", "?", on_event)
        assert answer.text == ANSWER
        assert [streamed(r) for r in fake_llm.requests] == [True, False]
        shown = drafts(events)
        assert shown[-1] == "", "what was shown of the broken stream is taken back"

    async def test_a_server_that_ignores_stream_is_read_whole(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        body = json.dumps(text_reply("Целиком.").body, ensure_ascii=False).encode()
        fake_llm.reply_raw(body)
        _, on_event = event_recorder()
        assert (await make_agent().ask("chat:1", "?", on_event)).text == "Целиком."


class TestCutStreams:
    async def test_a_stream_cut_in_the_middle_is_an_error_with_what_was_shown(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        reply = text_reply(ANSWER)
        fake_llm.reply(Reply(body=reply.body, cut_after=4))
        events, on_event = event_recorder()
        agent = make_agent()
        with pytest.raises(ModelStreamCut) as cut:
            await agent.ask("chat:1", "?", on_event)
        assert cut.value.partial
        assert ANSWER.startswith(cut.value.partial)
        assert drafts(events)[-1] == cut.value.partial
        assert cut.value.kind == "stream_cut"

        fake_llm.reply_text("Снова работает.")
        assert (await agent.ask("chat:1", "ещё?", on_event)).text == "Снова работает."
        assert streamed(fake_llm.requests[-1]), "a cut stream is not a refusal to stream"

    async def test_tool_calls_cut_mid_stream_run_nothing(
        self,
        fake_llm: FakeLLM,
        make_agent: AgentFactory,
        programmable_tools: ProgrammableTools,
    ) -> None:
        reply = tool_calls_reply(("read_file", {"path": CHARLOTTE}))
        fake_llm.reply(Reply(body=reply.body, cut_after=3))
        _, on_event = event_recorder()
        with pytest.raises(ModelStreamCut):
            await make_agent(programmable_tools).ask("chat:1", "?", on_event)
        assert programmable_tools.calls == []
