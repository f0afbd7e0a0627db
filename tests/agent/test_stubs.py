"""A used tool result as a stub: it names what was read where, never the text, and stays JSON."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from bot.agent.stubs import KEEP_WHOLE, NAMES, stub_result
from tests.tools.docgen import text_pdf
from tools import Toolbox

PDF = "отчёты/квартал.pdf"


def three_pages(sandbox_dir: Path) -> None:
    pages = [[f"Страница {p}, строка {n}: текст отчёта." for n in range(30)] for p in (1, 2, 3)]
    (sandbox_dir / PDF).parent.mkdir(parents=True, exist_ok=True)
    (sandbox_dir / PDF).write_bytes(text_pdf(pages))


class TestReal:
    async def test_a_read_keeps_its_path_lines_and_places(
        self, toolbox: Toolbox, sandbox_dir: Path
    ) -> None:
        three_pages(sandbox_dir)
        read = await toolbox.execute("read_file", {"path": PDF, "offset": 40, "limit": 40})
        page = json.loads(read.text)

        stub = json.loads(stub_result(read.text, "read_file"))

        assert stub["path"] == PDF
        assert (stub["start_line"], stub["end_line"]) == (40, 79)
        assert stub["total_lines"] == page["total_lines"]
        assert stub["next_offset"] == 80
        assert stub["place"] == page["place"] == "page 2"
        assert stub["places"] == ["page 3"], "the markers inside the page read"
        assert "read_file again" in stub["left_out"]
        assert "текст отчёта" not in json.dumps(stub, ensure_ascii=False)
        assert len(stub_result(read.text, "read_file")) < len(read.text) / 4

    async def test_a_search_keeps_its_file_names(
        self, toolbox: Toolbox, sandbox_dir: Path
    ) -> None:
        for n in range(4):
            rel = f"отчёты/выручка_{n}.txt"
            (sandbox_dir / "отчёты").mkdir(exist_ok=True)
            (sandbox_dir / rel).write_text(f"Выручка квартала {n}: {n + 40} млн руб.\n")
            await toolbox.refresh(rel)
        found = await toolbox.execute("search_files", {"query": "выручка"})
        paths = [item["path"] for item in json.loads(found.text)["results"]]
        assert "отчёты/выручка_2.txt" in paths
        assert len(found.text) > KEEP_WHOLE

        stub = json.loads(stub_result(found.text, "search_files"))

        assert stub["paths"] == paths
        assert stub["total"] == json.loads(found.text)["total"]
        assert "search_files again" in stub["left_out"]

    async def test_a_listing_keeps_its_folder_and_first_names(self, toolbox: Toolbox) -> None:
        listed = await toolbox.execute("list_files", {"path": "", "depth": 3})
        entries = json.loads(listed.text)["entries"]

        stub = json.loads(stub_result(listed.text, "list_files"))

        assert stub["path"] == ""
        assert stub["paths"] == [e["path"] for e in entries][:NAMES]
        assert stub["total"] >= len(entries)

    async def test_an_error_is_short_and_stays_whole(self, toolbox: Toolbox) -> None:
        failed = await toolbox.execute("read_file", {"path": "нет/такого.txt"})
        assert failed.error is not None
        assert stub_result(failed.text, "read_file") == failed.text


class TestShapes:
    def test_an_object_of_no_known_shape_keeps_its_short_fields(self) -> None:
        text = json.dumps({"path": "a.txt", "text": "x" * 5_000, "size": 12, "hint": "read on"})
        assert json.loads(stub_result(text, "read_file")) == {
            "left_out": json.loads(stub_result(text, "read_file"))["left_out"],
            "path": "a.txt",
            "size": 12,
            "hint": "read on",
        }

    def test_text_that_is_not_json_becomes_a_note(self) -> None:
        stub = json.loads(stub_result("не JSON " * 200))
        assert list(stub) == ["left_out"]

    @given(st.text(min_size=0, max_size=3_000))
    def test_any_stub_is_json_and_shorter_or_the_text_itself(self, content: str) -> None:
        stub = stub_result(content, "read_file")
        assert stub == content or json.loads(stub)["left_out"]
        assert len(stub) <= len(content)
