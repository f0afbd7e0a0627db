"""Fixtures for a small realistic documents folder and a started Toolbox over it."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from tools import Toolbox
from tools.config import ToolSettings

CHARLOTTE = (
    "Рецепт шарлотки\n"
    "\n"
    "Ингредиенты:\n"
    "- яблоки - 4 штуки\n"
    "- яйца - 3 штуки\n"
    "- сахар - 1 стакан\n"
    "- мука - 1 стакан\n"
    "\n"
    "Яблоки нарезать дольками, яйца взбить с сахаром, добавить муку.\n"
    "Выпекать 40 минут при 180 градусах.\n"
)

SANDBOX_FILES: dict[str, bytes] = {
    "документы/рецепт_шарлотки.txt": CHARLOTTE.encode("utf-8"),
    "документы/договор_аренды.md": (
        "# Договор аренды офиса\n\nСрок аренды: 11 месяцев.\n"
        "Арендная плата: 120 000 рублей в месяц, оплата до 5-го числа.\n"
    ).encode(),
    "hr/отпуск.md": (
        "# Правила отпусков\n\nЕжегодный оплачиваемый отпуск — 28 календарных дней.\n"
        "Заявление на отпуск подаётся за две недели.\n"
    ).encode(),
    "hr/vacation_policy.md": (
        b"# Vacation policy\n\nEvery employee has 28 days of paid vacation a year.\n"
        b"Request leave two weeks in advance.\n"
    ),
    "финансы/бюджет_2024.csv": (
        "статья;сумма\nаренда;1440000\nзарплата;9600000\nобучение сотрудников;300000\n"
    ).encode("cp1251"),
    "финансы/старый_приказ.txt": "Приказ о премировании сотрудников отдела продаж.\n".encode(
        "koi8-r"
    ),
    "it/vpn.txt": "Инструкция: как подключиться к VPN из дома.\nСервер: vpn.example.com\n".encode(
        "utf-16"
    ),
    "README.md": b"# Documents\n\nCompany documents for the bot.\n",
    ".secret.txt": "пароль администратора: hunter2\n".encode(),
    "документы/.upload-1a2b.part": "недокачанный файл\n".encode(),
}


@pytest.fixture
def sandbox_dir(tmp_path: Path) -> Path:
    """A documents folder with Cyrillic names, nested folders and old Russian encodings.

    Also holds a hidden file and a partial upload, which every tool must not see.
    """
    return write_files(tmp_path / "sandbox", SANDBOX_FILES)


def write_files(root: Path, files: Mapping[str, bytes]) -> Path:
    """Each of `files` (a path below `root`: its bytes) written, folders made; returns `root`."""
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return root


@asynccontextmanager
async def started_toolbox(
    sandbox_dir: Path, data_dir: Path, *, within_s: float = 30
) -> AsyncIterator[Toolbox]:
    """A started Toolbox over `sandbox_dir` whose first index build has finished (within
    `within_s`), closed when the block ends."""
    box = Toolbox(ToolSettings(sandbox_dir=sandbox_dir, data_dir=data_dir), watch_interval=0.2)
    await box.start()
    try:
        await asyncio.wait_for(box.wait_ready(), within_s)
        yield box
    finally:
        await box.close()


async def tool_json(box: Toolbox, tool: str, **arguments: Any) -> dict[str, Any]:
    """What `tool` returns for `arguments`, parsed from the text the model reads."""
    result: dict[str, Any] = json.loads((await box.execute(tool, arguments)).text)
    return result


@pytest.fixture
async def toolbox(sandbox_dir: Path, tmp_path: Path) -> AsyncIterator[Toolbox]:
    """A started Toolbox over `sandbox_dir` whose first index build has finished."""
    async with started_toolbox(sandbox_dir, tmp_path / "data") as box:
        yield box
