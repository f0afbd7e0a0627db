"""The modules one question passes through, and how often the path climbs back up the layers.

`python -m bench.question_path` asks one question through the whole bot (the real Dispatcher
fed a real `Update`, the real agent over HTTP to the fake model, the real toolbox: search, read,
answer) after a warm-up question, and records every call into a module of `bot` or `tools`
while the second question is answered, in every thread. It prints how many modules the path
enters, per top-level room, and the climbs: calls from a room into a room above it in the
layers contract (`pyproject.toml`), which happen only through callbacks and observers handed
down. Fewer modules and fewer climbs make a question's path easier to follow.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import threading
import tomllib
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

from aiogram import Bot

from tests.fakes.accounts import BOT_TOKEN
from tests.fakes.fake_llm import FakeLLM
from tests.fakes.fake_telegram import FakeTelegramSession
from tests.fakes.harness import started_harness
from tests.fakes.sandbox_fixtures import SANDBOX_FILES
from tests.fakes.updates import Updates

ROOT = Path(__file__).resolve().parent.parent
PATH = "документы/рецепт_шарлотки.txt"


def layer_ranks() -> dict[str, int]:
    """Each top-level room of `bot` by its layer (0 is the entrance); `tools` below them all."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    layers = next(c["layers"] for c in contracts if "bot's top level" in c["name"])
    ranks = {
        name.strip(): rank
        for rank, layer in enumerate(layers)
        for name in layer.replace(":", "|").split("|")
    }
    ranks["tools"] = len(layers)
    return ranks


def module_of(filename: str) -> str | None:
    """`bot.agent.loop` for `.../bot/agent/loop.py`; None outside `bot` and `tools`."""
    try:
        rel = Path(filename).resolve().relative_to(ROOT)
    except ValueError:
        return None
    if rel.parts[0] not in ("bot", "tools") or rel.suffix != ".py":
        return None
    parts = list(rel.with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def room_of(module: str, ranks: dict[str, int]) -> str:
    """The top-level room a module lies in, as the layers contract names it."""
    if module.startswith("tools"):
        return "tools"
    parts = module.split(".")
    return next(
        (".".join(parts[:n]) for n in range(len(parts), 0, -1) if ".".join(parts[:n]) in ranks),
        module,
    )


class PathRecorder:
    """Records, while on, each module entered and each call between modules of ours."""

    def __init__(self) -> None:
        self.on = False
        self.modules: Counter[str] = Counter()
        self.edges: Counter[tuple[str, str]] = Counter()
        self._names: dict[str, str | None] = {}

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if not self.on or event != "call":
            return
        callee = self._module(frame)
        if callee is None:
            return
        self.modules[callee] += 1
        caller_frame = frame.f_back
        while caller_frame is not None:
            caller = self._module(caller_frame)
            if caller is not None:
                if caller != callee:
                    self.edges[(caller, callee)] += 1
                return
            caller_frame = caller_frame.f_back

    def _module(self, frame: FrameType) -> str | None:
        filename = frame.f_code.co_filename
        if filename not in self._names:
            self._names[filename] = module_of(filename)
        return self._names[filename]


async def trace() -> PathRecorder:
    """One warm-up question, then the traced one."""
    recorder = PathRecorder()
    threading.setprofile(recorder)
    sys.setprofile(recorder)
    try:
        with tempfile.TemporaryDirectory() as scratch:
            sandbox = Path(scratch) / "sandbox"
            for rel, data in SANDBOX_FILES.items():
                (sandbox / rel).parent.mkdir(parents=True, exist_ok=True)
                (sandbox / rel).write_bytes(data)
            bot = Bot(BOT_TOKEN, session=FakeTelegramSession())
            async with FakeLLM() as llm:
                updates = Updates(bot)
                async with started_harness(
                    bot, llm, updates, sandbox_dir=sandbox, data_dir=Path(scratch) / "data"
                ) as harness:
                    for question in ("Сколько сахара нужно для шарлотки?", "А муки сколько?"):
                        llm.reply_tool_calls(("search_files", {"query": "шарлотка"}))
                        llm.reply_tool_calls(("read_file", {"path": PATH}))
                        llm.reply_text("Для шарлотки нужен **1 стакан сахара**.")
                        recorder.on = question.startswith("А")
                        await harness.feed(harness.updates.message(question))
                        recorder.on = False
    finally:
        sys.setprofile(None)
        threading.setprofile(None)
    return recorder


def main() -> int:
    """Print the path's modules per room and its climbs."""
    recorder = asyncio.run(trace())
    ranks = layer_ranks()
    rooms: Counter[str] = Counter(room_of(m, ranks) for m in recorder.modules)
    climbs = sorted(
        (caller, callee, count)
        for (caller, callee), count in recorder.edges.items()
        if ranks.get(room_of(caller, ranks), 0) > ranks.get(room_of(callee, ranks), 0)
    )
    print(f"modules entered by one question: {len(recorder.modules)}")
    for room, count in sorted(rooms.items(), key=lambda r: (ranks.get(r[0], 99), r[0])):
        print(f"  {room:<28} {count}")
    print(f"climbs back up the layers: {len(climbs)} call sites between modules")
    for caller, callee, count in climbs:
        print(f"  {caller} -> {callee} ({count} calls)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
