"""The model chain inside the agent: a fallback taking over mid-question, and what happens when
every model is down (real clients, two fake servers, a clock the test moves)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.agent import Agent, AgentConfig, HistoryStore, ModelUnavailable, ToolRunner
from bot.agent.client import LazyClient
from tests.agent.conftest import assert_request_valid
from tests.fakes.clock import FakeClock
from tests.fakes.fake_llm import FakeLLM, make_client

FALLBACK = "model-b"
COOLDOWN_S = 30.0


@pytest.fixture
async def fallback_llm() -> AsyncIterator[FakeLLM]:
    async with FakeLLM() as server:
        yield server


def chained_agent(
    main: FakeLLM, fallback: FakeLLM, tools: ToolRunner, history: HistoryStore, clock: FakeClock
) -> Agent:
    config = AgentConfig(
        model="main-model",
        context_window=32_000,
        max_output_tokens=1_000,
        max_rounds=4,
        system_prompt="Answer from the documents.",
        fallback_cooldown_s=COOLDOWN_S,
    )
    fallbacks = {FALLBACK: LazyClient.of(make_client(fallback))}
    return Agent(config, make_client(main), tools, history, fallbacks=fallbacks, clock=clock)


class TestTakingOver:
    async def test_a_fallback_goes_on_from_the_tool_results_the_main_model_asked_for(
        self,
        fake_llm: FakeLLM,
        fallback_llm: FakeLLM,
        scenario_tools: ToolRunner,
        history: HistoryStore,
    ) -> None:
        agent = chained_agent(fake_llm, fallback_llm, scenario_tools, history, FakeClock())
        fake_llm.reply_tool_calls(("search_files", {"query": "шарлотка"}))
        fake_llm.reply_error(502)
        fallback_llm.reply_text("Нужен стакан сахара.")
        answer = await agent.ask("c1", "сколько сахара в шарлотке?")
        assert answer.text == "Нужен стакан сахара."
        assert answer.fallback_model == FALLBACK
        assert answer.handover is None
        request = fallback_llm.requests[0]
        assert request["model"] == FALLBACK
        assert request["messages"] == fake_llm.requests[1]["messages"]
        assert_request_valid(request)

    async def test_the_main_model_answering_is_no_fallback(
        self,
        fake_llm: FakeLLM,
        fallback_llm: FakeLLM,
        scenario_tools: ToolRunner,
        history: HistoryStore,
    ) -> None:
        agent = chained_agent(fake_llm, fallback_llm, scenario_tools, history, FakeClock())
        fake_llm.reply_text("Ответ.")
        answer = await agent.ask("c1", "вопрос")
        assert answer.fallback_model is None
        assert fallback_llm.requests == []
        assert not any(state.open for state in agent.model_states())


class TestEveryModelDown:
    async def test_the_last_error_is_raised_and_paused_models_are_still_asked_as_a_last_resort(
        self,
        fake_llm: FakeLLM,
        fallback_llm: FakeLLM,
        scenario_tools: ToolRunner,
        history: HistoryStore,
    ) -> None:
        clock = FakeClock()
        agent = chained_agent(fake_llm, fallback_llm, scenario_tools, history, clock)
        fake_llm.reply_error(503)
        fallback_llm.reply_error(500)
        with pytest.raises(ModelUnavailable, match="HTTP 500"):
            await agent.ask("c1", "первый вопрос")
        assert [state.open for state in agent.model_states()] == [True, True]

        clock.advance(1)  # both within their cool-down: nobody is left to pass over to
        fake_llm.reply_text("Основная снова на связи.")
        answer = await agent.ask("c1", "второй вопрос")
        assert answer.text == "Основная снова на связи."
        assert answer.fallback_model is None
        assert len(fake_llm.requests) == 2
        assert len(fallback_llm.requests) == 1
        assert [state.open for state in agent.model_states()] == [False, True]
