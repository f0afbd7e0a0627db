"""A child a test interrupts takes Ctrl-C however the test process was started."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.processes import START_S, bare_env, start_python

_SHOW_SIGINT = (
    "import signal; print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)"
)


@pytest.fixture
def started_in_the_background() -> Iterator[None]:
    """This process as a shell starts a background job: SIGINT ignored."""
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


@pytest.mark.usefixtures("started_in_the_background")
async def test_a_child_takes_ctrl_c_though_this_process_ignores_it(tmp_path: Path) -> None:
    process = await start_python("-c", _SHOW_SIGINT, env=bare_env(), cwd=tmp_path)
    out, _ = await asyncio.wait_for(process.communicate(), START_S)

    assert out == b"True\n"
    assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN, "this process is left as it was"
