"""The entrance turns a DATA_DIR that cannot be used into one clear line and exit code 2."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from bot.__main__ import main


def test_a_data_dir_that_cannot_be_created_is_one_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    in_the_way = tmp_path / "a-file"
    in_the_way.write_text("not a folder", encoding="utf-8")
    (tmp_path / "docs").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-entrance-test-123")
    monkeypatch.setenv("SANDBOX_DIR", str(tmp_path / "docs"))
    monkeypatch.setenv("DATA_DIR", str(in_the_way / "data"))
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        code = main(["chat"])
    finally:
        for handler in list(root.handlers):
            root.removeHandler(handler)
        for handler in handlers:
            root.addHandler(handler)
        root.setLevel(level)
    assert code == 2
    (line,) = [line for line in capsys.readouterr().err.splitlines() if " ERROR " in line]
    assert f"DATA_DIR {in_the_way / 'data'} cannot be created" in line
    assert "sk-entrance-test-123" not in line
