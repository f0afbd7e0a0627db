"""Questions with pictures: image parts with the tools kept, the vision model, the OCR
fallback, the history and the usage, through the real SDK to the fake model server."""

from __future__ import annotations

import hashlib
import io
import json
import logging
from typing import Any

import pytest
from PIL import Image

from bot.agent import Agent, AgentConfig, HistoryStore, ModelBadReply
from bot.agent.client import LazyClient
from bot.agent.pictures import Picture, picture_tokens, prepare_picture
from bot.agent.types import ImagesRefused
from tests.agent.conftest import AgentFactory, ProgrammableTools, assert_request_valid
from tests.agent.test_pictures import gps_exif, photo
from tests.fakes.fake_llm import FakeLLM, make_client
from tests.tools.scan_docgen import (
    FONT,
    NEEDS_FONT,
    NEEDS_TESSERACT,
    tesseract_ready,
    text_image,
)

needs_tesseract = pytest.mark.skipif(not tesseract_ready(), reason=NEEDS_TESSERACT)
needs_font = pytest.mark.skipif(not FONT.exists(), reason=NEEDS_FONT)

MANUAL = "manuals/pump-x200.txt"


def label_photo() -> Picture:
    """A photo of equipment whose EXIF holds a location, prepared as the intake does."""
    return prepare_picture(photo(320, 240, gps_exif(orientation=6)))


def sha(picture: Picture) -> str:
    return hashlib.sha256(picture.data).hexdigest()


async def agent_history(agent: Agent, key: str) -> list[list[dict[str, Any]]]:
    return await agent._history.load_turns(key, 100)


def tool_names(request: dict[str, Any]) -> set[str]:
    return {spec["function"]["name"] for spec in request.get("tools") or []}


class TestImageParts:
    async def test_the_model_sees_the_picture_with_the_tools_and_searches(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        tools = ProgrammableTools({MANUAL: "Pump X200 manual: prime before starting."})
        picture = label_photo()
        fake_llm.reply_tool_calls(("search_files", {"query": "pump x200"}))
        fake_llm.reply_tool_calls(("read_file", {"path": MANUAL}))
        fake_llm.reply_text(f"Prime it before starting ({MANUAL}).")
        fake_llm.reply_text("A water pump with a label reading X200.")  # the description

        agent = make_agent(tools)
        answer = await agent.ask("chat:1", "where is the manual for this?", pictures=[picture])

        assert answer.sources == (MANUAL,)
        assert not answer.pictures_as_text
        assert tools.calls[0] == ("search_files", {"query": "pump x200"})
        first = fake_llm.requests[0]
        assert tool_names(first) == {"search_files", "read_file", "list_files"}
        assert_request_valid(first)
        seen = [i for i in fake_llm.images if i.request == 0]
        assert len(seen) == 1
        assert seen[0].sha256 == sha(picture)
        assert seen[0].mime == "image/jpeg"
        assert seen[0].detail == "auto"
        assert seen[0].text == "where is the manual for this?"
        assert seen[0].tools == ("search_files", "read_file", "list_files")
        assert not seen[0].exif
        assert (seen[0].width, seen[0].height) == (240, 320)
        # every round of the question shows the picture again, with the tools
        assert {i.request for i in fake_llm.images if i.sha256 == sha(picture)} >= {0, 1, 2}
        describe = fake_llm.requests[3]
        assert describe["max_tokens"] == 60
        assert "tools" not in describe
        assert [i.sha256 for i in fake_llm.images if i.request == 3] == [sha(picture)]
        turns = await agent_history(agent, "chat:1")
        assert turns[0][0] == {
            "role": "user",
            "content": "[picture: A water pump with a label reading X200.]\n"
            "where is the manual for this?",
        }
        assert answer.usage.model_calls == 4
        assert answer.usage.image_tokens == 4 * picture_tokens(240, 320, "auto")

    async def test_an_album_without_a_caption_and_detail_low(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        shot = Image.new("RGB", (400, 300), "white")
        out = io.BytesIO()
        shot.save(out, "PNG")
        pictures = [label_photo(), prepare_picture(out.getvalue())]
        fake_llm.reply_text("Two pictures: a pump and a blank screen.")
        fake_llm.reply_text("A pump and a blank screen.")
        agent = make_agent(ProgrammableTools(), options={"image_detail": "low"})

        await agent.ask("chat:1", "", pictures=pictures)

        seen = [i for i in fake_llm.images if i.request == 0]
        assert [i.sha256 for i in seen] == [sha(p) for p in pictures]
        assert [i.mime for i in seen] == ["image/jpeg", "image/png"]
        assert {i.detail for i in seen} == {"low"}
        assert seen[0].text  # a default question stands in for the missing caption


OPENAI_REFUSAL = {
    "error": {
        "message": "Invalid content type. image_url is only supported by certain models.",
        "type": "invalid_request_error",
        "param": "messages.[1].content.[1].type",
        "code": None,
    }
}
REFUSALS = [
    pytest.param(400, OPENAI_REFUSAL, id="openai"),
    pytest.param(
        500,
        {
            "error": {
                "code": 500,
                "message": "image input is not supported - hint: if this is unexpected, you "
                "may need to provide the mmproj",
                "type": "server_error",
            }
        },
        id="llama.cpp",
    ),
    pytest.param(
        400,
        {"error": {"message": "this model does not support image input", "type": "api_error"}},
        id="ollama",
    ),
    pytest.param(
        400,
        {
            "object": "error",
            "message": "Qwen/Qwen2.5-7B-Instruct is not a multimodal model",
            "type": "BadRequestError",
            "code": 400,
        },
        id="vllm",
    ),
]


def sign_picture() -> Picture:
    """A photographed notice: words OCR can read."""
    return prepare_picture(text_image(["PUMP X200 SERIAL 4471"], size=48))


class TestRefusedImages:
    @needs_tesseract
    @needs_font
    @pytest.mark.parametrize(("status", "body"), REFUSALS)
    async def test_a_model_that_refuses_images_gets_the_text_read_from_them(
        self,
        fake_llm: FakeLLM,
        make_agent: AgentFactory,
        caplog: pytest.LogCaptureFixture,
        status: int,
        body: dict[str, Any],
    ) -> None:
        tools = ProgrammableTools({MANUAL: "Pump X200 manual."})
        agent = make_agent(tools)
        fake_llm.reply_error(status, body)
        fake_llm.reply_tool_calls(("search_files", {"query": "x200"}))
        fake_llm.reply_text(f"See {MANUAL}.")

        with caplog.at_level(logging.WARNING, logger="bot.agent.loop"):
            answer = await agent.ask("chat:1", "what is this?", pictures=[sign_picture()])

        assert answer.pictures_as_text
        assert tools.calls == [("search_files", {"query": "x200"})]
        assert [i.request for i in fake_llm.images] == [0]  # only the refused request
        question = fake_llm.requests[1]["messages"][-1]["content"]
        assert isinstance(question, str)
        assert question.startswith("what is this?")
        assert "Text read from the picture:" in question
        assert "X200" in question
        assert tool_names(fake_llm.requests[1]) == {"search_files", "read_file", "list_files"}

        # the next question does not try images again, and the log says so once
        fake_llm.reply_text("Still the pump.")
        again = await agent.ask("chat:1", "and this?", pictures=[sign_picture()])

        assert again.pictures_as_text
        assert len(fake_llm.images) == 1
        refusals = [r for r in caplog.records if "does not take images" in r.getMessage()]
        assert len(refusals) == 1
        assert fake_llm.pending == 0

    @needs_tesseract
    @needs_font
    async def test_images_off_always_sends_the_text(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        fake_llm.reply_text("A pump.")
        agent = make_agent(ProgrammableTools(), options={"images": "off"})

        answer = await agent.ask("chat:1", "", pictures=[sign_picture()])

        assert answer.pictures_as_text
        assert fake_llm.images == []
        assert len(fake_llm.requests) == 1  # no description request: the OCR text gives it
        stored = (await agent_history(agent, "chat:1"))[0][0]["content"]
        assert stored.startswith("[picture: PUMP X200")

    async def test_another_error_is_not_taken_for_a_refusal(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        fake_llm.reply_error(400, {"error": {"message": "Invalid image: could not decode"}})

        with pytest.raises(ModelBadReply) as caught:
            await make_agent(ProgrammableTools()).ask("chat:1", "?", pictures=[label_photo()])
        assert not isinstance(caught.value, ImagesRefused)


class TestVisionModel:
    async def test_pictures_go_to_the_vision_model_and_text_to_the_main_one(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        agent = make_agent(ProgrammableTools(), options={"vision_model": "seeing-model"})
        fake_llm.reply_text("A pump.")
        fake_llm.reply_text("A pump on a wall.")
        fake_llm.reply_text("Hello.")

        await agent.ask("chat:1", "what is it?", pictures=[label_photo()])
        await agent.ask("chat:1", "hi")

        assert [r["model"] for r in fake_llm.requests] == [
            "seeing-model",
            "seeing-model",
            "test-model",
        ]

    async def test_the_fallback_chain_applies_to_a_picture_question(
        self, fake_llm: FakeLLM, history: HistoryStore
    ) -> None:
        async with FakeLLM() as fallback:
            config = AgentConfig(
                model="main-model",
                context_window=32_000,
                max_output_tokens=1_000,
                max_rounds=4,
                vision_model="seeing-model",
            )
            agent = Agent(
                config,
                make_client(fake_llm),
                ProgrammableTools(),
                history,
                fallbacks={"backup-model": LazyClient.of(make_client(fallback))},
            )
            picture = label_photo()
            fake_llm.reply_error(503, {"error": {"message": "overloaded"}})
            fallback.reply_text("A pump, says the fallback.")
            fallback.reply_text("A pump.")

            answer = await agent.ask("chat:1", "what is it?", pictures=[picture])

            assert answer.fallback_model == "backup-model"
            assert fake_llm.requests[0]["model"] == "seeing-model"
            assert [i.sha256 for i in fallback.images] == [sha(picture)] * 2
            assert tool_names(fallback.requests[0]) == {"search_files", "read_file", "list_files"}


class TestHistory:
    async def test_twenty_turns_with_pictures_keep_no_base64_and_fit_the_window(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        window, output = 6_000, 500
        agent = make_agent(ProgrammableTools(), context_window=window, max_output_tokens=output)
        for number in range(20):
            fake_llm.reply_text(f"Answer {number}: a pump, model X{number}.")
            fake_llm.reply_text(f"A pump labelled X{number}.")
            await agent.ask("chat:1", f"question {number}", pictures=[label_photo()])
        fake_llm.reply_text("The last one was X19.")

        await agent.ask("chat:1", "which was the last?")

        turns = await agent_history(agent, "chat:1")
        assert len(turns) == 21
        stored = json.dumps(turns)
        assert "base64" not in stored
        assert "data:image" not in stored
        assert turns[19][0]["content"] == "[picture: A pump labelled X19.]\nquestion 19"
        last = fake_llm.requests[-1]
        assert "base64" not in json.dumps(last)
        assert any(
            "[picture: A pump labelled X19.]" in str(m["content"]) for m in last["messages"]
        )
        questions = [r for r in fake_llm.requests if r.get("tools")]  # not the descriptions
        assert len(questions) == 21
        for request in questions:
            assert_request_valid(request, budget=window - output)

    async def test_a_large_picture_is_counted_by_its_tiles_not_its_base64(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        big = prepare_picture(photo(2000, 1500))
        assert len(big.data) > 200_000  # as text it would be far beyond the window
        fake_llm.reply_text("A noisy picture.")
        fake_llm.reply_text("Noise.")
        agent = make_agent(ProgrammableTools(), context_window=4_096, max_output_tokens=500)

        answer = await agent.ask("chat:1", "what is it?", pictures=[big])

        assert answer.text == "A noisy picture."
        assert answer.usage.image_tokens == 2 * picture_tokens(2000, 1500, "auto")
