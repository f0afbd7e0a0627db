"""A reader that closes the pipe early (`python -m bot check | head -1`) gets no traceback."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from tests.fakes.processes import bot_env, run_python


async def _with_stdout_closed(command: str, tmp_path: Path) -> tuple[int, str]:
    """Run `python -m bot COMMAND` writing into a pipe nobody reads any more; exit code and
    stderr."""
    (tmp_path / "docs").mkdir()
    env = bot_env(
        OPENAI_API_KEY="sk-pipe-test-key-123",
        SANDBOX_DIR=str(tmp_path / "docs"),
        DATA_DIR=str(tmp_path / "data"),
    )
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader has gone before the first line
    try:
        code, _, err = await run_python(
            "-m",
            "bot",
            *command.split(),
            env=env,
            cwd=tmp_path,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=write_end,
        )
    finally:
        os.close(write_end)
    return code, err


@pytest.mark.parametrize("command", ["check --offline", "pair"])
async def test_a_closed_pipe_ends_the_output_without_a_traceback(
    command: str, tmp_path: Path
) -> None:
    code, err = await _with_stdout_closed(command, tmp_path)

    assert "BrokenPipeError" not in err
    assert "Traceback" not in err
    assert "Exception ignored" not in err
    assert code == 1, err
