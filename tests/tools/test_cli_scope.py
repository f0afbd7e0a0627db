"""`python -m tools … --scope`: the terminal sees exactly what a chat with that scope sees."""

from __future__ import annotations

import json
from pathlib import Path

from tests.tools.test_cli import folders, parse, run_cli

__all__ = ["folders"]  # the fixture the tests below ask for by name


class TestScopeOption:
    def test_search_finds_inside_only(self, folders: list[str], tmp_path: Path) -> None:
        code, out, _ = run_cli(*folders, "search", "отпуск", "--scope", "hr", cwd=tmp_path)
        assert code == 0
        assert {r["path"] for r in parse(out)["results"]} == {"hr/отпуск.md"}
        code, out, _ = run_cli(
            *folders, "--scope", "документы,it", "search", "отпуск", cwd=tmp_path
        )
        assert code == 0
        assert parse(out)["total"] == 0

    def test_read_and_list_outside_are_missing(self, folders: list[str], tmp_path: Path) -> None:
        code, out, _ = run_cli(*folders, "read", "hr/отпуск.md", "--scope", "it", cwd=tmp_path)
        assert code == 1
        assert parse(out)["error"] == "'hr/отпуск.md' does not exist"
        code, out, _ = run_cli(*folders, "list", "--depth", "3", "--scope", "it", cwd=tmp_path)
        assert code == 0
        assert [e["path"] for e in parse(out)["entries"]] == ["it", "it/vpn.txt"]

    def test_everything_and_bad_names(self, folders: list[str], tmp_path: Path) -> None:
        code, out, _ = run_cli(*folders, "read", "hr/отпуск.md", "--scope", "*", cwd=tmp_path)
        assert code == 0
        assert "28 календарных дней" in json.loads(out)["document"]
        code, _, err = run_cli(*folders, "list", "--scope", "../etc", cwd=tmp_path)
        assert code == 2
        assert err.startswith("--scope: '../etc' is not a plain folder path")
