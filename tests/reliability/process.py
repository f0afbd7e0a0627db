"""`python -m bot` as a child process, started, killed and restarted on the same data."""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import sys
from contextlib import closing
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def bot_env(**settings: str) -> dict[str, str]:
    """The environment of a child bot: this one without secrets, plus `settings`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "BOT_"))}
    env.update(PYTHONPATH=str(REPO), PYTHONUNBUFFERED="1", **settings)
    return env


def integrity(path: Path) -> str:
    """`PRAGMA integrity_check` of a SQLite file ("ok" when sound)."""
    with closing(sqlite3.connect(path)) as db:
        return str(db.execute("PRAGMA integrity_check").fetchone()[0])


async def wait_for_rows(path: Path, table: str, within_s: float) -> None:
    """Wait until another process has committed a row to `table` of the SQLite file `path`.

    The child's disk writes cannot be awaited from here, so the file is looked at again every
    few milliseconds until the row is there or the time is up.
    """
    deadline = asyncio.get_running_loop().time() + within_s
    while True:
        try:
            with closing(sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)) as db:
                if db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]:
                    return
        except sqlite3.Error:
            pass  # not created yet
        if asyncio.get_running_loop().time() > deadline:
            msg = f"no row in {table} of {path.name} within {within_s} s"
            raise TimeoutError(msg)
        await asyncio.sleep(0.01)


class BotProcess:
    """One bot at a time on `env`; every run's output is appended to `log_path`."""

    def __init__(self, env: dict[str, str], cwd: Path) -> None:
        self.env = env
        self.cwd = cwd
        self.log_path = cwd / "bot.log"
        self._process: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        """Start `python -m bot` (the previous run must have ended)."""
        assert self._process is None or self._process.returncode is not None
        with self.log_path.open("ab") as log:
            self._process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot", cwd=self.cwd, env=self.env, stdout=log, stderr=log
            )

    async def kill(self) -> None:
        """SIGKILL: no clean-up of any kind runs."""
        assert self._process is not None
        self._process.send_signal(signal.SIGKILL)
        await self._process.wait()

    async def stop(self, within_s: float = 30.0) -> int:
        """SIGTERM and wait for the exit code."""
        assert self._process is not None
        self._process.send_signal(signal.SIGTERM)
        return await asyncio.wait_for(self._process.wait(), within_s)

    async def ensure_gone(self) -> None:
        """Kill the child if a failed test left it running."""
        if self._process is not None and self._process.returncode is None:
            await self.kill()

    def output(self) -> str:
        """Everything every run wrote."""
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""
