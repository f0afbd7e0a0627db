"""`python -m tools`: the JSON the model would get, readable Cyrillic, honest exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.tools.docgen import text_pdf
from tests.tools.gated_worker import GATE_MARK, WorkerGate
from tools import Toolbox
from tools.__main__ import build_parser, run
from tools.config import ToolSettings

ROOT = Path(__file__).resolve().parents[2]


def run_cli(*args: str, cwd: Path, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    environment = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    done = subprocess.run(
        [sys.executable, "-m", "tools", *args],
        cwd=cwd,
        env=environment,
        capture_output=True,
        timeout=120,
        check=False,
    )
    return done.returncode, done.stdout.decode("utf-8"), done.stderr.decode("utf-8")


@pytest.fixture
def folders(sandbox_dir: Path, tmp_path: Path) -> list[str]:
    return ["--sandbox", str(sandbox_dir), "--data", str(tmp_path / "data")]


@pytest.fixture
def indexed(folders: list[str], tmp_path: Path) -> list[str]:
    """The folders, with the index built as the bot (or `reindex`) builds it."""
    code, _, err = run_cli(*folders, "reindex", cwd=tmp_path)
    assert code == 0, err
    return folders


def parse(out: str) -> dict[str, Any]:
    assert out.endswith("\n")
    result: dict[str, Any] = json.loads(out)
    return result


class TestCli:
    def test_search_prints_readable_cyrillic(self, folders: list[str], tmp_path: Path) -> None:
        code, out, _ = run_cli(*folders, "search", "шарлотка", cwd=tmp_path)
        assert code == 0
        assert "документы/рецепт_шарлотки.txt" in out  # not \\u-escaped
        assert parse(out)["results"][0]["path"] == "документы/рецепт_шарлотки.txt"

    def test_search_with_limit_and_several_words(self, indexed: list[str], tmp_path: Path) -> None:
        code, out, _ = run_cli(*indexed, "search", "сахар", "стакан", "--limit", "1", cwd=tmp_path)
        assert code == 0
        assert len(parse(out)["results"]) == 1

    def test_read_pages(self, folders: list[str], tmp_path: Path) -> None:
        code, out, _ = run_cli(
            *folders, "read", "документы/рецепт_шарлотки.txt", "--offset", "6", "--limit", "1",
            cwd=tmp_path,
        )  # fmt: skip
        assert code == 0
        page = parse(out)
        assert (page["start_line"], page["end_line"], page["next_offset"]) == (6, 6, 7)
        assert "6| - сахар - 1 стакан" in page["document"]

    def test_no_side_files_are_left_behind(self, indexed: list[str], tmp_path: Path) -> None:
        code, _, _ = run_cli(*indexed, "search", "шарлотка", cwd=tmp_path)
        assert code == 0
        data = Path(indexed[indexed.index("--data") + 1])
        expected = ["search-index.lock", "search-index.sqlite3", "search-index.terms"]
        assert sorted(p.name for p in data.iterdir()) == expected

    def test_search_without_an_index_writes_nothing_and_says_what_it_searched(
        self, folders: list[str], tmp_path: Path
    ) -> None:
        code, out, err = run_cli(*folders, "search", "шарлотка", cwd=tmp_path)
        assert code == 0
        assert parse(out)["results"][0]["path"] == "документы/рецепт_шарлотки.txt"
        assert "no bot is running to build it" in err
        assert "python -m tools reindex" in err
        assert not (tmp_path / "data").exists()

    def test_read_error_exits_1(self, folders: list[str], tmp_path: Path) -> None:
        code, out, _ = run_cli(*folders, "read", "шарлотка.txt", cwd=tmp_path)
        assert code == 1
        assert "документы/рецепт_шарлотки.txt" in parse(out)["hint"]

    def test_outside_path_exits_1_without_host_path(
        self, folders: list[str], tmp_path: Path
    ) -> None:
        code, out, _ = run_cli(*folders, "read", "../../etc/passwd", cwd=tmp_path)
        assert code == 1
        assert str(tmp_path) not in out
        assert "root:" not in out

    def test_list(self, folders: list[str], tmp_path: Path) -> None:
        code, out, _ = run_cli(*folders, "list", "документы", "--depth", "2", cwd=tmp_path)
        assert code == 0
        paths = [e["path"] for e in parse(out)["entries"]]
        assert paths == ["документы/договор_аренды.md", "документы/рецепт_шарлотки.txt"]

    def test_reindex(self, folders: list[str], tmp_path: Path) -> None:
        code, out, _ = run_cli(*folders, "reindex", cwd=tmp_path)
        assert code == 0
        assert parse(out)["indexed"] == 8
        assert parse(out)["meaning"] == "search by words only: EMBEDDING_MODEL is empty"

    def test_reads_folders_from_environment(self, sandbox_dir: Path, tmp_path: Path) -> None:
        env = {"SANDBOX_DIR": str(sandbox_dir), "DATA_DIR": str(tmp_path / "envdata")}
        code, out, _ = run_cli("list", cwd=tmp_path, env=env)
        assert code == 0
        assert "README.md" in out

    def test_reads_dotenv(self, sandbox_dir: Path, tmp_path: Path) -> None:
        (tmp_path / ".env").write_text(
            f"SANDBOX_DIR={sandbox_dir}\nDATA_DIR={tmp_path / 'dotdata'}\n", encoding="utf-8"
        )
        code, out, _ = run_cli("search", "отпуск", cwd=tmp_path)
        assert code == 0
        assert parse(out)["results"][0]["path"] == "hr/отпуск.md"

    def test_missing_sandbox_is_a_usage_error(self, tmp_path: Path) -> None:
        code, _, err = run_cli("--sandbox", str(tmp_path / "nope"), "list", cwd=tmp_path)
        assert code == 2
        assert "SANDBOX_DIR" in err


class TestFolderOptions:
    @pytest.mark.parametrize(
        "argv",
        [
            ["--sandbox", "S", "--data", "D", "search", "отпуск"],
            ["search", "отпуск", "--sandbox", "S", "--data", "D"],
            ["--sandbox", "S", "search", "отпуск", "--data", "D"],
        ],
    )
    def test_before_or_after_the_command(self, argv: list[str]) -> None:
        args = build_parser().parse_args(argv)
        assert (args.sandbox, args.data, args.query) == (Path("S"), Path("D"), ["отпуск"])

    def test_left_out_they_come_from_the_environment(self) -> None:
        args = build_parser().parse_args(["list"])
        assert "sandbox" not in args
        assert "data" not in args

    def test_after_the_command_in_a_real_run(self, sandbox_dir: Path, tmp_path: Path) -> None:
        code, out, _ = run_cli(
            "search",
            "шарлотка",
            "--sandbox",
            str(sandbox_dir),
            "--data",
            str(tmp_path / "d"),
            cwd=tmp_path,
        )
        assert code == 0
        assert parse(out)["results"][0]["path"] == "документы/рецепт_шарлотки.txt"


class TestSlowFirstBuild:
    async def test_search_answers_when_the_bots_build_outlasts_the_wait(
        self, sandbox_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        (sandbox_dir / "000_долгий.pdf").write_bytes(text_pdf([["Текст"]]) + GATE_MARK)
        settings = ToolSettings(sandbox_dir=sandbox_dir, data_dir=tmp_path / "data")
        gate = WorkerGate(tmp_path / "gate")
        bot = Toolbox(settings, extraction_worker=gate.command)  # the bot's toolbox, building
        await bot.start()
        args = build_parser().parse_args(["search", "шарлотка"])
        try:
            text, failed = await run(args, settings, ready_timeout=0.05)
        finally:
            gate.close()
            await bot.close()
        assert not failed
        assert json.loads(text)["results"][0]["path"] == "документы/рецепт_шарлотки.txt"
        err = capsys.readouterr().err
        assert "the bot is building the search index" in err
        assert "not complete yet" in err
