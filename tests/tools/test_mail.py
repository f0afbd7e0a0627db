"""An e-mail whose plain and HTML parts say different things loses neither: read_file shows,
and search finds, what only the HTML part says."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from email.message import EmailMessage
from pathlib import Path

import pytest

from tools import Toolbox
from tools.config import ToolSettings


def message(plain: str, html: str) -> bytes:
    """A multipart/alternative message, as a mail client writes it."""
    mail = EmailMessage()
    mail["Subject"] = "Совещание"
    mail["From"] = "Секретарь <office@example.com>"
    mail["To"] = "Отдел <team@example.com>"
    mail.set_content(plain)
    mail.add_alternative(html, subtype="html")
    return bytes(mail)


MAILS = {
    "короткий_текст.eml": message(
        "Совещание переносится.\n",
        "<html><body><p>Совещание переносится в <b>переговорную Байкал</b>, "
        "четверг, 15:00.</p></body></html>",
    ),
    "разные_части.eml": message(
        "Совещание переносится.\nС уважением, секретарь\n",
        "<html><body><p>Совещание переносится в переговорную Онега.</p></body></html>",
    ),
    "одинаковые_части.eml": message(
        "Отпуск согласован.\n",
        "<html><body><p>Отпуск <i>согласован</i>.</p></body></html>",
    ),
}


@pytest.fixture
async def mail_box(tmp_path: Path) -> AsyncIterator[Toolbox]:
    root = tmp_path / "docs"
    root.mkdir()
    for name, data in MAILS.items():
        (root / name).write_bytes(data)
    box = Toolbox(ToolSettings(sandbox_dir=root, data_dir=tmp_path / "data"), watch_interval=3600)
    await box.start()
    await asyncio.wait_for(box.wait_ready(), 60)
    yield box
    await box.close()


async def body_of(box: Toolbox, path: str) -> list[str]:
    """The lines read_file shows after the headers and the blank line below them."""
    page = json.loads((await box.execute("read_file", {"path": path, "limit": 200})).text)
    lines = [line.split("| ", 1)[1] for line in page["document"].split("\n")[1:-1]]
    return lines[lines.index("") + 1 :]


async def found(box: Toolbox, query: str) -> list[str]:
    result = json.loads((await box.execute("search_files", {"query": query})).text)
    return [r["path"] for r in result["results"]]


class TestPlainAndHtml:
    async def test_the_richer_html_part_is_the_body(self, mail_box: Toolbox) -> None:
        body = await body_of(mail_box, "короткий_текст.eml")
        assert body == ["Совещание переносится в переговорную Байкал, четверг, 15:00."]

    async def test_parts_that_each_add_something_are_both_kept(self, mail_box: Toolbox) -> None:
        body = await body_of(mail_box, "разные_части.eml")
        assert "С уважением, секретарь" in body
        assert "Совещание переносится в переговорную Онега." in body
        assert body.index("С уважением, секретарь") < body.index("--- the HTML part ---")

    async def test_parts_saying_the_same_are_shown_once(self, mail_box: Toolbox) -> None:
        assert await body_of(mail_box, "одинаковые_части.eml") == ["Отпуск согласован."]

    @pytest.mark.parametrize(
        ("query", "path"),
        [("Байкал", "короткий_текст.eml"), ("Онега", "разные_части.eml")],
    )
    async def test_search_finds_what_only_the_html_says(
        self, mail_box: Toolbox, query: str, path: str
    ) -> None:
        assert await found(mail_box, query) == [path]
