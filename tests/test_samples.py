"""The sample documents folder that ships with the repository, as the bot and git see it."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tools import Toolbox
from tools.config import ToolSettings

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sandbox"


async def test_the_admin_note_is_not_a_document(tmp_path: Path) -> None:
    box = Toolbox(ToolSettings(sandbox_dir=SAMPLES, data_dir=tmp_path / "data"))
    await box.start()
    try:
        await asyncio.wait_for(box.wait_ready(), 30)
        listing = json.loads((await box.execute("list_files", {"depth": 5})).text)
        files = [e["path"] for e in listing["entries"] if e["type"] == "file"]
        found = json.loads((await box.execute("search_files", {"query": "папка документов"})).text)
    finally:
        await box.close()
    assert files, "the samples are listed"
    assert not [p for p in files if "readme" in p.lower()]
    assert not [p for p in files if "eval" in p.lower()], "the answers to the example questions"
    assert not [r["path"] for r in found["results"] if "readme" in r["path"].lower()]


@pytest.mark.skipif(
    shutil.which("git") is None or not (ROOT / ".git").exists(), reason="needs a git checkout"
)
@pytest.mark.parametrize("added", ["sandbox/отчёт.pdf", "sandbox/hr/новый.docx", "sandbox/a/b.md"])
def test_documents_users_add_are_ignored_by_git(added: str) -> None:
    ignored = subprocess.run(
        ["git", "check-ignore", "--quiet", "--no-index", added], cwd=ROOT, check=False
    )
    assert ignored.returncode == 0, f"{added} would be tracked"


@pytest.mark.skipif(
    shutil.which("git") is None or not (ROOT / ".git").exists(), reason="needs a git checkout"
)
def test_the_samples_stay_tracked() -> None:
    tracked = subprocess.run(
        ["git", "ls-files", "sandbox"], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout.split()
    assert "sandbox/.README.md" in tracked
    assert "sandbox/.eval.example.toml" in tracked
    assert "sandbox/hr/vacation_policy.md" in tracked
