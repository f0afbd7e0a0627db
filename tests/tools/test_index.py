"""The index follows the folder: new, changed and removed files, uploads, rebuilds, warm-up."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

import pytest
import watchfiles

from tests.fakes.sandbox_fixtures import SANDBOX_FILES
from tests.tools.docgen import text_pdf
from tests.tools.gated_worker import GATE_MARK, WorkerGate
from tools import Toolbox
from tools.config import ToolSettings
from tools.errors import ContentError, ExtractionError
from tools.extract.isolated import IsolatedExtractor
from tools.results import ToolResult


async def search(box: Toolbox, query: str, limit: int = 10) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(
        (await box.execute("search_files", {"query": query, "limit": limit})).text
    )
    return result


def _text(result: object) -> str:
    assert isinstance(result, ToolResult)
    return result.text


def paths(result: dict[str, Any]) -> list[str]:
    return [r["path"] for r in result["results"]]


class TestFreshness:
    async def test_new_file_found_without_reindex(self, toolbox: Toolbox) -> None:
        (toolbox.sandbox.root / "новости").mkdir()
        (toolbox.sandbox.root / "новости" / "объявление.txt").write_text(
            "Корпоратив переносится на пятницу.", encoding="utf-8"
        )
        await asyncio.wait_for(toolbox.wait_synced(), 10)
        assert paths(await search(toolbox, "корпоратива")) == ["новости/объявление.txt"]

    async def test_changed_and_removed_files(self, toolbox: Toolbox) -> None:
        root = toolbox.sandbox.root
        (root / "hr" / "отпуск.md").write_text("Теперь здесь про больничные листы.", "utf-8")
        (root / "документы" / "договор_аренды.md").unlink()
        await asyncio.wait_for(toolbox.wait_synced(), 10)
        assert "hr/отпуск.md" in paths(await search(toolbox, "больничный лист"))
        assert "hr/отпуск.md" not in paths(await search(toolbox, "календарных дней"))
        assert "документы/договор_аренды.md" not in paths(await search(toolbox, "аренда офиса"))
        assert toolbox.status().documents == 7

    async def test_hidden_and_partial_uploads_stay_invisible(self, toolbox: Toolbox) -> None:
        root = toolbox.sandbox.root
        (root / ".upload-77.part").write_text("секретный черновик", encoding="utf-8")
        (root / ".cache").mkdir()
        (root / ".cache" / "x.txt").write_text("секретный кэш", encoding="utf-8")
        await asyncio.wait_for(toolbox.wait_synced(), 10)
        for query in ("секретный", "*.part", "hunter2", "пароль"):
            assert paths(await search(toolbox, query)) == [], query


class TestRefreshAndReindex:
    async def test_refresh_makes_upload_searchable_at_once(self, toolbox: Toolbox) -> None:
        target = toolbox.sandbox.root / "загрузки" / "счёт.txt"
        target.parent.mkdir()
        target.write_text("Счёт на оплату интернета за март.", encoding="utf-8")
        report = await toolbox.refresh("загрузки/счёт.txt")
        assert report.path == "загрузки/счёт.txt"
        assert report.chars > 20
        assert report.error is None
        assert paths(await search(toolbox, "интернет")) == ["загрузки/счёт.txt"]

    async def test_refresh_of_bad_paths_reports_errors(self, toolbox: Toolbox) -> None:
        assert (await toolbox.refresh("нет/такого.txt")).error
        assert (await toolbox.refresh(".secret.txt")).error
        assert (await toolbox.refresh("../outside.txt")).error

    async def test_reindex_rebuilds_everything(self, toolbox: Toolbox) -> None:
        (toolbox.sandbox.root / "бинарный.txt").write_bytes(bytes(range(256)) * 10)
        started = time.monotonic()
        report = await toolbox.reindex()
        took = time.monotonic() - started
        visible = [p for p in SANDBOX_FILES if not any(s[0] == "." for s in p.split("/"))]
        assert report.indexed == len(visible)
        assert report.skipped == 1
        assert report.errors[0].startswith("бинарный.txt: ")
        assert 0 < report.seconds <= took, "the duration of this rebuild, in seconds"
        assert toolbox.status().ready
        assert paths(await search(toolbox, "сахар")) == ["документы/рецепт_шарлотки.txt"]


class TestWarmUp:
    async def test_search_answers_by_name_while_the_first_build_runs(
        self, sandbox_dir: Path, tmp_path: Path
    ) -> None:
        (sandbox_dir / "000_медленный.pdf").write_bytes(text_pdf([["Текст"]]) + GATE_MARK)
        settings = ToolSettings(sandbox_dir=sandbox_dir, data_dir=tmp_path / "data")
        gate = WorkerGate(tmp_path / "gate")
        box = Toolbox(settings, extraction_worker=gate.command)
        await box.start()
        try:
            await asyncio.wait_for(gate.entered(), 20)  # the build is held on the first file
            assert not box.status().ready
            found = await search(box, "шарлотка")
            assert found["results"][0]["path"] == "документы/рецепт_шарлотки.txt"
            assert "still being built" in found["note"]
            await gate.release()
            await asyncio.wait_for(box.wait_ready(), 30)
            assert "note" not in await search(box, "шарлотка")
        finally:
            await box.close()
            gate.close()

    async def test_reads_are_not_held_up_by_a_slow_document_in_the_build(
        self, sandbox_dir: Path, tmp_path: Path
    ) -> None:
        (sandbox_dir / "000_медленный.pdf").write_bytes(text_pdf([["Текст"]]) + GATE_MARK)
        (sandbox_dir / "справка.pdf").write_bytes(text_pdf([["Справка о работе"]]))
        settings = ToolSettings(sandbox_dir=sandbox_dir, data_dir=tmp_path / "data")
        gate = WorkerGate(tmp_path / "gate")
        box = Toolbox(settings, extraction_worker=gate.command)
        await box.start()
        try:
            await asyncio.wait_for(gate.entered(), 20)
            page = json.loads((await box.execute("read_file", {"path": "справка.pdf"})).text)
            assert "Справка о работе" in page["document"]
            assert not box.status().ready  # the build is still held on the gated file
        finally:
            await box.close()
            gate.close()

    async def test_restart_reuses_the_index(self, sandbox_dir: Path, tmp_path: Path) -> None:
        settings = ToolSettings(sandbox_dir=sandbox_dir, data_dir=tmp_path / "data")
        first = Toolbox(settings)
        await first.start()
        await asyncio.wait_for(first.wait_ready(), 30)
        await first.close()
        second = Toolbox(settings)
        await second.start()
        try:
            assert second.status().documents == first.status().documents
            await asyncio.wait_for(second.wait_ready(), 30)
            assert second.extraction_count == 0
            assert paths(await search(second, "сахар")) == ["документы/рецепт_шарлотки.txt"]
        finally:
            await second.close()

    async def test_a_restart_answers_from_the_stored_index_while_it_walks_the_folder(
        self, sandbox_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Until the restart's walk ends the stored index speaks for the folder, but a file
        deleted while the bot was down is never shown."""
        settings = ToolSettings(sandbox_dir=sandbox_dir, data_dir=tmp_path / "data")
        first = Toolbox(settings)
        await first.start()
        await asyncio.wait_for(first.wait_ready(), 30)
        await first.close()
        (sandbox_dir / "документы" / "договор_аренды.md").unlink()

        def never_in_place(*args: Any, stop_event: threading.Event, **kwargs: Any) -> Any:
            del args, kwargs
            stop_event.wait()  # the watch is still being set up until the toolbox closes
            return iter(())

        monkeypatch.setattr(watchfiles, "watch", never_in_place)
        second = Toolbox(settings)
        second.indexer.watch_first_from = 1  # the first walk waits for the watch: an hour
        second.indexer.watch_first_wait_s = 3600.0
        await second.start()
        try:
            assert paths(await search(second, "сахар")) == ["документы/рецепт_шарлотки.txt"]
            assert paths(await search(second, "календарных дней")) == ["hr/отпуск.md"]
            rent = await search(second, "аренда офиса")
            assert "документы/договор_аренды.md" not in paths(rent)
            assert second.indexer.full_passes == 0 and not second.status().ready
        finally:
            await second.close()


class TestConcurrency:
    async def test_many_calls_while_files_arrive(self, toolbox: Toolbox) -> None:
        root = toolbox.sandbox.root / "поток"
        root.mkdir()

        async def drop(i: int) -> None:
            await asyncio.to_thread(
                (root / f"заметка_{i}.txt").write_text, f"заметка номер {i} про склад", "utf-8"
            )
            report = await toolbox.refresh(f"поток/заметка_{i}.txt")
            assert report.error is None

        calls: list[Coroutine[Any, Any, object]] = [drop(i) for i in range(20)]
        calls += [search(toolbox, "склад") for _ in range(20)]
        calls += [
            toolbox.execute("read_file", {"path": "документы/рецепт_шарлотки.txt"})
            for _ in range(20)
        ]
        calls += [toolbox.execute("list_files", {"depth": 3}) for _ in range(10)]
        results = await asyncio.gather(*calls)
        for result in results[20:]:
            payload = result if isinstance(result, dict) else json.loads(_text(result))
            assert "error" not in payload
        found = await search(toolbox, "заметка склад", limit=50)
        assert len([p for p in paths(found) if p.startswith("поток/")]) == 20


class TestShutdown:
    async def test_a_document_cut_off_by_shutdown_is_indexed_after_restart(
        self, sandbox_dir: Path, tmp_path: Path
    ) -> None:
        pdf = text_pdf([["Протокол собрания акционеров"]]) + GATE_MARK
        (sandbox_dir / "000_протокол.pdf").write_bytes(pdf)
        settings = ToolSettings(sandbox_dir=sandbox_dir, data_dir=tmp_path / "data")
        gate = WorkerGate(tmp_path / "gate")
        box = Toolbox(settings, extraction_worker=gate.command)
        await box.start()
        try:
            await asyncio.wait_for(gate.entered(), 20)
        finally:
            await box.close()
            gate.close()
        again = Toolbox(settings)
        await again.start()
        try:
            await asyncio.wait_for(again.wait_ready(), 30)
            assert paths(await search(again, "акционеров")) == ["000_протокол.pdf"]
        finally:
            await again.close()


class TestAfterClose:
    async def test_refresh_reports_an_error(self, sandbox_dir: Path, tmp_path: Path) -> None:
        box = Toolbox(ToolSettings(sandbox_dir=sandbox_dir, data_dir=tmp_path / "data"))
        await box.start()
        await box.close()
        report = await box.refresh("hr/отпуск.md")
        assert report.path == "hr/отпуск.md"
        assert report.error == "the search index is closed"


class TestWorkerTimeouts:
    def test_a_first_timeout_may_be_retried_a_second_is_final(self, tmp_path: Path) -> None:
        target = tmp_path / "медленный.pdf"
        target.write_bytes(text_pdf([["Текст"]]) + GATE_MARK)
        gate = WorkerGate(tmp_path / "gate")
        worker = IsolatedExtractor(timeout=0.3, command=gate.command)
        try:
            with pytest.raises(ExtractionError) as first:
                worker.extract("pdf", target.read_bytes(), 1000, "медленный.pdf")
            assert not isinstance(first.value, ContentError)
            assert "took too long" in first.value.message
            with pytest.raises(ContentError):
                worker.extract("pdf", target.read_bytes(), 1000, "медленный.pdf")
        finally:
            worker.close()
            gate.close()


_ENV_DUMPER = (
    "import json, os, sys\n"
    "sys.stdin.buffer.readline()\n"
    "body = json.dumps({'ok': json.dumps(dict(os.environ))}).encode()\n"
    "sys.stdout.buffer.write(len(body).to_bytes(4, 'big') + body)\n"
    "sys.stdout.buffer.flush()\n"
)


class TestWorkerEnvironment:
    def test_the_worker_never_sees_the_secrets(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("BOT_TOKEN", "42:SECRET-TOKEN")
        monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
        monkeypatch.setenv("LC_ALL", "C.UTF-8")
        target = tmp_path / "a.pdf"
        target.write_bytes(b"%PDF-1.4\n")
        worker = IsolatedExtractor(timeout=20, command=("-c", _ENV_DUMPER))
        try:
            seen = json.loads(worker.extract("pdf", target.read_bytes(), 100))
        finally:
            worker.close()
        assert "BOT_TOKEN" not in seen
        assert "OPENAI_API_KEY" not in seen
        assert "SECRET" not in json.dumps(seen)
        assert seen["LC_ALL"] == "C.UTF-8"
        assert seen["PATH"]
