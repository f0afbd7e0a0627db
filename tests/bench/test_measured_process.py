"""What a benchmark process holds besides the bot: the fakes it launches stay out of it.

The concurrency benchmark reports the peak memory of its own process as the bot's. The fake model
server runs in a child process; only its launcher belongs in the measured one, or the server's
numpy and Pillow would count as the bot's start-up.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
SERVER_ONLY = ("numpy", "PIL", "tests.fakes.fake_llm", "bench.fake_model")


def _imported_after(statement: str) -> set[str]:
    """The modules of SERVER_ONLY a fresh interpreter holds after `statement`."""
    held = f"print(' '.join(m for m in {SERVER_ONLY!r} if m in sys.modules))"
    code = f"{statement}\nimport sys\n{held}"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return set(done.stdout.split())


def test_the_concurrency_benchmark_imports_no_part_of_the_fake_server() -> None:
    assert _imported_after("import bench.bench_concurrency") == set()


def test_the_launcher_starts_the_fake_server() -> None:
    from bench.model_process import FakeModelProcess  # noqa: PLC0415 - what the test is about

    server = FakeModelProcess.start(sys.executable, {"PYTHONPATH": str(ROOT)})
    try:
        assert server.base_url.startswith("http://127.0.0.1:")
    finally:
        server.stop()
    assert server.process.returncode is not None
