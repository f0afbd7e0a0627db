"""A database that cannot be reached stops the bot at start with exit code 1 (a restart may find
it up, unlike a refused login) and a message that names it without its password."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "s3cr3t-pass"


async def test_an_unreachable_database_stops_the_start(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path),
        "PYTHONPATH": str(ROOT),
        "OPENAI_API_KEY": "sk-test-abcdefghijklmnop",
        "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
        "SANDBOX_DIR": str(tmp_path / "docs"),
        "DATA_DIR": str(tmp_path / "data"),
        "DATABASE_URL": f"postgresql://bot:{PASSWORD}@127.0.0.1:1/bot",
    }
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "chat",
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
        cwd=tmp_path,
    )
    out, err = await asyncio.wait_for(process.communicate(), timeout=120)
    text = (out + err).decode()
    assert process.returncode == 1, text
    assert "postgresql://bot:***@127.0.0.1:1/bot cannot be reached" in text
    assert "check that the server runs at the host and port of DATABASE_URL" in text
    assert PASSWORD not in text
