"""The bot and its tools as child processes, started the way an admin or a service does.

`run_python` runs one command to its end and hands back its exit code and what it printed;
`start_python` starts one a test interrupts, as Ctrl-C at a terminal would; `BotProcess` keeps
`python -m bot` running while a test talks to it, its output in a log file; `wait_in_log`
waits for a line in that log. The environments say what the child inherits:
`bot_env` this process's own without its secrets, `bare_env` nothing but what runs Python.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import IO, NamedTuple

from tests.fakes.bot_api_http import FakeBotApi

REPO = Path(__file__).resolve().parents[2]
START_S = 120.0
"""How long one child may take to start or to run a short command to its end, or a fake server
to answer a call: seconds on an idle machine, a minute or more on two cores shared by the
suite's test processes and other work. A bound for a busy machine, not a measurement."""


def bot_env(**settings: str) -> dict[str, str]:
    """The environment of a child bot: this one without secrets, plus `settings`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "BOT_"))}
    env.update(PYTHONPATH=str(REPO), PYTHONUNBUFFERED="1", **settings)
    return env


def bare_env(**settings: str) -> dict[str, str]:
    """Nothing of the developer's own settings: only what runs Python, and `settings`."""
    return {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO), **settings}


class Finished(NamedTuple):
    """A child that ran to its end; the names are `subprocess.CompletedProcess`'s."""

    returncode: int
    stdout: str
    stderr: str
    """Empty when the child wrote its errors into `stdout` (`together=True`)."""


async def run_python(
    *argv: str,
    env: Mapping[str, str],
    cwd: Path,
    stdin: int | IO[bytes] | None = None,
    feed: bytes | None = None,
    stdout: int = asyncio.subprocess.PIPE,
    together: bool = False,
    within_s: float = START_S,
) -> Finished:
    """`python ARGV` until it exits by itself; killed if it is still running after `within_s`.

    `feed` is written to its standard input (then closed); `together` sends its standard
    error into its standard output, in the order it wrote them.
    """
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        *argv,
        cwd=cwd,
        env=dict(env),
        stdin=asyncio.subprocess.PIPE if feed is not None else stdin,
        stdout=stdout,
        stderr=asyncio.subprocess.STDOUT if together else asyncio.subprocess.PIPE,
    )
    try:
        out, err = await asyncio.wait_for(process.communicate(feed), within_s)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert process.returncode is not None
    return Finished(
        process.returncode, (out or b"").decode(errors="replace"), (err or b"").decode()
    )


async def start_python(
    *argv: str, env: Mapping[str, str], cwd: Path
) -> asyncio.subprocess.Process:
    """`python ARGV` with its output piped, as a terminal starts a command in the foreground:
    SIGINT (Ctrl-C) interrupts it, however this test process was started."""
    with _sigint_not_ignored():
        return await asyncio.create_subprocess_exec(
            sys.executable,
            *argv,
            cwd=cwd,
            env=dict(env),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )


@contextmanager
def _sigint_not_ignored() -> Iterator[None]:
    """While a child starts, SIGINT is handled here rather than ignored.

    A shell starts a background job (`pytest ... &` in a script) with SIGINT ignored, and an
    ignored signal stays ignored in every child and across exec: a child Python then never
    sees Ctrl-C. A handled one is reset to its default by exec, so the child installs its own.
    """
    if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
        yield
        return
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)


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


async def run_until_it_polls(
    env: dict[str, str], cwd: Path, api: FakeBotApi, within_s: float = START_S
) -> tuple[int, str]:
    """Start the bot, stop it with SIGTERM once it asks `api` for updates: the whole start
    and shutdown of a bot in polling mode. Its exit code and its output."""
    process = BotProcess(env, cwd)
    await process.start()
    try:
        await api.wait_for(lambda calls: any(c.method == "getUpdates" for c in calls), within_s)
        code = await process.stop()
    finally:
        await process.ensure_gone()
    return code, process.output()


async def wait_in_log(process: BotProcess, pattern: str, count: int, within_s: float) -> None:
    """Wait until `pattern` appears `count` times in the process's output.

    The child's output cannot be awaited from here, so it is read again every few
    milliseconds until the lines are there or the time is up.
    """
    async with asyncio.timeout(within_s):
        while True:
            if len(re.findall(pattern, process.output())) >= count:
                return
            await asyncio.sleep(0.02)
