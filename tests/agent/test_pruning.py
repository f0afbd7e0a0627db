"""Old tool results go to the model as stubs, and a later question still has what it needs.

The facts that must survive pruning, each checked in the request the model received:
- the earlier answer, word for word (it says what the pages held);
- the earlier `read_file` call with its arguments, right before its result;
- in that result's stub: the path read, the lines read and where the next page starts, the place
  of its first line and the pages it crossed, so the model can read the same place again.
What goes: the text of pages read for questions before the previous one. What never goes: the
results of the question being answered, and those of the previous question.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bot.agent.context import fit
from bot.agent.prompts import OMITTED_TURNS_NOTE
from bot.agent.tokens import TokenCounter
from tests.agent.conftest import AgentFactory, assert_request_valid
from tests.fakes.fake_llm import FakeLLM
from tests.tools.docgen import text_pdf

REPORT = "отчёты/годовой_отчёт.pdf"
RULES = "hr/правила.txt"
FIGURE = "Выручка за год: 42 млн руб."
ANSWER_1 = "Выручка за год составила 42 миллиона рублей (годовой_отчёт.pdf, страница 2)."
ANSWER_2 = "Отпуск — 28 календарных дней."


def filler(page: int) -> list[str]:
    return [f"Строка отчёта {page}-{n}: показатели подразделения в норме." for n in range(25)]


def write_documents(sandbox_dir: Path) -> None:
    """A three-page report whose figure is on page 2, and a long text of rules."""
    pages = [filler(1), [*filler(2)[:10], FIGURE, *filler(2)[10:]], filler(3)]
    (sandbox_dir / REPORT).parent.mkdir(parents=True, exist_ok=True)
    (sandbox_dir / REPORT).write_bytes(text_pdf(pages))
    rules = [f"Правило {n}: сотрудник соблюдает порядок номер {n}." for n in range(60)]
    rules[30] = "Ежегодный отпуск — 28 календарных дней."
    (sandbox_dir / RULES).write_text("\n".join(rules), encoding="utf-8")


def tool_results(messages: list[dict[str, Any]]) -> dict[str, str]:
    return {m["tool_call_id"]: m["content"] for m in messages if m["role"] == "tool"}


def calls(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [c for m in messages if m["role"] == "assistant" for c in m.get("tool_calls") or ()]


class TestALaterQuestionStillHasWhatItNeeds:
    async def test_the_answer_the_call_and_where_it_read_survive_the_page_goes(
        self, fake_llm: FakeLLM, make_agent: AgentFactory, sandbox_dir: Path
    ) -> None:
        write_documents(sandbox_dir)
        agent = make_agent(context_window=128_000, max_output_tokens=2_000)
        fake_llm.reply_tool_calls(("read_file", {"path": REPORT}))
        fake_llm.reply_text(ANSWER_1)
        await agent.ask("chat:1", "Какая выручка за год?")
        fake_llm.reply_tool_calls(("read_file", {"path": RULES}))
        fake_llm.reply_text(ANSWER_2)
        await agent.ask("chat:1", "Сколько дней отпуска?")
        first_read = fake_llm.requests[1]["messages"][-1]["content"]
        rules_read = fake_llm.requests[3]["messages"][-1]["content"]
        assert FIGURE in first_read

        fake_llm.reply_tool_calls(("read_file", {"path": REPORT, "offset": 1}))
        fake_llm.reply_text("42 миллиона рублей, страница 2.")
        await agent.ask("chat:1", "Напомни выручку и где она была?")

        asked = fake_llm.requests[4]
        assert_request_valid(asked)
        messages = asked["messages"]
        sent = json.dumps(messages, ensure_ascii=False)
        assert {"role": "assistant", "content": ANSWER_1} in messages
        assert {"role": "assistant", "content": ANSWER_2} in messages
        [report_call, rules_call] = calls(messages)
        assert report_call["function"]["name"] == "read_file"
        assert json.loads(report_call["function"]["arguments"]) == {"path": REPORT}
        stub = json.loads(tool_results(messages)[report_call["id"]])
        assert "read_file again" in stub["left_out"]
        assert stub["path"] == REPORT
        assert stub["start_line"] == 1
        assert stub["end_line"] >= 50
        assert stub["place"] == "page 1"
        assert stub["places"] == ["page 1", "page 2", "page 3"]
        assert FIGURE not in sent, "the page of a question before the previous one went again"
        assert "Строка отчёта 3-7" not in sent
        assert tool_results(messages)[rules_call["id"]] == rules_read, "the previous question"

        reread = fake_llm.requests[5]["messages"]
        assert reread[-1]["role"] == "tool"
        assert reread[-1]["content"] == first_read, "the current question's result, whole"

    async def test_the_current_question_keeps_every_result_whole(
        self, fake_llm: FakeLLM, make_agent: AgentFactory, sandbox_dir: Path
    ) -> None:
        write_documents(sandbox_dir)
        agent = make_agent(context_window=128_000, max_output_tokens=2_000)
        for n in range(3):
            fake_llm.reply_tool_calls(("read_file", {"path": RULES}))
            fake_llm.reply_text(f"ответ {n}")
            await agent.ask("chat:1", f"вопрос {n}")
        fake_llm.reply_tool_calls(("read_file", {"path": REPORT}))
        fake_llm.reply_tool_calls(("search_files", {"query": "выручка"}))
        fake_llm.reply_tool_calls(("read_file", {"path": RULES, "offset": 20}))
        fake_llm.reply_text("готово")
        await agent.ask("chat:1", "прочитай всё")

        last = fake_llm.requests[-1]["messages"]
        current = last[max(i for i, m in enumerate(last) if m["role"] == "user") :]
        results = [m["content"] for m in current if m["role"] == "tool"]
        assert len(results) == 3
        assert FIGURE in results[0]
        assert all("left_out" not in json.loads(r) for r in results)
        earlier = last[: len(last) - len(current)]
        stubs = [json.loads(m["content"]) for m in earlier if m["role"] == "tool"]
        assert ["left_out" in s for s in stubs] == [True, True, False]

    def test_fit_never_prunes_the_current_turn(self) -> None:
        page = json.dumps({"path": "a.txt", "document": "строка\n" * 500, "end_line": 500})
        current: list[dict[str, Any]] = [
            {"role": "user", "content": "q"},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {
                        "id": f"c{n}",
                        "type": "function",
                        "function": {"name": "read_file", "arguments": '{"path": "a.txt"}'},
                    }
                    for n in range(3)
                ],
            },
            *({"role": "tool", "tool_call_id": f"c{n}", "content": page} for n in range(3)),
        ]
        past = [[{**m, "content": m["content"]} for m in current] for _ in range(3)]
        for turn_ in past:
            turn_.append({"role": "assistant", "content": "ответ"})
        fitted = fit(
            "system", past, current, budget=100_000, tools_tokens=0, counter=TokenCounter()
        )
        assert fitted.messages[-len(current) :] == current
        assert fitted.pruned_turns == 2


class TestContextBudget:
    async def test_every_request_stays_within_the_budget_of_a_large_window(
        self, fake_llm: FakeLLM, make_agent: AgentFactory, sandbox_dir: Path
    ) -> None:
        write_documents(sandbox_dir)
        budget = 4_000
        agent = make_agent(
            context_window=128_000, max_output_tokens=2_000, options={"context_budget": budget}
        )
        for n in range(8):
            fake_llm.reply_tool_calls(("read_file", {"path": RULES}))
            fake_llm.reply_text(f"Ответ {n}: " + "подробности правил. " * 40)
            await agent.ask("chat:1", f"Вопрос {n} про правила?")

        for request in fake_llm.requests:
            assert_request_valid(request, budget=budget)
        last = fake_llm.requests[-1]["messages"]
        assert last[1] == {"role": "system", "content": OMITTED_TURNS_NOTE}
        status = await agent.status("chat:1")
        assert status.window == budget + 2_000
