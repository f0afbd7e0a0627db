"""Hostile documents through the whole bot: error results for the model, service for everyone.

One user's question makes the model read a zip bomb, broken and self-referencing PDFs, invalid
UTF-8 and a file named with a newline and bidi controls; while that chain runs, another user
is answered. Parsers that hang are covered at the toolbox level (`tests/tools/test_hostile.py`),
where the extraction timeout can be shortened.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.accounts import USER_ID
from tests.fakes.fake_llm import Reply, text_reply, tool_calls_reply
from tests.fakes.harness import Harness
from tests.reliability.transcript import Transcript
from tests.tools.docgen import cyclic_pdf, inflating_pdf, zip_bomb_docx

NEIGHBOUR = USER_ID + 1
ODD_NAME = "отчёт\n\u202eтxt.exe"
BROKEN = ["bomb.docx", "cyclic.pdf", "inflating.pdf", "garbage.pdf"]


@pytest.fixture
def hostile_files(sandbox_dir: Path) -> list[str]:
    folder = sandbox_dir / "входящие"
    folder.mkdir()
    zip_bomb_docx(folder / "bomb.docx")
    (folder / "cyclic.pdf").write_bytes(cyclic_pdf())
    (folder / "inflating.pdf").write_bytes(inflating_pdf())
    (folder / "garbage.pdf").write_bytes(b"%PDF-1.4\n" + bytes(range(256)) * 16)
    (folder / "bad_utf8.txt").write_bytes(b"broken \xc3\x28 text \xa0\xa1 \xff end")
    (sandbox_dir / f"{ODD_NAME}.txt").write_text("Отчёт о продажах.", encoding="utf-8")
    return [*(f"входящие/{name}" for name in [*BROKEN, "bad_utf8.txt"]), f"{ODD_NAME}.txt"]


HOSTILE_QUESTION = "Что во входящих?"


class TestHostileDocumentsThroughTheBot:
    async def test_bad_files_become_error_results_and_others_are_served(
        self, make_dispatcher: Any, transcript: Transcript, hostile_files: list[str]
    ) -> None:
        async with make_dispatcher(allowed_user_ids=frozenset({USER_ID, NEIGHBOUR})) as harness:

            async def responder(request: dict[str, Any]) -> Reply:
                messages = request["messages"]
                if messages[-1]["content"] == "соседний вопрос":
                    return text_reply("Ответ соседу.")
                if messages[-1]["role"] == "user":
                    return tool_calls_reply(*(("read_file", {"path": p}) for p in hostile_files))
                await harness.session.wait_for(lambda _: bool(transcript.replies(NEIGHBOUR)))
                return text_reply("Часть файлов не читается.")

            harness.llm.responder = responder
            hostile = harness.updates.message(HOSTILE_QUESTION)
            neighbour = harness.updates.message("соседний вопрос", user_id=NEIGHBOUR)
            both = asyncio.gather(harness.feed(hostile), harness.feed(neighbour))
            await asyncio.wait_for(both, 60)

            assert transcript.replies(NEIGHBOUR) == ["Ответ соседу."]
            (reply,) = transcript.replies(USER_ID)
            assert reply.startswith("Часть файлов не читается.")
            results = _last_results(harness)
            assert len(results) == len(hostile_files)
            for path, result in zip(hostile_files[: len(BROKEN)], results, strict=False):
                assert set(result) == {"error", "hint"}, (path, result)
            bad_utf8, odd = results[len(BROKEN) :]
            assert "broken" in bad_utf8["document"]
            assert "Отчёт о продажах" in odd["document"]
            raw = _last_raw(harness)
            assert "\u202e" not in raw, "bidi controls reach the model escaped"

            await harness.feed(harness.updates.command("/files"))
            shown = harness.session.sent_texts()
            assert not [t for t in shown if "\u202e" in t], "no name can disguise itself"
            escaped = "отчёт\\u000a\\u202eтxt.exe.txt"
            assert escaped in reply
            assert escaped in transcript.replies(USER_ID)[-1]


def _last_request_about(harness: Harness, question: str) -> dict[str, Any]:
    """The newest request of the conversation that asked `question` (others run meanwhile)."""
    mine = [
        r
        for r in harness.llm.requests
        if any(m["role"] == "user" and m.get("content") == question for m in r["messages"])
    ]
    assert mine, f"no request asked {question!r}"
    return mine[-1]


def _last_results(harness: Harness) -> list[dict[str, Any]]:
    request = _last_request_about(harness, HOSTILE_QUESTION)
    return [json.loads(m["content"]) for m in request["messages"] if m["role"] == "tool"]


def _last_raw(harness: Harness) -> str:
    request = _last_request_about(harness, HOSTILE_QUESTION)
    return "".join(m["content"] for m in request["messages"] if m["role"] == "tool")
