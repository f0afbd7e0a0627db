"""Pages of PDFs and scans drawn as pictures: the right page, a photo's shape, the jail and the
scope, the memory of pages drawn, and hostile files that fail with a reason, never a crash."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tests.tools.docgen import cyclic_pdf, slow_pdf, text_pdf
from tests.tools.picture_docgen import (
    darkness,
    picture_size,
    shade,
    shaded_pdf,
    shaded_tiff,
    strip_png,
)
from tests.tools.scan_docgen import png_header
from tools import Toolbox
from tools.config import ToolSettings
from tools.errors import (
    ContentError,
    ExtractionError,
    NoSuchPageError,
    NotPagedError,
    PathNotFoundError,
    SandboxError,
)
from tools.jail.scope import Scope
from tools.tool import PictureMode

PAGES = 5


async def _started(root: Path, data: Path, **options: Any) -> Toolbox:
    box = Toolbox(ToolSettings(sandbox_dir=root, data_dir=data), watch_interval=3600, **options)
    await box.start()
    await asyncio.wait_for(box.wait_ready(), 60)
    return box


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The documents and their index, built once: the pages carry no text, so indexing them
    runs OCR on every page, which each test would otherwise pay again."""
    base = tmp_path_factory.mktemp("pictures")
    root = base / "docs"
    (root / "hr").mkdir(parents=True)
    (root / "finance").mkdir()
    (root / "hr" / "rules.pdf").write_bytes(shaded_pdf(PAGES, landscape=(4,)))
    (root / "finance" / "budget.pdf").write_bytes(shaded_pdf(2))
    (root / "hr" / "scan.tiff").write_bytes(shaded_tiff(3))
    (root / "hr" / "notes.txt").write_text("no pages here", "utf-8")

    async def build() -> None:
        await (await _started(root, base / "data")).close()

    asyncio.run(build())
    return base


@pytest.fixture
async def box(indexed: Path, tmp_path: Path) -> AsyncIterator[Toolbox]:
    """A toolbox of its own on a copy of the documents and their index (the copies keep the
    files' times, so the index is current and nothing is read again)."""
    for folder in ("docs", "data"):
        await asyncio.to_thread(shutil.copytree, indexed / folder, tmp_path / folder)
    toolbox = await _started(tmp_path / "docs", tmp_path / "data")
    assert toolbox.extraction_count == 0, "the copied index is current"
    yield toolbox
    await toolbox.close()


class TestTheRightPage:
    @pytest.mark.parametrize("page", [1, 2, PAGES])
    async def test_each_pdf_page_is_drawn_as_itself(self, box: Toolbox, page: int) -> None:
        picture = await box.page_picture("hr/rules.pdf", page)
        assert darkness(picture) == pytest.approx(shade(page, PAGES), abs=0.03)

    async def test_a_page_is_sized_for_a_phone_on_its_longest_side(self, box: Toolbox) -> None:
        width, height = picture_size(await box.page_picture("hr/rules.pdf", 1))
        assert height == 1600 and 1100 <= width <= 1150
        width, height = picture_size(await box.page_picture("hr/rules.pdf", 4))
        assert width == 1600 and 1100 <= height <= 1150, "a landscape page lies on its side"

    async def test_a_frame_of_a_multi_page_scan(self, box: Toolbox) -> None:
        picture = await box.page_picture("hr/scan.tiff", 2)
        assert darkness(picture) == pytest.approx(shade(2, 3), abs=0.03)
        assert picture_size(picture) == (600, 800), "a scan is never enlarged"

    async def test_a_thin_strip_is_padded_to_a_shape_telegram_takes(
        self, box: Toolbox, tmp_path: Path
    ) -> None:
        await asyncio.to_thread((tmp_path / "docs" / "strip.png").write_bytes, strip_png(4000, 40))
        width, height = picture_size(await box.page_picture("strip.png", 1))
        assert width <= 1600 and width / height <= 20


class TestRefusals:
    @pytest.mark.parametrize("page", [PAGES + 1, 0, -1])
    async def test_a_page_past_the_end(self, box: Toolbox, page: int) -> None:
        with pytest.raises(NoSuchPageError) as caught:
            await box.page_picture("hr/rules.pdf", page)
        assert caught.value.page == page

    async def test_a_page_past_the_end_says_how_many_there_are(self, box: Toolbox) -> None:
        with pytest.raises(NoSuchPageError) as caught:
            await box.page_picture("hr/scan.tiff", 4)
        assert caught.value.pages == 3
        assert "has no page 4 (it has 3)" in caught.value.message

    async def test_a_file_without_pages(self, box: Toolbox) -> None:
        with pytest.raises(NotPagedError):
            await box.page_picture("hr/notes.txt", 1)

    async def test_outside_the_scope_reads_as_missing(self, box: Toolbox) -> None:
        with pytest.raises(PathNotFoundError):
            await box.page_picture("finance/budget.pdf", 1, scope=Scope.of(["hr"]))
        assert await box.page_picture("hr/rules.pdf", 1, scope=Scope.of(["hr"]))

    @pytest.mark.parametrize("path", ["../docs/hr/rules.pdf", "/etc/passwd", "hr/gone.pdf"])
    async def test_the_jail_refuses_what_read_file_refuses(self, box: Toolbox, path: str) -> None:
        with pytest.raises(SandboxError):
            await box.page_picture(path, 1)


def read_props(specs: list[dict[str, Any]]) -> dict[str, Any]:
    (read,) = [s["function"] for s in specs if s["function"]["name"] == "read_file"]
    return read["parameters"]["properties"]  # type: ignore[no-any-return]


class TestReadShowsThePage:
    """read_file's `picture`: the page beside the text, for a model that takes pictures."""

    async def test_only_the_picture_specs_offer_it(self, box: Toolbox) -> None:
        assert "picture" not in read_props(box.specs)
        assert read_props(box.picture_specs)["picture"] == {
            "default": False,
            "description": "Also show this page as a picture, for scans, charts, tables",
            "type": "boolean",
        }
        others = [s for s in box.picture_specs if s["function"]["name"] != "read_file"]
        assert others == [s for s in box.specs if s["function"]["name"] != "read_file"]

    async def test_the_page_of_the_first_line_read_is_drawn(self, box: Toolbox) -> None:
        arguments = {"path": "hr/rules.pdf", "offset": 5, "limit": 2, "picture": True}
        result = await box.execute("read_file", arguments, pictures="on")

        assert result.error is None
        assert result.source == "hr/rules.pdf"
        page = json.loads(result.text)
        assert page["place"] == "page 3"
        assert page["picture"] == "page 3 follows as a picture, after the tool results"
        assert "page 3" in page["document"]
        picture = result.picture
        assert picture is not None
        assert (picture.path, picture.page, picture.mime) == ("hr/rules.pdf", 3, "image/jpeg")
        assert picture.data == await box.page_picture("hr/rules.pdf", 3)
        assert (picture.width, picture.height) == picture_size(picture.data)
        assert darkness(picture.data) == pytest.approx(shade(3, PAGES), abs=0.03)

    async def test_a_scan_with_no_text_shows_its_first_page_instead(self, box: Toolbox) -> None:
        as_text = await box.execute("read_file", {"path": "hr/scan.tiff"})
        assert as_text.error is not None, "shaded frames hold no text to read"

        result = await box.execute(
            "read_file", {"path": "hr/scan.tiff", "picture": True}, pictures="on"
        )

        assert result.error is None
        assert json.loads(result.text)["text"].startswith(as_text.error)
        assert result.picture is not None
        assert result.picture.page == 1
        assert result.picture.data == await box.page_picture("hr/scan.tiff", 1)
        spent = await box.execute(
            "read_file", {"path": "hr/scan.tiff", "picture": True}, pictures="spent"
        )
        assert spent.error == as_text.error

    @pytest.mark.parametrize(
        ("mode", "note"),
        [
            ("on", "not shown: a .txt file has no pages to show"),
            ("spent", "not shown: this question has shown as many pages as it may; use the text"),
            ("off", "not shown: pictures are not available to this model; use the text"),
        ],
    )
    async def test_a_read_that_shows_no_page_says_why_and_gives_the_text(
        self, box: Toolbox, mode: PictureMode, note: str
    ) -> None:
        path = "hr/notes.txt" if mode == "on" else "hr/rules.pdf"
        drawn = box.pages_drawn
        result = await box.execute("read_file", {"path": path, "picture": True}, pictures=mode)

        assert result.error is None
        assert result.picture is None
        assert json.loads(result.text)["picture"] == note
        assert box.pages_drawn == drawn

    @pytest.mark.parametrize("path", ["finance/budget.pdf", "../docs/hr/rules.pdf", "hr/gone.pdf"])
    async def test_outside_the_scope_or_the_jail_it_fails_as_the_text_does(
        self, box: Toolbox, path: str
    ) -> None:
        scope = Scope.of(["hr"])
        as_text = await box.execute("read_file", {"path": path}, scope=scope)
        shown = await box.execute(
            "read_file", {"path": path, "picture": True}, scope=scope, pictures="on"
        )
        assert as_text.error is not None
        assert shown.text == as_text.text
        assert shown.picture is None
        assert box.pages_drawn == 0


class TestMemory:
    async def test_a_page_asked_again_is_not_drawn_again(self, box: Toolbox) -> None:
        first = await box.page_picture("hr/rules.pdf", 2)
        drawn = box.pages_drawn
        again = await box.page_picture("hr/rules.pdf", 2)
        assert again == first
        assert box.pages_drawn == drawn
        await box.page_picture("hr/rules.pdf", 3)
        assert box.pages_drawn == drawn + 1, "another page is another picture"

    async def test_a_changed_file_is_drawn_again(self, box: Toolbox, tmp_path: Path) -> None:
        before = await box.page_picture("finance/budget.pdf", 1)
        path = tmp_path / "docs" / "finance" / "budget.pdf"
        await asyncio.to_thread(path.write_bytes, shaded_pdf(6))
        mtime = (await asyncio.to_thread(path.stat)).st_mtime_ns + 1_000_000_000
        await asyncio.to_thread(os.utime, path, ns=(mtime, mtime))
        after = await box.page_picture("finance/budget.pdf", 1)
        assert darkness(before) == pytest.approx(shade(1, 2), abs=0.03)
        assert darkness(after) == pytest.approx(shade(1, 6), abs=0.03)


class TestHostile:
    async def test_a_page_too_slow_to_draw_is_cut_off_and_the_next_one_works(
        self, tmp_path: Path
    ) -> None:
        root = tmp_path / "docs"
        root.mkdir()
        (root / "slow.pdf").write_bytes(slow_pdf())
        (root / "good.pdf").write_bytes(text_pdf([["one"], ["two"]]))
        box = await _started(root, tmp_path / "data", extract_timeout=1.0)
        try:
            with pytest.raises(ExtractionError, match="rendering this pdf file took too long"):
                await box.page_picture("slow.pdf", 1)
            assert picture_size(await box.page_picture("good.pdf", 2))
        finally:
            await box.close()

    @pytest.mark.parametrize(
        ("name", "data", "reason"),
        [
            ("cyclic.pdf", cyclic_pdf(), "damaged"),
            ("garbage.pdf", b"%PDF-1.4\n" + bytes(range(256)) * 16, "cannot be rendered"),
            ("bomb.png", png_header(20_000, 20_000), "too large"),
            ("broken.tiff", b"II*\x00" + b"\xff" * 64, "damaged"),
        ],
    )
    async def test_a_broken_file_is_a_reason(
        self, box: Toolbox, tmp_path: Path, name: str, data: bytes, reason: str
    ) -> None:
        await asyncio.to_thread((tmp_path / "docs" / name).write_bytes, data)
        with pytest.raises(ContentError, match=reason):
            await box.page_picture(name, 1)
        assert await box.page_picture("hr/rules.pdf", 1), "the worker still serves"
