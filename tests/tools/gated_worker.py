"""An extraction worker the tests can hold: documents carrying `GATE_MARK` wait at a gate.

Run as `python gated_worker.py FOLDER` (through `IsolatedExtractor(command=...)`). For a gated
document the worker first writes to the FIFO `FOLDER/entered` (so the test knows parsing has
begun), then waits until the test writes to the FIFO `FOLDER/release`. Other documents go
straight through, so a test can hold the index build on one file while reading another.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from pathlib import Path

GATE_MARK = b"%GATE-FOR-TESTS\n"
SCRIPT = Path(__file__)


class WorkerGate:
    """The test's side of the gate: the worker command, and waits on both FIFOs."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        for name in ("entered", "release"):
            os.mkfifo(folder / name)

    @property
    def command(self) -> tuple[str, ...]:
        return (str(SCRIPT), str(self.folder))

    async def entered(self) -> None:
        """Return once a worker has started on a gated document."""
        await asyncio.to_thread((self.folder / "entered").read_bytes)

    async def release(self) -> None:
        """Let one waiting worker go on."""
        await asyncio.to_thread((self.folder / "release").write_bytes, b"go")

    def close(self) -> None:
        """Unblock any test thread still waiting on a FIFO (its worker may be gone)."""
        for name, flags in (("entered", os.O_WRONLY), ("release", os.O_RDONLY)):
            with contextlib.suppress(OSError):  # no one waiting on this side
                os.close(os.open(self.folder / name, flags | os.O_NONBLOCK))


def _wait_at_gate(folder: Path, data: bytes) -> None:
    if GATE_MARK not in data:
        return
    (folder / "entered").write_bytes(b"in")
    (folder / "release").read_bytes()


def main() -> None:
    from tools.extract import worker as extract_worker  # noqa: PLC0415  (found through PYTHONPATH)

    folder = Path(sys.argv[1])
    handle = extract_worker._handle

    def gated(request: dict[str, object], data: bytes) -> dict[str, object]:
        _wait_at_gate(folder, data)
        return handle(request, data)

    extract_worker._handle = gated
    extract_worker.main()


if __name__ == "__main__":
    main()
