"""The loop against the real SDK and the fake server: rounds, calls, quirks, events, order."""

from __future__ import annotations

import asyncio
import copy
import json
import logging
import re
from typing import Any

import pytest

from bot.agent import (
    AnswerDraft,
    AnswerReady,
    HistoryStore,
    ModelBadReply,
    ToolFinished,
    ToolRunner,
    ToolStarted,
)
from bot.agent.prompts import ROUND_LIMIT_NOTE
from bot.agent.replies import strip_reasoning
from tests.agent.conftest import (
    SPECS,
    AgentFactory,
    ProgrammableTools,
    assert_request_valid,
    event_recorder,
)
from tests.fakes.fake_llm import FakeLLM, Reply, completion_body, text_reply

CHARLOTTE = "документы/рецепт_шарлотки.txt"


def tool_messages(request: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in request["messages"] if m["role"] == "tool"]


def tool_names(request: dict[str, Any]) -> set[str]:
    return {spec["function"]["name"] for spec in request.get("tools") or []}


class TestAnswering:
    async def test_search_read_answer(
        self, fake_llm: FakeLLM, make_agent: AgentFactory, scenario_tools: ToolRunner
    ) -> None:
        fake_llm.reply_tool_calls(("search_files", {"query": "шарлотка"}))
        fake_llm.reply_tool_calls(("read_file", {"path": CHARLOTTE}))
        fake_llm.reply_text(f"Нужен 1 стакан сахара.\n\nИсточник: {CHARLOTTE}", usage=(900, 20))
        events, on_event = event_recorder()
        agent = make_agent(scenario_tools)

        answer = await agent.ask("chat:1", "Сколько сахара в шарлотке?", on_event)

        assert "1 стакан сахара" in answer.text
        assert answer.sources == (CHARLOTTE,)
        assert not answer.cut_short
        assert not answer.truncated
        assert answer.usage.rounds == 3
        assert answer.usage.model_calls == 3
        assert len(fake_llm.requests) == 3
        for request in fake_llm.requests:
            assert_request_valid(request, budget=32_000 - 1_000)
            assert tool_names(request) == {"search_files", "read_file", "list_files"}
            assert request["model"] == "test-model"
        assert CHARLOTTE in tool_messages(fake_llm.requests[1])[0]["content"]
        assert "сахар - 1 стакан" in tool_messages(fake_llm.requests[2])[-1]["content"]
        kinds = [type(e).__name__ for e in events if not isinstance(e, AnswerDraft)]
        assert kinds == ["ToolStarted", "ToolFinished"] * 2 + ["AnswerReady"]
        drafts = [e.text for e in events if isinstance(e, AnswerDraft)]
        assert drafts, "the answer streamed"
        assert all(answer.text.startswith(d) for d in drafts)
        assert drafts[-1] == answer.text
        assert events[0].name == "search_files"
        assert events[0].arguments == {"query": "шарлотка"}
        assert events[1].error is None
        assert events[1].result_chars > 0
        assert events[-1] == AnswerReady(answer.text)

    async def test_two_calls_of_one_reply_run_together_and_answer_in_order(
        self, fake_llm: FakeLLM, make_agent: AgentFactory, programmable_tools: ProgrammableTools
    ) -> None:
        programmable_tools.barrier = asyncio.Barrier(2)
        fake_llm.reply_tool_calls(
            ("search_files", {"query": "шарлотка"}),
            ("read_file", {"path": CHARLOTTE}),
            ids=["first", "second"],
        )
        fake_llm.reply_text("Сахар: 1 стакан.")

        answer = await make_agent(programmable_tools).ask("chat:1", "рецепт шарлотки?")

        assert answer.text == "Сахар: 1 стакан."
        assert programmable_tools.max_running == 2
        results = tool_messages(fake_llm.requests[1])
        assert [m["tool_call_id"] for m in results] == ["first", "second"]
        assert "results" in results[0]["content"]
        assert "сахар - 1 стакан" in results[1]["content"]
        assert_request_valid(fake_llm.requests[1])

    async def test_search_and_read_in_one_reply_with_the_real_tools(
        self, fake_llm: FakeLLM, make_agent: AgentFactory, scenario_tools: ToolRunner
    ) -> None:
        fake_llm.reply_tool_calls(
            ("search_files", {"query": "отпуск"}), ("read_file", {"path": "hr/отпуск.md"})
        )
        fake_llm.reply_text("28 календарных дней. Источник: hr/отпуск.md")

        answer = await make_agent().ask("chat:1", "Сколько дней отпуска?")

        assert answer.sources == ("hr/отпуск.md",)
        first, second = tool_messages(fake_llm.requests[1])
        assert any(r["path"] == "hr/отпуск.md" for r in json.loads(first["content"])["results"])
        assert "28 календарных дней" in second["content"]
        assert_request_valid(fake_llm.requests[1], budget=31_000)

    async def test_history_carries_earlier_questions_and_answers(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        agent = make_agent()
        fake_llm.reply_tool_calls(("search_files", {"query": "шарлотка"}))
        fake_llm.reply_text("Первый ответ")
        await agent.ask("chat:1", "Первый вопрос")
        fake_llm.reply_text("Второй ответ")
        await agent.ask("chat:1", "Второй вопрос")

        sent = fake_llm.requests[-1]["messages"]
        assert [m["role"] for m in sent] == [
            "system",
            "user",
            "assistant",
            "tool",
            "assistant",
            "user",
        ]
        assert sent[1]["content"] == "Первый вопрос"
        assert sent[4]["content"] == "Первый ответ"
        assert sent[-1]["content"] == "Второй вопрос"
        assert_request_valid(fake_llm.requests[-1])

    async def test_the_tool_specs_are_taken_once_and_sent_unchanged_every_round(
        self, fake_llm: FakeLLM, make_agent: AgentFactory, programmable_tools: ProgrammableTools
    ) -> None:
        asked: list[int] = []

        class CountingTools(ProgrammableTools):
            @property
            def specs(self) -> list[dict[str, Any]]:
                asked.append(1)
                return copy.deepcopy(SPECS)

        tools = CountingTools(programmable_tools.files)
        agent = make_agent(tools)
        for question in ("Первый вопрос", "Второй вопрос"):
            fake_llm.reply_tool_calls(("search_files", {"query": "шарлотка"}))
            fake_llm.reply_tool_calls(("read_file", {"path": CHARLOTTE}))
            fake_llm.reply_text("Сахар: 1 стакан.")
            await agent.ask("chat:1", question)

        assert len(fake_llm.requests) == 6
        assert all(request["tools"] == SPECS for request in fake_llm.requests)
        assert len(asked) == 1, "one copy of the specs serves every question in flight"


class TestRoundLimit:
    async def test_a_model_that_never_stops_gets_one_last_call_that_may_not_use_tools(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        for word in ("шарлотка", "пирог", "яблоки"):
            fake_llm.reply_tool_calls(("search_files", {"query": word}))
        fake_llm.reply_tool_calls(("search_files", {"query": "ещё"}), content="Судя по найденному")

        answer = await make_agent(max_rounds=3).ask("chat:1", "рецепт?")

        assert len(fake_llm.requests) == 4
        assert answer.cut_short
        assert answer.text == "Судя по найденному"
        assert answer.usage.rounds == 3
        assert answer.usage.model_calls == 4
        last = fake_llm.requests[-1]
        assert tool_names(last) == tool_names(fake_llm.requests[0])
        assert last["tool_choice"] == "none"
        assert all(r["tool_choice"] == "auto" for r in fake_llm.requests[:3])
        assert last["messages"][-1] == {"role": "system", "content": ROUND_LIMIT_NOTE}
        assert "cut short" not in ROUND_LIMIT_NOTE  # the chat says so once, from cut_short
        assert all(tool_names(r) for r in fake_llm.requests[:3])
        for request in fake_llm.requests:
            assert_request_valid(request)

        fake_llm.reply_text("Дальше")
        await make_agent(max_rounds=3).ask("chat:1", "а ещё?")
        follow_up = fake_llm.requests[-1]["messages"]
        assert ROUND_LIMIT_NOTE not in [m.get("content") for m in follow_up]
        assert {"role": "assistant", "content": "Судя по найденному"} in follow_up
        assert_request_valid(fake_llm.requests[-1])

    async def test_the_same_search_three_times_gets_a_hint(
        self, fake_llm: FakeLLM, make_agent: AgentFactory, programmable_tools: ProgrammableTools
    ) -> None:
        for _ in range(3):
            fake_llm.reply_tool_calls(("search_files", {"query": "шарлотка"}))
        fake_llm.reply_text("Готово")

        await make_agent(programmable_tools, max_rounds=5).ask("chat:1", "шарлотка?")

        assert len(programmable_tools.calls) == 2
        third = tool_messages(fake_llm.requests[3])[-1]["content"]
        assert "three times" in json.loads(third)["hint"]


class TestModelMistakes:
    @pytest.mark.parametrize(
        ("call", "expected"),
        [
            (("search_files", '{"query": "шарл'), "not one JSON object"),
            (("search_files", "[1, 2]"), "not one JSON object"),
            (("delete_everything", {"path": "/"}), "unknown tool"),
        ],
        ids=["bad-json", "not-an-object", "unknown-tool"],
    )
    async def test_mistakes_stop_before_a_runner_that_does_not_validate(
        self,
        fake_llm: FakeLLM,
        make_agent: AgentFactory,
        programmable_tools: ProgrammableTools,
        call: tuple[str, Any],
        expected: str,
    ) -> None:
        await self._mistake_comes_back(fake_llm, make_agent, programmable_tools, call, expected)
        assert programmable_tools.calls == []

    @pytest.mark.parametrize(
        ("call", "expected"),
        [
            (("search_files", '{"query": "шарл'), "the arguments are not valid JSON"),
            (("search_files", "[1, 2]"), "the arguments must be a JSON object"),
            (("delete_everything", {"path": "/"}), "there is no tool named"),
        ],
        ids=["bad-json", "not-an-object", "unknown-tool"],
    )
    async def test_the_toolbox_gets_raw_arguments_and_explains_in_its_words(
        self,
        fake_llm: FakeLLM,
        make_agent: AgentFactory,
        scenario_tools: ToolRunner,
        call: tuple[str, Any],
        expected: str,
    ) -> None:
        await self._mistake_comes_back(fake_llm, make_agent, scenario_tools, call, expected)

    @staticmethod
    async def _mistake_comes_back(
        fake_llm: FakeLLM,
        make_agent: AgentFactory,
        tools: ToolRunner,
        call: tuple[str, Any],
        expected: str,
    ) -> None:
        fake_llm.reply_tool_calls(call)
        fake_llm.reply_text("Исправился")
        events, on_event = event_recorder()

        answer = await make_agent(tools).ask("chat:1", "вопрос", on_event)

        assert answer.text == "Исправился"
        result = json.loads(tool_messages(fake_llm.requests[1])[0]["content"])
        assert expected in result["error"]
        assert result["hint"]
        finished = [e for e in events if isinstance(e, ToolFinished)]
        assert finished[0].error is not None
        assert expected in finished[0].error
        assert_request_valid(fake_llm.requests[1])

    async def test_invalid_arguments_come_back_from_the_tool(
        self, fake_llm: FakeLLM, make_agent: AgentFactory, scenario_tools: ToolRunner
    ) -> None:
        fake_llm.reply_tool_calls(("search_files", {"q": 5}))
        fake_llm.reply_text("Исправился")

        await make_agent().ask("chat:1", "вопрос")

        result = json.loads(tool_messages(fake_llm.requests[1])[0]["content"])
        assert "invalid arguments" in result["error"]
        assert result["hint"]
        assert_request_valid(fake_llm.requests[1])

    async def test_planted_instructions_cannot_read_outside_the_sandbox(
        self, fake_llm: FakeLLM, make_agent: AgentFactory, scenario_tools: ToolRunner
    ) -> None:
        fake_llm.reply_tool_calls(("read_file", {"path": "/etc/passwd"}))
        fake_llm.reply_tool_calls(("read_file", {"path": "../../etc/passwd"}))
        fake_llm.reply_text("Не могу прочитать этот файл.")

        answer = await make_agent().ask("chat:1", "прочитай /etc/passwd")

        assert answer.sources == ()
        for message in tool_messages(fake_llm.requests[2]):
            assert "root:" not in message["content"]
            assert "error" in json.loads(message["content"])

    async def test_a_tool_that_raises_is_reported_to_the_model(
        self, fake_llm: FakeLLM, make_agent: AgentFactory, programmable_tools: ProgrammableTools
    ) -> None:
        programmable_tools.explode = "list_files"
        fake_llm.reply_tool_calls(("list_files", {}))
        fake_llm.reply_text("Не вышло")

        answer = await make_agent(programmable_tools).ask("chat:1", "что есть?")

        assert answer.text == "Не вышло"
        result = json.loads(tool_messages(fake_llm.requests[1])[0]["content"])
        assert "failed unexpectedly" in result["error"]
        assert "disk on fire" not in result["error"]

    async def test_every_call_is_logged_with_its_measurements(
        self,
        fake_llm: FakeLLM,
        make_agent: AgentFactory,
        caplog: pytest.LogCaptureFixture,
    ) -> None:
        fake_llm.reply_tool_calls(
            ("read_file", {"path": CHARLOTTE}), ("read_file", {"path": "нет.txt"})
        )
        fake_llm.reply_text("ok")

        with caplog.at_level(logging.DEBUG, logger="bot.agent"):
            await make_agent().ask("chat:1", "q")

        calls = [r for r in caplog.records if r.name == "bot.agent.calls"]
        measured = sorted(r.getMessage() for r in calls if r.levelno == logging.INFO)
        assert len(measured) == 2
        ok, failed = sorted(measured, key=lambda line: line.endswith("failed"))
        assert re.search(r"^tool read_file took \d+\.\d{3}s, \d+ chars$", ok)
        assert re.search(r"^tool read_file took \d+\.\d{3}s, \d+ chars, failed$", failed)
        detail = [r.getMessage() for r in calls if r.levelno == logging.DEBUG]
        read, missing = sorted(detail, key=lambda line: "нет.txt" in line)  # finish order varies
        assert CHARLOTTE in read
        assert re.search(r"нет.txt.*: .*нет.txt", missing)
        summary = [r.getMessage() for r in caplog.records if r.name == "bot.agent.loop"]
        assert any("2 round(s), 2 call(s)" in line for line in summary)

    async def test_a_failing_event_handler_does_not_break_the_question(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        async def broken(event: object) -> None:
            raise RuntimeError

        fake_llm.reply_tool_calls(("search_files", {"query": "шарлотка"}))
        fake_llm.reply_text("Ответ")

        answer = await make_agent().ask("chat:1", "вопрос", broken)

        assert answer.text == "Ответ"


class TestProviderQuirks:
    async def test_tool_calls_with_finish_reason_stop_are_run(
        self, fake_llm: FakeLLM, make_agent: AgentFactory, programmable_tools: ProgrammableTools
    ) -> None:
        fake_llm.reply_tool_calls(("read_file", {"path": CHARLOTTE}), finish_reason="stop")
        fake_llm.reply_text("1 стакан")

        answer = await make_agent().ask("chat:1", "сахар?")

        assert answer.sources == (CHARLOTTE,)
        assert "сахар - 1 стакан" in tool_messages(fake_llm.requests[1])[0]["content"]

    async def test_arguments_sent_as_an_object_are_accepted_and_echoed_as_text(
        self, fake_llm: FakeLLM, make_agent: AgentFactory, programmable_tools: ProgrammableTools
    ) -> None:
        fake_llm.reply_tool_calls(("read_file", {"path": CHARLOTTE}), arguments_as_object=True)
        fake_llm.reply_text("1 стакан")

        await make_agent().ask("chat:1", "сахар?")

        assert "сахар - 1 стакан" in tool_messages(fake_llm.requests[1])[0]["content"]
        echoed = fake_llm.requests[1]["messages"][2]["tool_calls"][0]["function"]["arguments"]
        assert json.loads(echoed) == {"path": CHARLOTTE}
        assert_request_valid(fake_llm.requests[1])

    async def test_calls_without_ids_get_unique_ids_that_results_echo(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        fake_llm.reply_tool_calls(
            ("search_files", {"query": "a"}),
            ("list_files", {}),
            ("list_files", {"path": "hr"}),
            ids=[None, "", "call_0"],
        )
        fake_llm.reply_tool_calls(
            ("list_files", {}), ("read_file", {"path": "a"}), ids=["same", "same"]
        )
        fake_llm.reply_text("ok")

        await make_agent().ask("chat:1", "q")

        calls = fake_llm.requests[1]["messages"][2]["tool_calls"]
        ids = [c["id"] for c in calls]
        assert all(ids)
        assert ids[2] == "call_0"
        assert len(set(ids)) == 3
        assert [m["tool_call_id"] for m in tool_messages(fake_llm.requests[1])] == ids
        second = fake_llm.requests[2]["messages"][-3]["tool_calls"]
        assert second[0]["id"] == "same"
        assert second[1]["id"] != "same"
        assert_request_valid(fake_llm.requests[2])

    async def test_reasoning_is_stripped_from_the_answer_and_the_history(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        fake_llm.reply_tool_calls(("list_files", {}), content="<think>look around</think>")
        fake_llm.reply_text("<think>\nthe file says one glass\n</think>\n\nОдин стакан.")
        agent = make_agent()

        answer = await agent.ask("chat:1", "сахар?")
        fake_llm.reply_text("ok")
        await agent.ask("chat:1", "ещё?")

        assert answer.text == "Один стакан."
        assert "think" not in json.dumps(fake_llm.requests[-1]["messages"])

    async def test_null_and_empty_content_with_tool_calls(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        fake_llm.reply_tool_calls(("list_files", {}), content=None)
        fake_llm.reply_tool_calls(("list_files", {"path": "hr"}), content="")
        fake_llm.reply_text("ok")

        answer = await make_agent().ask("chat:1", "что есть?")

        assert answer.text == "ok"
        assert_request_valid(fake_llm.requests[2])

    async def test_length_finish_keeps_what_arrived(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        fake_llm.reply_text("Сахар - 1 ста", finish_reason="length")

        answer = await make_agent().ask("chat:1", "сахар?")

        assert answer.truncated
        assert answer.text == "Сахар - 1 ста"

    async def test_an_empty_answer_is_asked_for_once_more(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        fake_llm.reply_tool_calls(("list_files", {}))
        fake_llm.reply_text(None)
        fake_llm.reply_text("Там отпуск и шарлотка.")

        answer = await make_agent().ask("chat:1", "что есть?")

        assert answer.text == "Там отпуск и шарлотка."
        assert not answer.cut_short
        assert len(fake_llm.requests) == 3
        retry = fake_llm.requests[2]
        assert retry["tool_choice"] == "none"
        assert retry["messages"][-1]["role"] == "system"
        assert "empty" in retry["messages"][-1]["content"]
        assert_request_valid(retry)

    async def test_two_empty_answers_give_an_honest_reply_and_a_clean_history(
        self, fake_llm: FakeLLM, make_agent: AgentFactory, history: HistoryStore
    ) -> None:
        fake_llm.reply_tool_calls(("read_file", {"path": "документы/рецепт_шарлотки.txt"}))
        fake_llm.reply_text(None)
        fake_llm.reply_text("")
        agent = make_agent()

        answer = await agent.ask("chat:1", "что есть?")

        assert "no answer" in answer.text
        assert "документы/рецепт_шарлотки.txt" in answer.text
        assert answer.sources == ("документы/рецепт_шарлотки.txt",)
        assert len(fake_llm.requests) == 3
        assert await history.turn_states("chat:1") == ["done"]
        fake_llm.reply_text("Теперь ответ")
        assert (await agent.ask("chat:1", "ещё раз")).text == "Теперь ответ"
        assert_request_valid(fake_llm.requests[-1])

    async def test_an_answer_cut_off_before_any_text_is_a_bad_reply(
        self, fake_llm: FakeLLM, make_agent: AgentFactory, history: HistoryStore
    ) -> None:
        fake_llm.reply_text(None, finish_reason="length")

        with pytest.raises(ModelBadReply):
            await make_agent().ask("chat:1", "что есть?")

        assert len(fake_llm.requests) == 1
        assert await history.turn_states("chat:1") == ["failed"]

    async def test_no_retry_beyond_the_call_budget(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        fake_llm.reply_tool_calls(("list_files", {}))
        fake_llm.reply_tool_calls(("list_files", {"path": "hr"}))
        fake_llm.reply_text(None)

        answer = await make_agent(max_rounds=2).ask("chat:1", "что есть?")

        assert len(fake_llm.requests) == 3
        assert answer.usage.model_calls == 3
        assert answer.cut_short
        assert "no answer" in answer.text

    async def test_a_refusal_is_shown_as_the_answer(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        body = completion_body(
            {"role": "assistant", "content": None, "refusal": "I can't help with that."}
        )
        fake_llm.reply_raw(json.dumps(body).encode())

        answer = await make_agent().ask("chat:1", "q")

        assert answer.text == "I can't help with that."

    async def test_usage_is_summed_over_the_question(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        fake_llm.reply_tool_calls(("list_files", {}), usage=(100, 20))
        fake_llm.reply_text("ok", usage=(150, 30))

        answer = await make_agent().ask("chat:1", "q")

        assert answer.usage.prompt_tokens == 250
        assert answer.usage.completion_tokens == 50
        assert answer.usage.elapsed_s > 0


class TestConversations:
    async def test_a_second_question_waits_for_the_first(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        release = asyncio.Event()

        async def responder(body: dict[str, Any]) -> Reply | None:
            question = body["messages"][-1]["content"]
            if question == "первый":
                await release.wait()
            return text_reply(f"ответ на {question}")

        fake_llm.responder = responder
        agent = make_agent()
        first = asyncio.create_task(agent.ask("chat:1", "первый"))
        await fake_llm.wait_for_requests(1)
        second = asyncio.create_task(agent.ask("chat:1", "второй"))
        probe = asyncio.create_task(agent.ask("chat:2", "другой чат"))
        await fake_llm.wait_for_requests(2)
        assert fake_llm.requests[1]["messages"][-1]["content"] == "другой чат"
        release.set()

        answers = await asyncio.gather(first, second, probe)

        assert [a.text for a in answers] == [
            "ответ на первый",
            "ответ на второй",
            "ответ на другой чат",
        ]
        second_request = fake_llm.requests[2]["messages"]
        assert [m["content"] for m in second_request[1:]] == [
            "первый",
            "ответ на первый",
            "второй",
        ]

    async def test_concurrent_chats_never_mix(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        async def responder(body: dict[str, Any]) -> Reply | None:
            return text_reply(f"ответ на {body['messages'][-1]['content']}")

        fake_llm.responder = responder
        agent = make_agent()
        chats = [f"chat:{n}" for n in range(8)]
        for round_number in range(3):
            answers = await asyncio.gather(
                *(agent.ask(chat, f"{chat} #{round_number}") for chat in chats)
            )
            assert [a.text for a in answers] == [f"ответ на {c} #{round_number}" for c in chats]
        for request in fake_llm.requests:
            chat = request["messages"][-1]["content"].split(" #")[0]
            assert all(chat in m["content"] for m in request["messages"][1:])

    async def test_reset_starts_afresh_and_keeps_the_old_conversation(
        self, fake_llm: FakeLLM, make_agent: AgentFactory, history: HistoryStore
    ) -> None:
        agent = make_agent()
        fake_llm.reply_text("один")
        await agent.ask("chat:1", "первый")

        await agent.reset("chat:1")
        fake_llm.reply_text("два")
        await agent.ask("chat:1", "второй")

        assert [m["role"] for m in fake_llm.requests[-1]["messages"]] == ["system", "user"]
        assert await history.conversation_count("chat:1") == 2

    async def test_status_reports_the_conversation(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        agent = make_agent()
        empty = await agent.status("chat:1")
        fake_llm.reply_text("ответ", usage=(321, 12))
        await agent.ask("chat:1", "вопрос")

        status = await agent.status("chat:1")

        assert empty.messages == 0
        assert empty.last_usage is None
        assert status.messages == 2
        assert status.tokens > empty.tokens
        assert status.window == 32_000
        assert status.last_usage is not None
        assert status.last_usage.prompt_tokens == 321

    async def test_events_report_started_and_finished_for_each_call(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        fake_llm.reply_tool_calls(("search_files", {"query": "x"}), ("list_files", {}))
        fake_llm.reply_text("ok")
        events, on_event = event_recorder()

        await make_agent().ask("chat:1", "q", on_event)

        started = [e for e in events if isinstance(e, ToolStarted)]
        finished = [e for e in events if isinstance(e, ToolFinished)]
        assert {e.call_id for e in started} == {e.call_id for e in finished}
        assert len(started) == 2
        assert isinstance(events[-1], AnswerReady)


class TestReasoningStripped:
    @pytest.mark.parametrize(
        ("raw", "shown"),
        [
            ("<think>план</think>\nОтвет.", "Ответ."),
            ("Ответ.<think>пересчитать</think> Итог.", "Ответ. Итог."),
            ("  <think>рассуждение оборвалось", ""),
            ("размышление без начала</think>Ответ.", "Ответ."),
            ("Напишите <think в начале строки, и модель начнёт думать.", None),
            ("Тег <think> открывает рассуждение у Qwen.", None),
            ("Ответ про теги: <THINKING> и </thinking> парные.", "Ответ про теги:  парные."),
        ],
    )
    def test_only_reasoning_is_removed(self, raw: str, shown: str | None) -> None:
        assert strip_reasoning(raw) == (raw if shown is None else shown)
