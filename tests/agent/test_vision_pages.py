"""Pages of documents shown as pictures: read_file's `picture` for a model that takes them,
through the real toolbox over a sandbox and the real SDK to the fake model server."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from bot.agent import Agent
from bot.agent.pictures import picture_tokens
from tests.agent.conftest import AgentFactory, assert_request_valid
from tests.agent.test_vision import OPENAI_REFUSAL, label_photo
from tests.fakes.fake_llm import FakeLLM
from tests.tools.docgen import reportlab_pdf
from tools import Toolbox
from tools.jail.scope import Scope

REPORT = "reports/q3.pdf"
SECRET = "secret/salaries.pdf"
PAGES = 6
PHRASE = "Quarterly table: TURNOVER 4471"


def page_lines(number: int) -> list[str]:
    return [PHRASE] if number == 2 else [f"Report page {number} of {PAGES}"]


@pytest.fixture
def sandbox_dir(tmp_path: Path) -> Path:
    """A report whose second page carries the answer, and a folder outside the scope."""
    root = tmp_path / "sandbox"
    (root / "reports").mkdir(parents=True)
    (root / "secret").mkdir()
    (root / REPORT).write_bytes(reportlab_pdf([page_lines(n) for n in range(1, PAGES + 1)]))
    (root / SECRET).write_bytes(reportlab_pdf([["Salaries: confidential"]]))
    return root


def line_of_page(page: int) -> int:
    """The line read_file numbers page `page`'s marker with (one line of text a page)."""
    return 2 * page - 1


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_spec(request: dict[str, Any]) -> dict[str, Any]:
    specs = {s["function"]["name"]: s["function"] for s in request["tools"]}
    return specs["read_file"]["parameters"]["properties"]  # type: ignore[no-any-return]


def tool_results(request: dict[str, Any]) -> list[dict[str, Any]]:
    return [json.loads(m["content"]) for m in request["messages"] if m["role"] == "tool"]


async def stored(agent: Agent, key: str) -> str:
    return json.dumps(await agent._history.load_turns(key, 100), ensure_ascii=False)


class TestThePageIsShown:
    async def test_a_vision_model_sees_the_page_it_asked_for_beside_its_text(
        self, fake_llm: FakeLLM, make_agent: AgentFactory, toolbox: Toolbox
    ) -> None:
        fake_llm.reply_tool_calls(
            ("read_file", {"path": REPORT, "offset": line_of_page(2), "limit": 2, "picture": True})
        )
        fake_llm.reply_text(f"Turnover was 4471 ({REPORT}, page 2).")
        agent = make_agent()

        answer = await agent.ask("chat:1", "what was the turnover?")

        assert answer.sources == (REPORT,)
        assert "picture" in read_spec(fake_llm.requests[0])
        drawn = await toolbox.page_picture(REPORT, 2)
        assert sha(drawn) != sha(await toolbox.page_picture(REPORT, 1))
        seen = fake_llm.images
        assert [i.request for i in seen] == [1]
        assert seen[0].sha256 == sha(drawn)
        assert seen[0].mime == "image/jpeg"
        assert seen[0].detail == "auto"
        assert seen[0].height == 1600  # what page_pictures draws: a phone's page, portrait
        assert seen[0].text == f"The page picture of {REPORT}, page 2, as read_file showed it."
        assert seen[0].tools == ("search_files", "read_file", "list_files")
        after = fake_llm.requests[1]
        assert_request_valid(after)
        assert [m["role"] for m in after["messages"][-2:]] == ["tool", "user"]
        (result,) = tool_results(after)
        assert PHRASE in result["document"]
        assert result["place"] == "page 2"
        assert result["picture"].startswith("page 2 follows as a picture")
        assert answer.usage.image_tokens == picture_tokens(seen[0].width, seen[0].height, "auto")
        history = await stored(agent, "chat:1")
        assert "base64" not in history
        assert f"[The page picture of {REPORT}, page 2 was shown here; it is not kept.]" in history

    async def test_a_question_shows_at_most_four_pages(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        reads = [
            ("read_file", {"path": REPORT, "offset": line_of_page(n), "limit": 2, "picture": True})
            for n in range(1, 6)
        ]
        fake_llm.reply_tool_calls(*reads)
        fake_llm.reply_tool_calls(reads[5 - 1])
        fake_llm.reply_text("Five pages read.")

        await make_agent().ask("chat:1", "show me the report")

        assert [i.request for i in fake_llm.images] == [1] * 4 + [2] * 4
        notes = [r["picture"] for r in tool_results(fake_llm.requests[2])]
        assert [n.startswith("page ") for n in notes] == [True] * 4 + [False, False]
        assert "as many pages as it may" in notes[4]
        assert PHRASE in tool_results(fake_llm.requests[2])[1]["document"]

    async def test_pages_take_at_most_half_the_window_and_the_rest_are_named(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        window, output = 3_500, 500  # one page (~1,100 tokens) fits half the budget, not two
        fake_llm.reply_tool_calls(
            *(
                ("read_file", {"path": REPORT, "offset": line_of_page(n), "picture": True})
                for n in (1, 2)
            )
        )
        fake_llm.reply_text("Page 1 seen, page 2 read.")
        agent = make_agent(context_window=window, max_output_tokens=output)

        answer = await agent.ask("chat:1", "show me two pages")

        assert answer.text == "Page 1 seen, page 2 read."
        assert [i.request for i in fake_llm.images] == [1]
        after = fake_llm.requests[1]
        assert after["messages"][-1]["content"] == (
            f"[The page picture of {REPORT}, page 2 could not be shown: "
            "the context window has no room for it.]"
        )
        assert PHRASE in tool_results(after)[1]["document"]
        assert_request_valid(after)


class TestTheJailAndTheScope:
    async def test_a_path_outside_the_scope_is_missing_as_for_text_and_shows_nothing(
        self, fake_llm: FakeLLM, make_agent: AgentFactory, toolbox: Toolbox
    ) -> None:
        scope = Scope.of(["reports"])
        fake_llm.reply_tool_calls(("read_file", {"path": SECRET, "picture": True}))
        fake_llm.reply_text("Not found.")

        await make_agent().ask("chat:1", "salaries?", scope=scope)

        assert fake_llm.images == []
        (result,) = tool_results(fake_llm.requests[1])
        as_text = await toolbox.execute("read_file", {"path": SECRET}, scope=scope)
        assert as_text.error is not None
        assert result == json.loads(as_text.text)
        assert toolbox.pages_drawn == 0


class TestAModelThatTakesNoPictures:
    async def test_images_off_offers_no_picture_and_a_stray_one_gets_the_text(
        self, fake_llm: FakeLLM, make_agent: AgentFactory, toolbox: Toolbox
    ) -> None:
        fake_llm.reply_tool_calls(
            ("read_file", {"path": REPORT, "offset": line_of_page(2), "picture": True})
        )
        fake_llm.reply_text("4471.")
        agent = make_agent(options={"images": "off"})

        await agent.ask("chat:1", "what was the turnover?")

        assert "picture" not in read_spec(fake_llm.requests[0])
        assert fake_llm.images == []
        (result,) = tool_results(fake_llm.requests[1])
        assert "error" not in result
        assert PHRASE in result["document"]
        assert result["picture"].startswith("not shown: pictures are not available")
        assert toolbox.pages_drawn == 0

    async def test_a_refusal_of_the_page_goes_on_with_its_text_and_offers_no_more(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        fake_llm.reply_tool_calls(
            ("read_file", {"path": REPORT, "offset": line_of_page(2), "picture": True})
        )
        fake_llm.reply_error(400, OPENAI_REFUSAL)
        fake_llm.reply_text("4471.")
        fake_llm.reply_text("Nothing else.")
        agent = make_agent()

        answer = await agent.ask("chat:1", "what was the turnover?")

        assert answer.text == "4471."
        assert [i.request for i in fake_llm.images] == [1]  # only the refused request
        again = fake_llm.requests[2]
        assert_request_valid(again)
        assert "picture" not in read_spec(again)
        assert again["messages"][-1] == {
            "role": "user",
            "content": f"[The page picture of {REPORT}, page 2 could not be shown: "
            "the model takes no pictures.]",
        }
        assert PHRASE in tool_results(again)[0]["document"]

        await agent.ask("chat:1", "anything else?")

        assert "picture" not in read_spec(fake_llm.requests[3])
        assert fake_llm.pending == 0

    async def test_a_separate_vision_model_is_offered_pages_only_with_pictures(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        agent = make_agent(options={"vision_model": "seeing-model"})
        fake_llm.reply_text("Hello.")
        fake_llm.reply_text("A pump.")
        fake_llm.reply_text("A pump on a wall.")

        await agent.ask("chat:1", "hi")
        await agent.ask("chat:1", "what is it?", pictures=[label_photo()])

        assert "picture" not in read_spec(fake_llm.requests[0])
        assert "picture" in read_spec(fake_llm.requests[1])


class TestHistory:
    async def test_twenty_turns_of_pages_keep_no_base64(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        agent = make_agent(context_window=8_000, max_output_tokens=500)
        for number in range(20):
            page = number % PAGES + 1
            fake_llm.reply_tool_calls(
                ("read_file", {"path": REPORT, "offset": line_of_page(page), "picture": True})
            )
            fake_llm.reply_text(f"Answer {number} from page {page}.")
            await agent.ask("chat:1", f"question {number}")

        history = await stored(agent, "chat:1")
        assert "base64" not in history
        assert "data:image" not in history
        assert history.count("was shown here; it is not kept") == 20
        assert len(fake_llm.images) == 20
        assert {i.request for i in fake_llm.images} == set(range(1, 40, 2))
        for request in fake_llm.requests:
            assert_request_valid(request)
