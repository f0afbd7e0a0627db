"""Starts and stops the benchmarks' fake model server (`bench.fake_model`) as a child process.

Kept apart from the server itself so a benchmark process that only launches it imports none of
the server's code (the test suite's fake server brings numpy and Pillow along): what the
benchmark measures in its own process is then the bot's, not the fake's.
"""

from __future__ import annotations

import subprocess


class FakeModelProcess:
    """The server as a child process, so its CPU and memory are not the measured process's."""

    def __init__(self, process: subprocess.Popen[str], base_url: str) -> None:
        self.process = process
        self.base_url = base_url

    @classmethod
    def start(
        cls,
        python: str,
        env: dict[str, str],
        *,
        delay_s: float = 0.0,
        usage: bool = False,
        answer_chars: int = 0,
        stream_chars: int = 8,
        stream_delay_s: float = 0.0,
    ) -> FakeModelProcess:
        command = [python, "-m", "bench.fake_model", "--delay", str(delay_s)]
        if usage:
            command.append("--usage")
        command += ["--answer", str(answer_chars), "--stream-chars", str(stream_chars)]
        command += ["--stream-delay", str(stream_delay_s)]
        process = subprocess.Popen(
            command, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        assert process.stdout is not None
        base_url = process.stdout.readline().strip()
        if not base_url.startswith("http"):
            process.kill()
            msg = "the fake model server did not start"
            raise RuntimeError(msg)
        return cls(process, base_url)

    def stop(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()
