"""The state file of `--resume`: one JSON line per finished question, appended as each ends.

A line is written whole with one `write` and flushed, so Ctrl-C (or a kill) between
questions leaves only whole lines; a last line cut off by a crash in the middle of the write
is dropped when the file is read back. A later line for the same question wins, so a question
that failed for want of an answer (the model server was down) is asked again and replaced.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from pydantic import ValidationError

from bot.console.evaluation.results import QuestionResult

log = logging.getLogger(__name__)

_RESULT_START = b'{"key":'
"""How every line of a state file begins (`QuestionResult`'s first field)."""


class StateFileError(Exception):
    """The state file cannot be read or written; the text says which and why."""


class StateFile:
    """Results already known, and where new ones are appended."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def load(self) -> dict[str, QuestionResult]:
        """The results in the file by key (none when it does not exist yet); an unfinished
        last line is cut off so the next line starts on its own."""
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return {}
        except OSError as exc:
            msg = f"{self.path}: cannot be read: {exc.strerror or exc}"
            raise StateFileError(msg) from exc
        whole, newline, rest = data.rpartition(b"\n")
        lines = whole.splitlines()
        if rest and not rest.startswith(_RESULT_START):
            lines.append(rest)  # not a result cut short: refused with the others below
        results: dict[str, QuestionResult] = {}
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                result = QuestionResult.from_json(line)
            except ValidationError as exc:
                problem = exc.errors()[0]["msg"]
                msg = f"{self.path}: line {number} is not a result of this command ({problem})"
                raise StateFileError(msg) from exc
            results[result.key] = result
        if rest and rest.startswith(_RESULT_START):
            log.warning("%s: dropping the last line, cut off while it was written", self.path)
            self._cut(len(whole) + len(newline))
        return results

    def append(self, result: QuestionResult) -> None:
        """Add one result, whole, and hand it to the operating system before returning."""
        data = result.line().encode()
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, data)
            finally:
                os.close(fd)
        except OSError as exc:
            msg = f"{self.path}: cannot be written: {exc.strerror or exc}"
            raise StateFileError(msg) from exc

    def _cut(self, size: int) -> None:
        try:
            os.truncate(self.path, size)
        except OSError as exc:
            msg = f"{self.path}: cannot be written: {exc.strerror or exc}"
            raise StateFileError(msg) from exc
