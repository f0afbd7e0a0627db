"""Questions with pictures: image parts with the tools kept, the vision model, the OCR
fallback, the history and the usage, through the real SDK to the fake model server."""

from __future__ import annotations

import hashlib
import io
from typing import Any

from PIL import Image

from bot.agent.pictures import Picture, prepare_picture
from tests.agent.conftest import AgentFactory, ProgrammableTools, assert_request_valid
from tests.agent.test_pictures import gps_exif, photo
from tests.fakes.fake_llm import FakeLLM

MANUAL = "manuals/pump-x200.txt"


def label_photo() -> Picture:
    """A photo of equipment whose EXIF holds a location, prepared as the intake does."""
    return prepare_picture(photo(320, 240, gps_exif(orientation=6)))


def sha(picture: Picture) -> str:
    return hashlib.sha256(picture.data).hexdigest()


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
        fake_llm.reply_text("A water pump with a label reading X200.")

        answer = await make_agent(tools).ask(
            "chat:1", "where is the manual for this?", pictures=[picture]
        )

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

    async def test_an_album_without_a_caption_and_detail_low(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        shot = Image.new("RGB", (400, 300), "white")
        out = io.BytesIO()
        shot.save(out, "PNG")
        pictures = [label_photo(), prepare_picture(out.getvalue())]
        fake_llm.reply_text("Two pictures: a pump and a blank screen.")
        fake_llm.reply_text("A pump and a blank screen.")
        fake_llm.reply_text("A blank screen.")
        agent = make_agent(ProgrammableTools(), options={"image_detail": "low"})

        await agent.ask("chat:1", "", pictures=pictures)

        seen = [i for i in fake_llm.images if i.request == 0]
        assert [i.sha256 for i in seen] == [sha(p) for p in pictures]
        assert [i.mime for i in seen] == ["image/jpeg", "image/png"]
        assert {i.detail for i in seen} == {"low"}
        assert seen[0].text  # a default question stands in for the missing caption
