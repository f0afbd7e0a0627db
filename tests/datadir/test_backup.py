"""`backup` while questions run, then `restore` into a bot that carries on with the same history.

Twenty chats each have one answered question, then ask a second that the fake model holds
mid-way (after its search, before its answer), so the backup is taken with twenty questions in
flight through the real Dispatcher. The restored bot must hold the same finished turns, count
the held ones as cut off, and answer from that history.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from bot.datadir import DATA_VERSION, backup, restore
from bot.entrance.loading import load_settings
from tests.fakes.fake_llm import Reply, text_reply, tool_calls_reply
from tests.fakes.fixtures import DispatcherFactory
from tests.fakes.harness import Harness

CHATS = [5001 + n for n in range(20)]
REPO = Path(__file__).resolve().parents[2]


class HeldModel:
    """Searches first; answers after the search, or holds that answer while `holding`."""

    def __init__(self) -> None:
        self.holding = False
        self.held = 0
        self._arrived = asyncio.Condition()
        self._release = asyncio.Event()
        self._ids = itertools.count(1)

    async def __call__(self, request: dict[str, Any]) -> Reply:
        messages = request["messages"]
        question = next(m["content"] for m in reversed(messages) if m["role"] == "user")
        if messages[-1]["role"] == "user":
            call = ("search_files", {"query": "шарлотка"})
            return tool_calls_reply(call, id_prefix=f"call_{next(self._ids)}")
        if self.holding:
            async with self._arrived:
                self.held += 1
                self._arrived.notify_all()
            await self._release.wait()
        return text_reply(f"Ответ на «{question}»")

    async def wait_held(self, count: int) -> None:
        async with asyncio.timeout(30), self._arrived:
            await self._arrived.wait_for(lambda: self.held >= count)

    def release(self) -> None:
        self._release.set()


async def ask_all(harness: Harness, text: str) -> list[asyncio.Task[None]]:
    return [
        asyncio.create_task(harness.feed(harness.updates.message(f"{text} {chat}", user_id=chat)))
        for chat in CHATS
    ]


def in_progress(harness: Harness) -> dict[str, float]:
    """The `docs_bot_questions_in_progress` gauge by state, as /metrics shows it."""
    text = harness.services.metrics.render().decode()
    (family,) = [
        f
        for f in text_string_to_metric_families(text)
        if f.name == "docs_bot_questions_in_progress"
    ]
    return {s.labels["state"]: s.value for s in family.samples}


async def stored(harness: Harness) -> dict[str, tuple[list[Any], list[str]]]:
    history = harness.services.history
    return {
        key: (await history.load_turns(key, 100), await history.turn_states(key))
        for key in (f"chat:{chat}" for chat in CHATS)
    }


class TestBackupWhileAnswering:
    async def test_a_backup_taken_mid_question_restores_the_same_histories(
        self,
        make_dispatcher: DispatcherFactory,
        tmp_path: Path,
        capsys: pytest.CaptureFixture[str],
    ) -> None:
        model = HeldModel()
        dest = tmp_path / "backup"
        async with make_dispatcher(allow_all=True, request_timeout=60.0) as harness:
            harness.llm.responder = model
            await asyncio.gather(*await ask_all(harness, "Первый вопрос"))
            model.holding = True
            second = await ask_all(harness, "Второй вопрос")
            await model.wait_held(len(CHATS))
            assert in_progress(harness) == {"running": len(CHATS), "waiting": 0}

            assert await backup.serve(harness.settings, dest=str(dest)) == 0
            at_backup = await stored(harness)
            model.release()
            await asyncio.gather(*second)
            after = await stored(harness)

        printed = capsys.readouterr().out
        assert "history.sqlite3" in printed
        (index_line,) = [
            x for x in printed.splitlines() if x.startswith("Not backed up: the search")
        ]
        assert "search-index.sqlite3" in index_line
        assert "search-index.lock" in index_line  # every bot process holds it, WORKERS=1 too
        assert not (dest / "search-index.sqlite3").exists()
        assert not (dest / "search-index.terms").exists()
        manifest = json.loads((dest / "backup.json").read_text(encoding="utf-8"))
        assert "history.sqlite3" in manifest["databases"]
        assert manifest["data_version"] == DATA_VERSION
        for turns, states in at_backup.values():
            assert states == ["done", "open"]
            assert len(turns) == 1
        assert all(states == ["done", "done"] for _, states in after.values())

        restored = tmp_path / "restored"
        settings = load_settings(data_dir=restored, sandbox_dir=tmp_path / "unused")
        assert await restore.serve(settings, src=str(dest)) == 0
        assert "rebuilds it from the documents" in capsys.readouterr().out

        async with make_dispatcher(allow_all=True, data_dir=restored) as again:
            again.llm.responder = model
            back = await stored(again)
            for key, (turns, _) in at_backup.items():
                assert back[key] == (turns, ["done", "interrupted"]), key
            sent = len(again.llm.requests)
            await again.feed(again.updates.message("Третий вопрос", user_id=CHATS[0]))
            request = again.llm.requests[sent]
            asked = [m["content"] for m in request["messages"] if m["role"] == "user"]
            assert asked == [f"Первый вопрос {CHATS[0]}", "Третий вопрос"]
            assert (restored / "search-index.sqlite3").exists()


class TestRefusals:
    async def test_backup_refuses_a_destination_that_is_not_empty(
        self,
        make_dispatcher: DispatcherFactory,
        tmp_path: Path,
        capsys: pytest.CaptureFixture[str],
    ) -> None:
        dest = tmp_path / "backup"
        dest.mkdir()
        (dest / "keep.txt").write_text("mine", encoding="utf-8")
        async with make_dispatcher() as harness:
            assert await backup.serve(harness.settings, dest=str(dest)) == 2
        assert "not an empty folder" in capsys.readouterr().err
        assert [p.name for p in dest.iterdir()] == ["keep.txt"]

    async def test_restore_refuses_a_data_dir_that_is_not_empty(
        self,
        make_dispatcher: DispatcherFactory,
        tmp_path: Path,
        capsys: pytest.CaptureFixture[str],
    ) -> None:
        dest = tmp_path / "backup"
        async with make_dispatcher() as harness:
            assert await backup.serve(harness.settings, dest=str(dest)) == 0
            data_dir = harness.settings.data_dir
        before = {p.name: p.read_bytes() for p in data_dir.iterdir() if p.is_file()}
        assert await restore.serve(harness.settings, src=str(dest)) == 2
        assert "is not empty: restore never overwrites anything" in capsys.readouterr().err
        assert {p.name: p.read_bytes() for p in data_dir.iterdir() if p.is_file()} == before

    async def test_restore_refuses_a_folder_that_is_not_a_backup(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        (tmp_path / "notes").mkdir()
        settings = load_settings(data_dir=tmp_path / "data", sandbox_dir=tmp_path / "docs")
        assert await restore.serve(settings, src=str(tmp_path / "notes")) == 2
        assert "is not a backup made by `python -m bot backup`" in capsys.readouterr().err
        assert not (tmp_path / "data").exists()

    async def test_a_backup_newer_than_the_bot_is_not_restored(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        source = tmp_path / "backup"
        source.mkdir()
        manifest = {"data_version": 99, "databases": [], "files": []}
        (source / "backup.json").write_text(json.dumps(manifest), encoding="utf-8")
        settings = load_settings(data_dir=tmp_path / "data", sandbox_dir=tmp_path / "docs")
        assert await restore.serve(settings, src=str(source)) == 2
        assert f"newer than this bot's {DATA_VERSION}" in capsys.readouterr().err


class TestCommandLine:
    def test_backup_needs_only_data_dir_and_never_imports_aiogram(self, tmp_path: Path) -> None:
        data = tmp_path / "data"
        data.mkdir()
        (data / "admin_menus.json").write_text("[1]", encoding="utf-8")
        (data / "search-index.sqlite3").write_bytes(b"")
        (data / "heartbeat").write_text("now", encoding="utf-8")
        script = (
            "import sys\n"
            "from bot.__main__ import main\n"
            "code = main(['backup', sys.argv[1]])\n"
            "print('aiogram imported' if 'aiogram' in sys.modules else 'no aiogram')\n"
            "sys.exit(code)\n"
        )
        done = subprocess.run(
            [sys.executable, "-c", script, str(tmp_path / "copy")],
            cwd=tmp_path,
            env={"PYTHONPATH": str(REPO), "DATA_DIR": str(data), "PATH": "/usr/bin:/bin"},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert "no aiogram" in done.stdout
        assert "admin_menus.json" in done.stdout
        assert (tmp_path / "copy" / "admin_menus.json").read_text(encoding="utf-8") == "[1]"
        assert not (tmp_path / "copy" / "search-index.sqlite3").exists()
        assert not (tmp_path / "copy" / "heartbeat").exists()
