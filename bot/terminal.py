"""`python -m bot chat`: the same agent over stdin and stdout, without Telegram."""

from __future__ import annotations

import asyncio
import os
import stat
import sys
from collections.abc import Awaitable, Callable

from bot.agent import chat_in_terminal
from bot.app import close_services, open_services
from bot.config import Settings

_PROMPT = "› "


async def _pipe_reader() -> Callable[[], Awaitable[str | None]]:
    """Reads lines without a blocking thread, so Ctrl-C never waits for Enter."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)

    async def read_line() -> str | None:
        _write_prompt()
        line = await reader.readline()
        return line.decode(errors="replace") if line else None

    return read_line


def _file_reader() -> Callable[[], Awaitable[str | None]]:
    """Reads a regular file given as stdin (pipes into files cannot use a pipe transport)."""

    async def read_line() -> str | None:
        line = await asyncio.to_thread(sys.stdin.readline)
        return line or None

    return read_line


def _write_prompt() -> None:
    if sys.stdin.isatty():
        sys.stdout.write(_PROMPT)
        sys.stdout.flush()


def _write(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


async def run_terminal(settings: Settings) -> int:
    """Chat with the agent over this terminal until /exit or end of input."""
    services = await open_services(settings)
    try:
        is_file = stat.S_ISREG(os.fstat(sys.stdin.fileno()).st_mode)
        read_line = _file_reader() if is_file else await _pipe_reader()
        await chat_in_terminal(
            services.agent, conversation="terminal", read_line=read_line, write=_write
        )
    finally:
        await close_services(services)
    return 0
