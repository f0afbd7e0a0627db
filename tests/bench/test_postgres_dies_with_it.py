"""The benchmarks' PostgreSQL is stopped when the benchmark is killed, however it is killed.

Each test runs `tests.bench.holding_postgres` through `python -m bench.worker`, the way the
runner runs every benchmark, kills it (or its parent, or the runner in between) and waits,
with a deadline, for the postmaster and the processes it had started to end.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.fakes.postgres import PostgresMissing, find_binaries

REPO = Path(__file__).resolve().parents[2]
WITHIN_S = 30.0
_RUNNER = "import subprocess, sys; subprocess.run(sys.argv[1:], check=False)"


@pytest.fixture(autouse=True)
def _postgres_binaries() -> None:
    try:
        find_binaries()
    except PostgresMissing as exc:
        pytest.skip(str(exc))


@dataclass
class Held:
    """The benchmark process (or its parent) and the server it said it started."""

    process: subprocess.Popen[str]
    benchmark: int
    pid: int
    children: list[int]
    folder: Path


def _interruptible() -> None:
    """Ctrl-C reaches the benchmark as it does from a terminal, even when this test run is a
    background job: a shell starts those with SIGINT ignored, and an ignored signal stays
    ignored across exec, while the default is what Python replaces with KeyboardInterrupt."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@contextlib.contextmanager
def holding(tmp_path: Path, *, under_a_runner: bool = False) -> Iterator[Held]:
    worker = [sys.executable, "-m", "bench.worker", "tests.bench.holding_postgres", "hold"]
    worker += ["--workdir", str(tmp_path), "--result", str(tmp_path / "result.json")]
    command = [sys.executable, "-c", _RUNNER, *worker] if under_a_runner else worker
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    process = subprocess.Popen(
        command,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
        preexec_fn=_interruptible,  # noqa: PLW1509 - one signal call in the child, before exec
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    if not line:
        process.wait()
        pytest.fail(f"the benchmark did not start its PostgreSQL (exit {process.returncode})")
    said = json.loads(line)
    held = Held(process, said["benchmark"], said["pid"], said["children"], Path(said["folder"]))
    try:
        yield held
    finally:
        for pid in (process.pid, held.benchmark, held.pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        process.wait()
        process.stdout.close()
        shutil.rmtree(held.folder, ignore_errors=True)


def ended(pid: int, within_s: float = WITHIN_S) -> bool:
    """True once process `pid` has ended (a zombie waiting for its reaper counts as ended)."""
    try:
        handle = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        readable, _, _ = select.select([handle], [], [], within_s)
    finally:
        os.close(handle)
    return bool(readable)


def assert_server_gone(held: Held) -> None:
    for pid in (held.pid, *held.children):
        assert ended(pid), f"PostgreSQL process {pid} still runs after the benchmark was killed"


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_to_the_benchmark_stops_its_server_and_removes_its_folder(
    tmp_path: Path, signum: int
) -> None:
    with holding(tmp_path) as held:
        assert not ended(held.pid, within_s=0)
        held.process.send_signal(signum)
        assert_server_gone(held)
        held.process.wait(timeout=WITHIN_S)
        assert not held.folder.exists()


def test_the_benchmark_killed_outright_takes_its_server_with_it(tmp_path: Path) -> None:
    with holding(tmp_path) as held:
        held.process.kill()
        assert_server_gone(held)


def test_the_runner_killed_outright_stops_the_benchmark_and_its_server(tmp_path: Path) -> None:
    with holding(tmp_path, under_a_runner=True) as held:
        held.process.kill()
        assert_server_gone(held)
        assert ended(held.benchmark), "the benchmark outlived the runner that started it"
        assert not held.folder.exists()
