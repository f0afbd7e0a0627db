"""A test server in a child process, waited for until its port answers.

The WebDAV and S3 fixtures run their servers as real separate processes; `start_listening`
starts one and polls its port until it accepts a connection (or the child dies, whose output is
then shown), and `end` stops it, killing it if it will not stop (dovecot's and rclone's too).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]


def start_listening(
    argv: list[str],
    port: int,
    log: Path,
    *,
    env: dict[str, str] | None = None,
    within_s: float = 30.0,
) -> subprocess.Popen[bytes]:
    """`python ARGV` in a child, once it listens on 127.0.0.1:`port`; its output in `log`."""
    child_env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONUNBUFFERED": "1", **(env or {})}
    with log.open("ab") as out:
        process = subprocess.Popen(
            [sys.executable, *argv],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=child_env,
            cwd=log.parent,
        )
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            break
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
        except OSError:
            time.sleep(0.02)  # polling the port: the child says nothing else when it is ready
            continue
        return process
    end(process)
    output = log.read_text(errors="replace")[-2000:]
    raise RuntimeError(f"{argv[:3]} did not listen on port {port}:\n{output}")


def end(process: subprocess.Popen[bytes]) -> None:
    """Stop the child (SIGTERM, then SIGKILL) and reap it."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
