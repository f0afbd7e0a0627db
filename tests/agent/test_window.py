"""A small window over a long conversation: every request fits and stays well-formed."""

from __future__ import annotations

import json

from bot.agent import DEFAULT_SYSTEM_PROMPT
from bot.agent.prompts import OMITTED_TURNS_NOTE
from tests.agent.conftest import AgentFactory, ProgrammableTools, assert_request_valid
from tests.fakes.fake_llm import FakeLLM

CHARLOTTE = "документы/рецепт_шарлотки.txt"
WINDOW = 4_096
OUTPUT = 1_024


class TestSmallWindow:
    async def test_ten_questions_stay_within_the_budget(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        agent = make_agent(
            context_window=WINDOW, max_output_tokens=OUTPUT, system_prompt=DEFAULT_SYSTEM_PROMPT
        )
        for n in range(10):
            fake_llm.reply_tool_calls(("search_files", {"query": "шарлотка"}))
            fake_llm.reply_tool_calls(
                ("read_file", {"path": CHARLOTTE}), ("read_file", {"path": "hr/отпуск.md"})
            )
            fake_llm.reply_text(f"Ответ {n}: сахар - 1 стакан. " + "Подробности рецепта. " * 30)
            answer = await agent.ask("chat:1", f"Вопрос номер {n} про шарлотку?")
            assert answer.text.startswith(f"Ответ {n}")

        for request in fake_llm.requests:
            assert_request_valid(request, budget=WINDOW - OUTPUT)
            assert request["messages"][0]["content"] == DEFAULT_SYSTEM_PROMPT
        last = fake_llm.requests[-1]["messages"]
        questions = [m["content"] for m in last if m["role"] == "user"]
        assert questions[-1] == "Вопрос номер 9 про шарлотку?"
        assert "Вопрос номер 0 про шарлотку?" not in questions
        assert last[1] == {"role": "system", "content": OMITTED_TURNS_NOTE}
        assert "сахар - 1 стакан" in json.dumps(last, ensure_ascii=False)

    async def test_a_huge_read_is_cut_with_a_marker(
        self, fake_llm: FakeLLM, make_agent: AgentFactory, programmable_tools: ProgrammableTools
    ) -> None:
        programmable_tools.files["big.txt"] = "строка документа\n" * 5_000
        agent = make_agent(programmable_tools, context_window=WINDOW, max_output_tokens=OUTPUT)
        fake_llm.reply_tool_calls(("read_file", {"path": "big.txt"}))
        fake_llm.reply_text("Прочитал начало.")

        answer = await agent.ask("chat:1", "что в big.txt?")

        assert answer.sources == ("big.txt",)
        request = fake_llm.requests[1]
        assert_request_valid(request, budget=WINDOW - OUTPUT)
        result = json.loads(request["messages"][-1]["content"])
        assert "cut to fit the context window" in result["cut"]
        assert result["path"] == "big.txt"
        assert result["text"].count("строка документа") > 100

        fake_llm.reply_text("Дальше")
        await agent.ask("chat:1", "а ещё?")
        assert_request_valid(fake_llm.requests[-1], budget=WINDOW - OUTPUT)
