"""The toolbox contract: specs, argument handling and errors as results, never exceptions."""

from __future__ import annotations

import ast
import asyncio
import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from bot.process.data_files import DataFiles
from tools import Toolbox, build_toolbox, listing, paths
from tools import toolbox as toolbox_module
from tools.config import ToolSettings

SPEC_TOKEN_BUDGET = 350


class TestSpecs:
    def test_three_tools_with_generated_schemas(self, toolbox: Toolbox) -> None:
        specs = {s["function"]["name"]: s["function"] for s in toolbox.specs}
        assert set(specs) == {"search_files", "read_file", "list_files"}
        for spec in specs.values():
            params = spec["parameters"]
            assert params["type"] == "object"
            assert params["additionalProperties"] is False
            assert "title" not in json.dumps(params)
            assert spec["description"].count(".") <= 1  # one sentence
        assert specs["search_files"]["parameters"]["required"] == ["query"]
        assert specs["read_file"]["parameters"]["required"] == ["path"]
        assert "required" not in specs["list_files"]["parameters"]

    def test_specs_fit_the_token_budget(self, toolbox: Toolbox) -> None:
        text = json.dumps(toolbox.specs, ensure_ascii=False, separators=(",", ":"))
        assert len(text) / 3.2 < SPEC_TOKEN_BUDGET

    def test_specs_are_a_copy(self, toolbox: Toolbox) -> None:
        toolbox.specs[0]["function"]["name"] = "changed"
        assert toolbox.specs[0]["function"]["name"] == "search_files"

    def test_build_toolbox_is_not_started(self, tmp_path: Any) -> None:
        box = build_toolbox(
            ToolSettings(sandbox_dir=tmp_path, data_dir=tmp_path.with_name(f"{tmp_path.name}-d"))
        )
        assert box.status().ready is False
        assert box.sandbox.root == tmp_path.resolve()


async def result_of(box: Toolbox, name: str, arguments: Any) -> dict[str, Any]:
    payload: dict[str, Any] = json.loads((await box.execute(name, arguments)).text)
    return payload


class TestArguments:
    @pytest.mark.parametrize(
        ("name", "arguments", "needle"),
        [
            ("search_files", "{not json", "not valid JSON"),
            ("search_files", "[1, 2]", "JSON object"),
            ("search_files", "{}", "query"),
            ("search_files", {"query": ""}, "query"),
            ("search_files", {"query": "x", "limit": 0}, "limit"),
            ("search_files", {"query": "x", "limit": "many"}, "limit"),
            ("search_files", {"query": "x", "extra": 1}, "extra"),
            ("read_file", {"path": "a.txt", "offset": 0}, "offset"),
            ("read_file", {"file": "a.txt"}, "path"),
            ("list_files", {"depth": 0}, "depth"),
            ("search_files", {"query": None}, "query"),
            ("list_files", '"just a string"', "JSON object"),
            ("delete_files", {"path": "x"}, "no tool"),
            ("", {}, "no tool"),
        ],
    )
    async def test_problems_become_error_results(
        self, toolbox: Toolbox, name: str, arguments: Any, needle: str
    ) -> None:
        result = await result_of(toolbox, name, arguments)
        assert set(result) == {"error", "hint"}
        assert needle in result["error"]
        assert result["hint"]

    async def test_json_string_and_mapping_agree(self, toolbox: Toolbox) -> None:
        as_text = await toolbox.execute("search_files", '{"query": "сахар"}')
        as_map = await toolbox.execute("search_files", {"query": "сахар"})
        assert as_text == as_map
        assert as_text.error is None
        found = json.loads(as_text.text)
        assert found["results"][0]["path"] == "документы/рецепт_шарлотки.txt"

    async def test_null_means_the_default(self, toolbox: Toolbox) -> None:
        found = await result_of(toolbox, "search_files", {"query": "отпуск", "limit": None})
        assert found["total"] >= 1
        page = await result_of(
            toolbox, "read_file", {"path": "hr/отпуск.md", "offset": None, "limit": None}
        )
        assert page["start_line"] == 1
        listing = await result_of(toolbox, "list_files", {"path": None, "depth": None})
        assert listing["path"] == ""

    async def test_numbers_over_the_maximum_are_lowered_to_it(self, toolbox: Toolbox) -> None:
        root = toolbox.sandbox.root
        for i in range(60):
            (root / f"заметка_{i}.txt").write_text(f"заметка про склад {i}", encoding="utf-8")
        await asyncio.wait_for(toolbox.wait_synced(), 10)
        found = await result_of(toolbox, "search_files", {"query": "склад", "limit": 1000})
        assert len(found["results"]) == 50
        deep = await result_of(toolbox, "list_files", {"depth": 99})
        assert deep["total"] > 60
        page = await result_of(toolbox, "read_file", {"path": "hr/отпуск.md", "limit": 10**9})
        assert page["next_offset"] is None

    async def test_empty_arguments_mean_defaults(self, toolbox: Toolbox) -> None:
        listing = await result_of(toolbox, "list_files", "")
        assert listing["path"] == ""
        assert listing["total"] > 0

    async def test_search_result_shape(self, toolbox: Toolbox) -> None:
        found = await result_of(toolbox, "search_files", {"query": "отпуск", "limit": 1})
        assert found["total"] >= 1
        assert found["truncated"] is (found["total"] > 1)
        item = found["results"][0]
        assert set(item) <= {"path", "size", "modified", "match", "snippets"}
        assert item["modified"].endswith("Z")
        assert isinstance(item["size"], int)


class TestDataFolder:
    @pytest.mark.parametrize(
        "spell",
        [lambda root: root, lambda root: Path(f"{root}/"), lambda root: root / "hr" / ".."],
        ids=["same", "trailing-slash", "dotdot"],
    )
    def test_the_documents_folder_is_refused_as_data(
        self, sandbox_dir: Path, spell: Callable[[Path], Path]
    ) -> None:
        with pytest.raises(ValidationError, match="DATA_DIR"):
            ToolSettings(sandbox_dir=sandbox_dir, data_dir=spell(sandbox_dir))

    async def test_own_files_stay_hidden_even_if_settings_were_bypassed(
        self, sandbox_dir: Path
    ) -> None:
        (sandbox_dir / "history.sqlite3").write_text("история переписки", encoding="utf-8")
        (sandbox_dir / "history.sqlite3-wal").write_text("журнал", encoding="utf-8")
        (sandbox_dir / "admin_menus.json").write_text("[42]", encoding="utf-8")
        unchecked = ToolSettings.model_construct(sandbox_dir=sandbox_dir, data_dir=sandbox_dir)
        box = Toolbox(unchecked, private_files=DataFiles(sandbox_dir).private_files())
        await box.start()
        try:
            await asyncio.wait_for(box.wait_ready(), 30)
            listing = await result_of(box, "list_files", {})
            assert not any("sqlite3" in e["path"] for e in listing["entries"])
            assert not any("admin_menus" in e["path"] for e in listing["entries"])
            for path in ("history.sqlite3", "history.sqlite3-wal", "search-index.sqlite3"):
                assert "error" in await result_of(box, "read_file", {"path": path})
            assert (await result_of(box, "search_files", {"query": "переписки"}))["results"] == []
        finally:
            await box.close()


class TestListing:
    async def test_depth_and_counts(self, toolbox: Toolbox) -> None:
        listing = await result_of(toolbox, "list_files", {"path": "", "depth": 2})
        by_path = {e["path"]: e for e in listing["entries"]}
        assert by_path["документы"]["files"] == 2
        assert by_path["документы"]["type"] == "dir"
        assert by_path["документы/рецепт_шарлотки.txt"]["type"] == "file"
        assert "документы/.upload-1a2b.part" not in by_path
        assert listing["truncated"] is False

    async def test_listing_is_capped(self, toolbox: Toolbox) -> None:
        many = toolbox.sandbox.root / "много"
        many.mkdir()
        for i in range(250):
            (many / f"файл_{i:03}.txt").write_text("x", encoding="utf-8")
        listing = await result_of(toolbox, "list_files", {"path": "много"})
        assert len(listing["entries"]) == 200
        assert listing["total"] == 250
        assert listing["truncated"] is True
        assert "search_files" in listing["hint"]

    async def test_missing_folder_suggests_close_ones(self, toolbox: Toolbox) -> None:
        result = await result_of(toolbox, "list_files", {"path": "документ"})
        assert "'документы'" in result["hint"]

    @pytest.mark.parametrize(
        ("tool", "missing", "expected"),
        [("list_files", "документ", "документы"), ("read_file", "шарлотка.txt", "шарлотки")],
    )
    async def test_close_names_are_matched_off_the_event_loop(
        self,
        toolbox: Toolbox,
        monkeypatch: pytest.MonkeyPatch,
        tool: str,
        missing: str,
        expected: str,
    ) -> None:
        threads: list[threading.Thread] = []

        def recording(*args: Any, **kwargs: Any) -> list[str]:
            threads.append(threading.current_thread())
            return paths.suggest_paths(*args, **kwargs)

        monkeypatch.setattr(toolbox_module, "suggest_paths", recording)
        result = await result_of(toolbox, tool, {"path": missing})
        assert expected in result["hint"]
        assert threads
        assert threading.main_thread() not in threads


class TestModuleLayout:
    def test_listing_does_not_import_search(self) -> None:
        tree = ast.parse(Path(listing.__file__).read_text(encoding="utf-8"))
        imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        assert "tools.search" not in imported

    async def test_file_instead_of_folder(self, toolbox: Toolbox) -> None:
        result = await result_of(toolbox, "list_files", {"path": "README.md"})
        assert "read_file" in result["hint"]
