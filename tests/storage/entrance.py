"""`python -m bot` with a DATABASE_URL and nothing else to talk to, for what it prints about
the database: the model's address is a closed port and no bot token is set."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from tests.fakes.processes import REPO, run_python


async def run_bot(tmp_path: Path, database_url: str, *arguments: str) -> tuple[int, str]:
    """`python -m bot ARGUMENTS` with DATABASE_URL; its exit code and stdout+stderr."""
    (tmp_path / "docs").mkdir(exist_ok=True)
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path),
        "PYTHONPATH": str(REPO),
        "OPENAI_API_KEY": "sk-test-abcdefghijklmnop",
        "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
        "SANDBOX_DIR": str(tmp_path / "docs"),
        "DATA_DIR": str(tmp_path / "data"),
        "DATABASE_URL": database_url,
    }
    code, out, err = await run_python(
        "-m", "bot", *arguments, env=env, cwd=tmp_path, stdin=asyncio.subprocess.DEVNULL
    )
    return code, out + err
