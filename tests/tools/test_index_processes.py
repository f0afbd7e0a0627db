"""A large pass has its plain files prepared by child processes: the index they make is the one
this process's threads make, file for file."""

from __future__ import annotations

import asyncio
import json
import os
import zlib
from pathlib import Path
from typing import Any

from tests.tools.docgen import text_pdf
from tools import Toolbox
from tools.config import ToolSettings
from tools.index.indexer import PROCESSES_FROM

PLAIN = PROCESSES_FROM + 20
Row = tuple[int, int, int, str | None, str | None, str]


def _fill(root: Path) -> None:
    for number in range(PLAIN):
        text = f"Служебная записка номер {number}.\r\nЁлка у входа, слово{number}.\n"
        (root / f"записки/записка_{number:03d}.txt").parent.mkdir(exist_ok=True)
        (root / f"записки/записка_{number:03d}.txt").write_text(text, encoding="utf-8")
    (root / "старое").mkdir()
    (root / "старое/письмо.txt").write_bytes("Письмо о поставке яблок.".encode("cp1251"))
    (root / "отчёт.pdf").write_bytes(text_pdf([["Годовой отчёт о прибыли"]]))
    (root / "бинарный.txt").write_bytes(bytes(range(256)) * 10)
    (root / "страница.html").write_text("<p>Расписание <b>электричек</b></p>", encoding="utf-8")
    os.symlink("отчёт.pdf", root / "ссылка.txt")  # a plain name that leads to a PDF


def _rows(box: Toolbox) -> dict[str, Row]:
    with box.indexer.readers.connection() as conn:
        found = conn.execute(
            "SELECT path, size, mtime_ns, chars, error, language, body FROM files "
            "LEFT JOIN texts ON texts.id = files.id"
        ).fetchall()
    return {
        path: (size, mtime, chars, error, language, zlib.decompress(body).decode() if body else "")
        for path, size, mtime, chars, error, language, body in found
    }


async def _paths(box: Toolbox, query: str) -> set[str]:
    raw = (await box.execute("search_files", {"query": query, "limit": 20})).text
    data: dict[str, Any] = json.loads(raw)
    return {r["path"] for r in data["results"]}


async def test_a_large_pass_is_prepared_by_children_as_the_threads_would(
    tmp_path: Path,
) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    _fill(root)
    box = Toolbox(ToolSettings(sandbox_dir=root, data_dir=tmp_path / "data"))
    await box.start()
    try:
        await asyncio.wait_for(box.wait_ready(), 60)
        assert box.indexer.prepared_elsewhere >= PLAIN  # the plain files, not in this process
        built = _rows(box)
        assert len(built) == PLAIN + 5
        assert built["бинарный.txt"][3] is not None  # stored by name with its error
        assert "Годовой отчёт о прибыли" in built["ссылка.txt"][5]  # parsed as the PDF it is
        again = [rel for rel in built if not rel.startswith("записки/")] + [
            f"записки/записка_{n:03d}.txt" for n in (0, 7, PLAIN - 1)
        ]
        for rel in again:  # prepared again, in this process's threads
            await box.refresh(rel)
        assert _rows(box) == built
        assert await _paths(box, "поставка") == {"старое/письмо.txt"}
        assert await _paths(box, "прибыль") == {"отчёт.pdf", "ссылка.txt"}
        assert await _paths(box, "елка слово7") >= {"записки/записка_007.txt"}
        assert await _paths(box, "электрички") == {"страница.html"}
    finally:
        await box.close()
